import type { ToolResult } from "./types.ts";

/** One tool call as the hook points see it, with the input already validated. */
export interface ToolCallInfo {
  toolName: string;
  toolCallId: string;
  input: Record<string, unknown>;
}

/**
 * What a before-hook decides: stop the call with a reason the model reads, run it with another
 * input, and/or settle approval (`allow` skips the approval prompt, `ask` asks even when the
 * approval mode would not). Nothing (undefined) lets the call go on as it is.
 */
export interface BeforeToolOutcome {
  block?: string;
  input?: Record<string, unknown>;
  decision?: "allow" | "ask";
  /** Why `ask` was decided, shown with the approval prompt. */
  reason?: string;
}

/**
 * Code that runs around every tool call: Claude-style hooks, TypeScript extensions, and whatever
 * else (MCP, plugins) adds one. Points run in order; a later point sees the input an earlier one
 * rewrote and the result an earlier one replaced.
 */
export interface ToolHookPoint {
  beforeToolCall?(call: ToolCallInfo, signal: AbortSignal): Promise<BeforeToolOutcome | undefined>;
  /** Returns the result to use instead, or undefined to keep it. */
  afterToolCall?(call: ToolCallInfo, result: ToolResult, signal: AbortSignal): Promise<ToolResult | undefined>;
}
