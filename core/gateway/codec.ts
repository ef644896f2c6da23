import type { AssistantMessage } from "../ai/messages.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import type { RequestControls } from "../ai/request-controls.ts";
import type { AssistantEvent, Context } from "../ai/stream.ts";
import type { GatewayFailure } from "./errors.ts";

export type FormatName = "anthropic" | "chat" | "responses";

/** A client request in omp's own terms, ready for core/ai's stream(). */
export interface DecodedRequest {
  context: Context;
  stream: boolean;
  maxTokens?: number;
  temperature?: number;
  thinking: ThinkingLevel;
  /** What the client says ties its requests together (Claude Code's session, `prompt_cache_key`). */
  conversationKey?: string;
  /** Chat Completions `stream_options.include_usage`. */
  includeUsage?: boolean;
  /** Tool choice, stop sequences, output format: set only when the client asks. */
  controls: RequestControls;
  /** Responses: the stored reply this request continues. */
  previousResponseId?: string;
  /** Responses `store` (its default true): the reply is kept for a later `previous_response_id`. */
  keep?: boolean;
  /** Responses `custom` (freeform) tools, served as a function with one `input` string. */
  customTools?: Set<string>;
}

export interface EncodeContext {
  requestId: string;
  /** The model as the client named it, echoed in responses. */
  modelName: string;
  /** The model that answers. */
  upstream: Model;
  request: DecodedRequest;
  /** Input tokens estimated from the request, for formats that report them before the provider has. */
  estimatedInput: number;
}

/** Writes one reply as a client format's SSE frames, from core/ai's events. */
export interface StreamEncoder {
  /** The frames that open the stream, sent once the provider has accepted the request. */
  open(partial: AssistantMessage): string[];
  event(event: AssistantEvent): string[];
  done(message: AssistantMessage): string[];
  /** A failure after the stream opened: the format's in-stream error, never a silently short answer. */
  fail(failure: GatewayFailure, partial: AssistantMessage): string[];
  /** Keeps idle connections and strict clients' timers alive during long waits. */
  ping(): string;
}

export interface Codec {
  name: FormatName;
  /** Validates the body's shape; throws a GatewayFailure-bearing error (see RequestError). */
  parse(body: unknown): { model: string; stream: boolean; body: unknown };
  decode(body: unknown, headers: Headers, target: Model): DecodedRequest;
  encoder(context: EncodeContext): StreamEncoder;
  /** The whole reply as one JSON body, for requests without `stream`. */
  message(context: EncodeContext, message: AssistantMessage): unknown;
  error(failure: GatewayFailure, requestId: string): { status: number; body: unknown };
}

/** A request the gateway cannot serve, with the failure to send in the client's format. */
export class RequestError extends Error {
  constructor(readonly failure: GatewayFailure) {
    super(failure.message);
  }
}
