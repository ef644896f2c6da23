import type { Reply } from "./script.ts";

export interface RenderContext {
  /** The model the request asked for. */
  model: string;
  /** Counts responses, for ids that differ between turns. */
  serial: number;
}

/** One provider's wire format: how a reply streams and how errors look. */
export interface WireFormat {
  name: "anthropic" | "openai-completions" | "openai-responses" | "google";
  /** Fully framed SSE events, in order. */
  events(reply: Reply, context: RenderContext): string[];
  /** The provider's JSON error body for `status`; `message`/`kind` default per status. */
  error(status: number, message?: string, kind?: string): unknown;
  /** The error event the provider sends inside an open stream. */
  streamError(message: string, kind: string): string;
  /** What the provider answers when overloaded: Anthropic 529, the others 503. */
  overloaded: { status: number; message: string; kind: string };
  /** The signature of a signed thinking block in the reply (formats with signed thinking). */
  signature?(context: RenderContext): string;
}
