/** A tool call in a scripted reply; the stand-in makes up an id when none is given. */
export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
  id?: string;
  /** Streamed verbatim instead of the JSON of `arguments` (e.g. broken JSON); Gemini sends objects and ignores it. */
  rawArguments?: string;
}

/** Tokens in omp's normalised sense: `input` excludes cache reads and writes. */
export interface ScriptedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** An abstract assistant reply, rendered in the wire format of whichever endpoint was called. */
export interface Reply {
  text?: string;
  thinking?: string;
  /** OpenAI-compatible format: stream the thinking as OpenRouter's signed reasoning_details too. */
  reasoningDetails?: boolean;
  toolCalls?: ScriptedToolCall[];
  /**
   * A provider-side web search before the text, the text backed by citations of its results:
   * Anthropic's server_tool_use and web_search_tool_result blocks with citations_delta, OpenAI
   * Responses' web_search_call item with url_citation annotations, or Gemini's groundingMetadata.
   */
  webSearch?: { query: string; results: { url: string; title: string }[] };
  usage?: ScriptedUsage;
  /** Default: `toolUse` when there are tool calls, else `stop`. */
  stop?: "stop" | "length" | "toolUse";
  /** Set by the stand-in when the request's stop sequences cut the text (Anthropic names it). */
  stopSequence?: string;
  /** Wait before sending the response headers. */
  delayMs?: number;
  /** Extra response headers (the rate-limit state a provider sends with its answer). */
  headers?: Record<string, string>;
  /** Wait between SSE events. */
  eventDelayMs?: number;
  /** Stall for `pauseMs` after this many events (lets tests abort mid-stream). */
  pauseAfterEvents?: number;
  pauseMs?: number;
  /** Send only the first n SSE events, then close the connection. */
  cutAfterEvents?: number;
  /** `close` ends the body cleanly (a proxy closing early); `reset` breaks the connection. */
  cutMode?: "close" | "reset";
  /** After this many events, send the provider's in-stream error event and end the stream. */
  streamErrorAfterEvents?: number;
  /** The in-stream error; default the provider's overload error. */
  streamError?: { message?: string; kind?: string };
}

/** An HTTP failure, rendered as the provider's error JSON (or `errorBody` as given). */
export interface Fault {
  status?: number;
  /** `retry-after` header: seconds, or an HTTP date string. */
  retryAfter?: number | string;
  /** `retry-after-ms` header. */
  retryAfterMs?: number;
  /** Anthropic's 529 `overloaded_error`; 503 in the other formats. */
  overloaded?: boolean;
  message?: string;
  /** The provider's error type/code/status; a per-status default otherwise. */
  kind?: string;
  /** Sent verbatim as JSON instead of the provider's error shape. */
  errorBody?: unknown;
  delayMs?: number;
}

export type Turn = Reply | Fault;

export function isFault(turn: Turn): turn is Fault {
  return "status" in turn || "overloaded" in turn || "errorBody" in turn;
}

export const DEFAULT_USAGE: Required<ScriptedUsage> = { input: 12, output: 7, cacheRead: 0, cacheWrite: 0 };

export function usageOf(reply: Reply): Required<ScriptedUsage> {
  return { ...DEFAULT_USAGE, ...reply.usage };
}

export function stopOf(reply: Reply): "stop" | "length" | "toolUse" {
  return reply.stop ?? (reply.toolCalls && reply.toolCalls.length > 0 ? "toolUse" : "stop");
}

/** Splits text into `pieces` roughly equal parts, so deltas really arrive in several events. */
export function argumentsText(call: ScriptedToolCall): string {
  return call.rawArguments ?? JSON.stringify(call.arguments);
}

export function split(text: string, pieces = 3): string[] {
  if (text.length <= 1) return [text];
  const size = Math.ceil(text.length / Math.min(pieces, text.length));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
