import type { z } from "zod";
import type { Agent } from "../agent/agent.ts";
import type { ImageContent, TextContent } from "../ai/messages.ts";
import type { LspSession } from "../lsp/session.ts";

/** What a tool may do, for approval modes: `write` needs approval under `write`, all under `always-ask`. */
export type ToolEffect = "read" | "write" | "exec";

export interface ToolContext {
  /** The session's working directory; relative paths resolve against it. */
  cwd: string;
  signal: AbortSignal;
  /** Where a tool may save large output for the model to read later (created on demand). */
  artifactsDir: string;
  /** Streams partial output (bash) to UIs while the tool runs. */
  onUpdate?: (text: string) => void;
  /** Applied to whatever the tool saves to disk itself (bash's full-output logs): removes the secrets in use. */
  redact?: (text: string) => string;
  /** The `bash.timeoutSeconds` setting: bash's timeout when the call gives none. */
  bashTimeoutSeconds?: number;
  /** The model's id for this call. */
  toolCallId?: string;
  /** The agent making the call, for tools that start agents of their own (task). */
  agent?: Agent;
  /** The session's language servers (diagnostics after writes, the lsp tool); absent in contexts without a session. */
  lsp?: LspSession;
}

export interface ToolResult {
  content: (TextContent | ImageContent)[];
  isError?: boolean;
  /** For UIs and sessions, never sent to the model: a diff, an exit code, match counts. */
  details?: unknown;
  /** A hook's `continue: false`: the run stops once this turn's tools are done, for this reason. Never sent to the model. */
  halt?: string;
}

/** The code of a tool: what validates its input and what runs it. */
export interface ToolImplementation<S extends z.ZodType = z.ZodType> {
  /** The single source of truth for the input; `parameters` is made from it. */
  schema: S;
  /** Throwing is fine: the agent turns the error into an error result for the model. */
  execute(input: z.infer<S>, context: ToolContext): Promise<ToolResult>;
  /** What this input does when it differs from the tool's `effect` (a dry run is a read, applying it a write). */
  effectOf?(input: z.infer<S>): ToolEffect;
}

/** A tool as its module writes it; {@link Tool} is what the agent holds. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> extends ToolImplementation<S> {
  name: string;
  /** Shown to the model; says when to use the tool and its limits. */
  description: string;
  effect: ToolEffect;
}

/**
 * A tool as the agent holds it: everything the model and the approval gate need, without its code.
 * Building zod schemas and evaluating the tools' modules would cost start-up milliseconds before
 * the first request, so the code is loaded on the first call.
 */
export interface Tool {
  name: string;
  description: string;
  effect: ToolEffect;
  /** The input as JSON Schema, as sent to providers. */
  parameters: Record<string, unknown>;
  /** The implementation; the first call loads it, later calls get the same one. */
  load(): Promise<ToolImplementation>;
}

/**
 * Tools that come and go while the agent runs (MCP servers): the agent offers the model what
 * `tools` returns at each request, updated whenever the source says it changed.
 */
export interface ToolSource {
  /** What to offer now; the same array until something changed. */
  tools(contextWindow: number): Tool[];
  /** Resolves once the first request may go out with what is known; never rejects. */
  ready(): Promise<void>;
  subscribe(listener: () => void): () => void;
}
