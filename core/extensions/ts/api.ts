import type { ImageContent, TextContent } from "../../ai/messages.ts";
import type { ToolEffect } from "../../tools/types.ts";

/** What handlers and tools get to know about where they run. */
export interface ExtensionContext {
  cwd: string;
  sessionId: string;
  /** The session file; "" with --no-session. */
  sessionFile: string;
}

export type ToolContent = (TextContent | ImageContent)[];

export interface ExtensionToolResult {
  content: ToolContent;
  details?: unknown;
  isError?: boolean;
}

/** A tool an extension registers; `parameters` is a zod schema or a JSON Schema object. */
export interface ExtensionTool {
  name: string;
  description: string;
  parameters: unknown;
  /** For approval modes; an extension's tool may do anything, so `exec` unless it says otherwise. */
  effect?: ToolEffect;
  execute(
    toolCallId: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    onUpdate: ((partial: { content: ToolContent }) => void) | undefined,
    ctx: ExtensionContext,
  ): Promise<ExtensionToolResult | string> | ExtensionToolResult | string;
}

export interface ExtensionCommand {
  description?: string;
  /** `args`: the text after the command name. What it returns, if a string, is sent to the model as the prompt. */
  handler(args: string, ctx: ExtensionContext): Promise<string | void> | string | void;
}

export interface ToolCallEvent {
  toolName: string;
  toolCallId: string;
  input: Record<string, unknown>;
}

export interface ToolResultEvent extends ToolCallEvent, ExtensionToolResult {}

/** The events `on` takes and what each handler may return. */
export interface ExtensionEvents {
  /** Before a tool runs: block it (with the reason the model reads) or replace its input. */
  tool_call: (event: ToolCallEvent, ctx: ExtensionContext) => { block?: boolean; reason?: string; input?: Record<string, unknown> } | void;
  /** After a tool ran: replace parts of its result. Each handler sees what earlier ones changed. */
  tool_result: (event: ToolResultEvent, ctx: ExtensionContext) => Partial<ExtensionToolResult> | void;
  session_start: (event: { reason: "startup" | "resume" }, ctx: ExtensionContext) => void;
  session_end: (event: { reason: string }, ctx: ExtensionContext) => void;
}
export type ExtensionEventName = keyof ExtensionEvents;

/** The object an extension's default-exported factory receives. */
export interface ExtensionAPI {
  registerTool(tool: ExtensionTool): void;
  registerCommand(name: string, command: ExtensionCommand): void;
  on<E extends ExtensionEventName>(event: E, handler: (...args: Parameters<ExtensionEvents[E]>) => ReturnType<ExtensionEvents[E]> | Promise<ReturnType<ExtensionEvents[E]>>): void;
  /** The zod module omp uses (`const { z } = api.zod`), since an extension file has no node_modules of its own. */
  zod: typeof import("zod");
}
