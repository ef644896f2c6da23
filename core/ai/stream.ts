import type { AssistantMessage, ImageContent, Message, TextContent, ToolCall } from "./messages.ts";
import type { Model, ThinkingLevel } from "./model.ts";
import type { ProviderFailure } from "./failure.ts";
import type { RequestControls } from "./request-controls.ts";

export type { ProviderFailure };

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (from the tool's zod schema). */
  parameters: Record<string, unknown>;
}

export interface Context {
  systemPrompt: string;
  messages: Message[];
  tools: ToolSpec[];
}

/** `RequestControls` are only set for gateway clients that ask for them; the agent leaves them out. */
export interface StreamOptions extends RequestControls {
  apiKey?: string;
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
  thinking?: ThinkingLevel;
  /** Extra headers for this request (merged over the model's). */
  headers?: Record<string, string>;
  /** Retries on 429/5xx/overloaded/dropped connections; default 4. */
  maxRetries?: number;
  /** First backoff (doubling on each retry); default 1 s. OMP_RETRY_BASE_MS wins over it. */
  retryBaseDelayMs?: number;
  /**
   * A response that sends nothing (no headers, no bytes) for this long is given up and retried:
   * a stalled connection must not hang the session forever. Default 5 minutes.
   */
  idleTimeoutMs?: number;
  /** Like `idleTimeoutMs`, for the wait for the response's headers (connect and accept); defaults to it. */
  connectTimeoutMs?: number;
  /** Like `idleTimeoutMs`, for the wait from the headers to the first event; defaults to it. */
  firstByteTimeoutMs?: number;
  /** Called before each retry, so the UI can say why it waits. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /**
   * Called on each attempt as soon as the request is on its way, before its response is awaited:
   * work done here (the agent writes its session) overlaps the provider's answer.
   */
  onRequest?: () => void;
  /** Called with each response's headers as they arrive: the rate-limit state some providers send (Codex's `x-codex-*`). */
  onResponse?: (headers: Headers) => void;
  /** Session id for providers' prompt-cache affinity. */
  sessionId?: string;
  /** Offer the provider's own server-side web search (Anthropic's web_search tool, OpenAI's hosted one, Gemini's Google Search grounding), where it has one. */
  nativeWebSearch?: boolean;
}

/**
 * One event model for every provider. `partial` is the message so far; `contentIndex` points into
 * `partial.content`. A stream always ends with exactly one `done` or `error`.
 */
export type AssistantEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: TextContent; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  /** `discarded`: the partial shown so far is dropped; the reply starts again from nothing. */
  | { type: "retry"; attempt: number; delayMs: number; reason: string; discarded?: boolean }
  | { type: "done"; message: AssistantMessage }
  /**
   * `message.stopReason` is "error" or "aborted", `message.errorMessage` says why in words and
   * `failure` (also on the message) by kind; absent for an abort.
   */
  | { type: "error"; message: AssistantMessage; failure?: ProviderFailure };

export type StreamFunction = (model: Model, context: Context, options?: StreamOptions) => AsyncIterable<AssistantEvent>;

export type { ImageContent };
