import type { z } from "zod";
import type { ImageContent, TextContent } from "../ai/messages.ts";

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
}

export interface ToolResult {
  content: (TextContent | ImageContent)[];
  isError?: boolean;
  /** For UIs and sessions, never sent to the model: a diff, an exit code, match counts. */
  details?: unknown;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Shown to the model; says when to use the tool and its limits. */
  description: string;
  /** The single source of truth for the input; sent to the model as JSON Schema. */
  schema: S;
  effect: ToolEffect;
  /** Throwing is fine: the agent turns the error into an error result for the model. */
  execute(input: z.infer<S>, context: ToolContext): Promise<ToolResult>;
}
