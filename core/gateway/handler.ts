import { stream } from "../ai/index.ts";
import type { AssistantMessage } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import { withoutSignedThinking } from "../ai/preserved-thinking.ts";
import type { AssistantEvent, Context } from "../ai/stream.ts";
import { type Codec, type DecodedRequest, type EncodeContext, RequestError } from "./codec.ts";
import { type GatewayFailure, failure, isAccountFailure, retryHeaders, upstreamFailure } from "./errors.ts";
import { type ResponseStore, continueConversation } from "./response-store.ts";
import { responseId } from "./responses-encode.ts";
import { SSE_HEADERS } from "../http/sse.ts";
import { type StickyCredentials, conversationHash } from "./sticky.ts";
import type { Credential, Upstream } from "./upstream.ts";
import { BodyTooLarge, readLimitedText } from "../http/body-limit.ts";

/** What a finished request reports for its log line, usage row and metrics. */
export interface Outcome {
  status: number;
  model?: Model;
  credential?: string;
  message?: AssistantMessage;
  error?: string;
}

/** How long the provider may stay silent in each phase of a call (`--connect-timeout` and the others). */
export interface UpstreamTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}

export interface CallDeps {
  upstream: Upstream;
  timeouts: UpstreamTimeouts;
  /** The largest request body taken (`--max-body`). */
  maxBodyBytes: number;
  sticky: StickyCredentials;
  requestId: string;
  /** Where Responses replies are kept for `previous_response_id`. */
  responses?: ResponseStore;
  /** Called once, when the response (the whole stream, for streams) is over. */
  finish(outcome: Outcome): void;
}

/** What one stream may hold for a client that reads slower than the provider writes. */
const STREAM_BUFFER_BYTES = 64 * 1024;

/** How often an open stream sends a keep-alive while the provider is silent. */
const PING_MS = 10_000;

/** Rough token count (four characters a token), for clients that need a number before the provider gives one. */
export function estimateTokens(context: Context): number {
  return Math.max(1, Math.ceil(JSON.stringify(context).length / 4));
}

export function errorResponse(codec: Codec, f: GatewayFailure, requestId: string): Response {
  const { status, body } = codec.error(f, requestId);
  return Response.json(body, { status, headers: retryHeaders(f) });
}

export async function readJson(req: Request, maxBytes: number): Promise<unknown> {
  let text: string;
  try {
    text = await readLimitedText(req, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new RequestError(failure("too_large", `${error.message}; start the gateway with a larger --max-body to take it`));
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestError(failure("invalid_request", "the request body is not valid JSON"));
  }
}

/** Parses, resolves and decodes a request, or throws RequestError. */
export async function prepare(codec: Codec, req: Request, upstream: Upstream, maxBodyBytes: number): Promise<{ model: Model; name: string; decoded: DecodedRequest }> {
  const head = codec.parse(await readJson(req, maxBodyBytes));
  const model = await upstream.resolve(head.model);
  if (!model) {
    throw new RequestError(failure("not_found", `model ${JSON.stringify(head.model)} is not one omp can serve here; GET /v1/models lists them (ids bare or as provider/id)`));
  }
  return { model, name: head.model, decoded: codec.decode(head.body, req.headers, model) };
}

const CONTENT = new Set(["text_start", "text_delta", "thinking_start", "thinking_delta", "toolcall_start", "toolcall_delta", "toolcall_end", "text_end", "thinking_end"]);

/**
 * Serves one completion request through core/ai. Nothing is sent until the provider has accepted
 * the request, so a refusal becomes an HTTP error in the client's format, and a usage limit or a
 * rejected credential moves the conversation to another credential first.
 */
export async function serveCompletion(codec: Codec, req: Request, deps: CallDeps): Promise<Response> {
  let prepared;
  try {
    prepared = await prepare(codec, req, deps.upstream, deps.maxBodyBytes);
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    deps.finish({ status: codec.error(error.failure, deps.requestId).status, error: error.message });
    return errorResponse(codec, error.failure, deps.requestId);
  }
  const { model } = prepared;
  let decoded = prepared.decoded;
  const fail = (f: GatewayFailure, credential?: string): Response => {
    deps.finish({ status: codec.error(f, deps.requestId).status, model, credential, error: f.message });
    return errorResponse(codec, f, deps.requestId);
  };
  const store = deps.responses;
  if (decoded.previousResponseId !== undefined) {
    const earlier = store?.get(decoded.previousResponseId);
    if (!earlier) {
      return fail(
        failure(
          "invalid_request",
          `previous_response_id: ${JSON.stringify(decoded.previousResponseId)} is not known to this gateway, which keeps stored replies in memory (the most recent 500) until it restarts; send the whole conversation in input instead`,
        ),
      );
    }
    decoded = { ...decoded, context: { ...decoded.context, messages: continueConversation(earlier, decoded.context.messages) } };
  }
  if (store && decoded.keep) {
    const finish = deps.finish;
    deps = {
      ...deps,
      finish(outcome) {
        // Kept before the reply's last bytes reach the client, so its next request finds it.
        if (outcome.status === 200 && outcome.message && outcome.error === undefined) store.put(responseId(deps.requestId), [...decoded.context.messages, outcome.message]);
        finish(outcome);
      },
    };
  }

  const found = await deps.upstream.credentials(model.provider);
  if (!found.ok) return fail(failure("authentication", `the gateway has no credential for ${model.provider}: ${found.error}`));
  const first = decoded.context.messages.find((m) => m.role === "user");
  const conversation = decoded.conversationKey ?? conversationHash([model.provider, decoded.context.systemPrompt, first?.content]);

  const abort = new AbortController();
  req.signal.addEventListener("abort", () => abort.abort(), { once: true });
  const tried = new Set<string>();
  let lastFailure: GatewayFailure | undefined;
  for (;;) {
    const credential = deps.sticky.pick(conversation, found.credentials, tried);
    if (!credential) return fail(lastFailure ?? failure("api_error", `no credential for ${model.provider} is left to try`));
    tried.add(credential.label);
    const attempt = await startAttempt(model, decoded, credential, conversation, abort.signal, deps.timeouts);
    if (attempt.kind === "failed") {
      if (abort.signal.aborted) return fail(failure("invalid_request", "the client closed the connection"), credential.label);
      lastFailure = attempt.failure;
      // A client that edited or rebuilt the history before signed thinking (compaction, a changed
      // system prompt) cannot know Anthropic's prefix rule, least of all in a foreign format: the
      // turn goes once more, on the same credential, with that thinking's signatures dropped.
      const unsigned = attempt.failure.upstream?.kind === "thinking-signature" ? withoutSignedThinking(decoded.context.messages) : undefined;
      if (unsigned && unsigned.some((m, i) => m !== decoded.context.messages[i])) {
        decoded = { ...decoded, context: { ...decoded.context, messages: unsigned } };
        tried.delete(credential.label);
        continue;
      }
      if (isAccountFailure(attempt.failure)) {
        deps.sticky.block(credential.label, attempt.failure.retryAfterMs);
        const until = attempt.failure.upstream?.resetsAt;
        if (until !== undefined) await deps.upstream.blockStored(credential, model.provider, until);
        if (found.credentials.some((c) => !tried.has(c.label))) continue;
      }
      return fail(attempt.failure, credential.label);
    }

    const context: EncodeContext = { requestId: deps.requestId, modelName: prepared.name, upstream: model, request: decoded, estimatedInput: estimateTokens(decoded.context) };
    if (!decoded.stream) return await whole(codec, context, attempt, deps, credential, fail);
    return streamed(codec, context, attempt, abort, deps, credential);
  }
}

type Accepted = {
  kind: "accepted";
  buffered: AssistantEvent[];
  /** The provider's next event, already asked for when the stream opened before any content. */
  pending?: Promise<IteratorResult<AssistantEvent>>;
  rest: AsyncIterator<AssistantEvent>;
  partial: AssistantMessage;
};
type Attempt = { kind: "failed"; failure: GatewayFailure } | Accepted;

/**
 * How long a streaming request waits for the provider's first content before its stream opens
 * anyway: a model that thinks silently for minutes must not leave the client (and Bun's idle
 * timer) without a byte. Refusals come well within it, so they still become HTTP errors and
 * usage limits still fail over.
 */
const OPEN_AFTER_MS = 3000;
const SILENT = Symbol("silent");

/** Runs the provider call until it shows content (or ends), keeping what it saw for the encoder. */
async function startAttempt(model: Model, decoded: DecodedRequest, credential: Credential, conversation: string, signal: AbortSignal, timeouts: UpstreamTimeouts): Promise<Attempt> {
  const events = stream(model, decoded.context, {
    apiKey: credential.key,
    signal,
    connectTimeoutMs: timeouts.connectMs,
    firstByteTimeoutMs: timeouts.firstByteMs,
    idleTimeoutMs: timeouts.idleMs,
    // The client's SDK retries, honouring the retry-after the gateway relays.
    maxRetries: 0,
    thinking: decoded.thinking,
    maxTokens: decoded.maxTokens,
    temperature: decoded.temperature,
    ...decoded.controls,
    sessionId: conversation,
  })[Symbol.asyncIterator]();
  const buffered: AssistantEvent[] = [];
  const openBy = decoded.stream ? Date.now() + OPEN_AFTER_MS : Number.POSITIVE_INFINITY;
  for (;;) {
    const pending = events.next();
    const start = buffered.find((e) => e.type === "start");
    // core/ai yields `start`, with the message it fills, before the request goes out.
    const next = start ? await raceUntil(pending, openBy) : await pending;
    if (next === SILENT) return { kind: "accepted", buffered, pending, rest: events, partial: start!.partial };
    if (next.done) return { kind: "failed", failure: failure("api_error", `${model.provider}: the reply ended without a result`) };
    const event = next.value;
    if (event.type === "error") {
      if (buffered.some((e) => CONTENT.has(e.type))) {
        buffered.push(event);
        return { kind: "accepted", buffered, rest: events, partial: event.message };
      }
      return { kind: "failed", failure: upstreamFailure(event.message.errorMessage ?? "the provider failed", event.failure) };
    }
    buffered.push(event);
    if (event.type === "done") return { kind: "accepted", buffered, rest: events, partial: event.message };
    if (CONTENT.has(event.type)) return { kind: "accepted", buffered, rest: events, partial: (event as { partial: AssistantMessage }).partial };
  }
}

async function raceUntil<T>(promise: Promise<T>, deadline: number): Promise<T | typeof SILENT> {
  const wait = deadline - Date.now();
  if (!Number.isFinite(wait)) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<typeof SILENT>((resolve) => (timer = setTimeout(() => resolve(SILENT), Math.max(0, wait))));
  try {
    return await Promise.race([promise, silent]);
  } finally {
    clearTimeout(timer);
  }
}

async function* remaining(attempt: Accepted): AsyncGenerator<AssistantEvent> {
  try {
    yield* attempt.buffered;
    if (attempt.pending) {
      const next = await attempt.pending;
      if (next.done) return;
      yield next.value;
    }
    for (;;) {
      const next = await attempt.rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Stopped early (the client left): the provider's response is released, not left half-read.
    await attempt.rest.return?.(undefined);
  }
}

async function whole(
  codec: Codec,
  context: EncodeContext,
  attempt: Accepted,
  deps: CallDeps,
  credential: Credential,
  fail: (f: GatewayFailure, credential?: string) => Response,
): Promise<Response> {
  for await (const event of remaining(attempt)) {
    if (event.type === "error") return fail(upstreamFailure(event.message.errorMessage ?? "the provider failed", event.failure), credential.label);
    if (event.type === "done") {
      deps.finish({ status: 200, model: context.upstream, credential: credential.label, message: event.message });
      return Response.json(codec.message(context, event.message));
    }
  }
  return fail(failure("api_error", "the provider's reply ended without a result"), credential.label);
}

function streamed(
  codec: Codec,
  context: EncodeContext,
  attempt: Accepted,
  abort: AbortController,
  deps: CallDeps,
  credential: Credential,
): Response {
  const encoder = codec.encoder(context);
  const bytes = new TextEncoder();
  let ping: ReturnType<typeof setInterval> | undefined;
  let finished = false;
  const end = (outcome: Omit<Outcome, "model" | "credential">) => {
    if (finished) return;
    finished = true;
    clearInterval(ping);
    deps.finish({ ...outcome, model: context.upstream, credential: credential.label });
  };
  const events = remaining(attempt);
  let opened = false;
  // Pulled, never pushed: the provider is read only as fast as the client takes the frames, so a
  // client that stops reading leaves at most this much queued here (and the socket's own buffers).
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Only while nothing waits in the queue: a ping is for a silent provider, not a slow client.
        ping = setInterval(() => {
          if (!abort.signal.aborted && (controller.desiredSize ?? 0) > 0) controller.enqueue(bytes.encode(encoder.ping()));
        }, PING_MS);
      },
      async pull(controller) {
        const write = (frames: string[]): boolean => {
          if (frames.length === 0 || abort.signal.aborted) return false;
          controller.enqueue(bytes.encode(frames.join("")));
          return true;
        };
        // Frames are taken while the queue has room: one pull per frame would cost a turn of the
        // event loop each (measured: 200 concurrent streams ran 5 times slower).
        const full = () => (controller.desiredSize ?? 0) <= 0;
        if (!opened) {
          opened = true;
          write(encoder.open(attempt.partial));
        }
        try {
          for (;;) {
            const next = await events.next();
            if (next.done) break;
            const event = next.value;
            if (event.type === "done") {
              write(encoder.done(event.message));
              end({ status: 200, message: event.message });
            } else if (event.type === "error") {
              const f = upstreamFailure(event.message.errorMessage ?? "the provider failed", event.failure);
              write(encoder.fail(f, event.message));
              end({ status: 200, message: event.message, error: f.message });
            } else if (write(encoder.event(event)) && full()) return;
          }
        } catch (error) {
          write(encoder.fail(failure("api_error", `the gateway failed mid-stream: ${(error as Error).message}`), attempt.partial));
          end({ status: 200, error: String(error) });
        }
        end({ status: 200, error: "the stream ended early" });
        if (!abort.signal.aborted) controller.close();
      },
      cancel() {
        // The client went away: stop the provider's generation too.
        abort.abort();
        void events.return(undefined);
        end({ status: 499, message: attempt.partial, error: "the client closed the connection" });
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: STREAM_BUFFER_BYTES }),
  );
  return new Response(body, { headers: SSE_HEADERS });
}
