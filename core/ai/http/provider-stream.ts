import { AssistantBuilder } from "../assistant-builder.ts";
import type { Model } from "../model.ts";
import type { AssistantEvent, StreamOptions } from "../stream.ts";
import { VERSION } from "../../version.ts";
import { httpError, ProviderError } from "./errors.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_RETRIES, MAX_RETRY_DELAY_MS, backoffDelayMs, retryAfterMs, retryBaseDelayMs, sleep } from "./retry.ts";
import { type SseEvent, parseSse } from "../../http/sse.ts";
import { loadTransport } from "../cloud/transport.ts";
import { getProvider } from "../providers-table.ts";

export interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** JSON.stringify(body)'s bytes, when the adapter put them together from kept parts (wire-json.ts). */
  json?: string;
}

/** Maps one provider's SSE events onto the builder; a fresh one is made for every attempt. */
export interface StreamDecoder {
  /** Returns "end" when nothing more is expected (e.g. `[DONE]`), so reading can stop. */
  handle(event: SseEvent): "continue" | "end";
  /**
   * True once the provider signalled the reply is whole (`message_stop`, `finish_reason`,
   * `response.completed`, a Gemini `finishReason`). A body that ends before that was cut off.
   */
  readonly complete: boolean;
}

export interface ProviderCall {
  request: ProviderRequest;
  decoder(builder: AssistantBuilder): StreamDecoder;
}

/** Headers every adapter sends; the model's and the caller's extra headers win, in that order. */
export function requestHeaders(auth: Record<string, string>, model: Model, options: StreamOptions): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "text/event-stream",
    "user-agent": `omp/${VERSION}`,
    ...auth,
    ...model.headers,
    ...options.headers,
  };
}

/**
 * Runs one streamed provider call with retries. Retries happen while nothing has been shown to
 * the consumer (429, 5xx, overload, dropped, cut or stalled connections), and after text or
 * thinking when the connection dropped, was cut or stalled, or the provider said it was overloaded
 * mid-stream: the consumer gets a `retry` event with `discarded` and the partial is rebuilt from
 * scratch. Once a tool call was emitted a failure
 * ends the stream with an `error` event that keeps the partial message, because the agent may act
 * on the call.
 */
export async function* runProviderStream(model: Model, options: StreamOptions, call: ProviderCall): AsyncGenerator<AssistantEvent> {
  const provider = model.provider;
  const maxRetries = Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES);
  const controller = new AbortController();
  const outer = options.signal;
  const onAbort = () => controller.abort();
  if (outer?.aborted) controller.abort();
  else outer?.addEventListener("abort", onAbort, { once: true });

  const builder = new AssistantBuilder(model);
  yield { type: "start", partial: builder.message };

  try {
    const transportId = getProvider(provider)?.transport;
    const transport = transportId ? await loadTransport(transportId) : undefined;
    const direct = { url: call.request.url, headers: call.request.headers, body: call.request.json ?? JSON.stringify(call.request.body) };

    for (let attempt = 0; ; attempt++) {
      let failure: ProviderError;
      let wire = direct;
      if (transport) {
        try {
          wire = await transport.prepare(call.request, model, options);
        } catch (error) {
          const refused = error instanceof ProviderError ? error : new ProviderError(`${provider}: ${error instanceof Error ? error.message : String(error)}`);
          builder.fail("error", refused.message, refused.failure);
          yield { type: "error", message: builder.message, failure: refused.failure };
          return;
        }
      }
      let url: URL;
      try {
        url = new URL(wire.url);
      } catch {
        const invalid = new ProviderError(`${provider}: invalid base URL "${model.baseUrl}"; check the provider's baseUrl setting`);
        builder.fail("error", invalid.message, invalid.failure);
        yield { type: "error", message: builder.message, failure: invalid.failure };
        return;
      }
      try {
        const decoder = call.decoder(builder);
        const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
        const waits: Waits = { connect: options.connectTimeoutMs ?? idleMs, firstByte: options.firstByteTimeoutMs ?? idleMs, idle: idleMs };
        const framing = transport?.events ?? parseSse;
        for await (const events of attemptOnce(provider, url, wire.headers, wire.body, framing, decoder, builder, controller.signal, waits, options.onRequest, options.onResponse)) {
          for (const event of events) yield event;
        }
        const message = builder.message;
        yield message.stopReason === "error" || message.stopReason === "aborted" ? { type: "error", message } : { type: "done", message };
        return;
      } catch (error) {
        if (controller.signal.aborted) {
          builder.fail("aborted", "Request was aborted");
          yield { type: "error", message: builder.message };
          return;
        }
        failure = error instanceof ProviderError ? error : new ProviderError(`${provider}: ${error instanceof Error ? error.message : String(error)}`);
      }

      const limit = Math.min(maxRetries, failure.retryLimit ?? maxRetries);
      // Text or thinking was shown, but no tool call the agent could act on: the reply is asked for
      // again from the start (a dropped, cut or stalled stream, or an overload) and the front ends join the repeat to what they showed.
      const resendable = failure.overloaded || failure.failure.kind === "network";
      const discards = builder.hasOutput && resendable && !builder.message.content.some((c) => c.type === "toolCall");
      if ((builder.hasOutput && !discards) || !failure.retryable || attempt >= limit) {
        const exhausted = failure.retryable && (!builder.hasOutput || discards) && limit > 0 ? ` (gave up after ${attempt + 1} attempts)` : "";
        builder.fail("error", failure.message + exhausted, failure.failure);
        yield { type: "error", message: builder.message, failure: failure.failure };
        return;
      }
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > MAX_RETRY_DELAY_MS) {
        builder.fail("error", `${failure.message} (the provider asks to wait ${Math.ceil(failure.retryAfterMs / 1000)} s before retrying)`, failure.failure);
        yield { type: "error", message: builder.message, failure: failure.failure };
        return;
      }
      const info = { attempt: attempt + 1, delayMs: failure.retryAfterMs ?? backoffDelayMs(attempt + 1, retryBaseDelayMs(process.env, options.retryBaseDelayMs)), reason: failure.message };
      options.onRetry?.(info);
      yield { type: "retry", ...info, ...(discards ? { discarded: true } : {}) };
      if (!(await sleep(info.delayMs, controller.signal))) {
        builder.fail("aborted", "Request was aborted");
        yield { type: "error", message: builder.message };
        return;
      }
      builder.reset();
    }
  } finally {
    outer?.removeEventListener("abort", onAbort);
    // Releases the connection when the consumer stopped iterating before the end.
    controller.abort();
  }
}

/** How long each phase of an attempt may stay silent: until the headers, until the first event, between events. */
interface Waits {
  connect: number;
  firstByte: number;
  idle: number;
}

const PHASE_WORDS: Record<keyof Waits, string> = { connect: "before the response", firstByte: "before the first event", idle: "between events" };

/** One HTTP attempt; yields each SSE event's batch of assistant events and throws ProviderError on failure. */
async function* attemptOnce(
  provider: string,
  url: URL,
  headers: Record<string, string>,
  body: string,
  framing: (body: ReadableStream<Uint8Array>) => AsyncGenerator<SseEvent>,
  decoder: StreamDecoder,
  builder: AssistantBuilder,
  outerSignal: AbortSignal,
  waits: Waits,
  onRequest?: () => void,
  onResponse?: (headers: Headers) => void,
): AsyncGenerator<ReturnType<AssistantBuilder["take"]>> {
  // Aborted by the caller, or by the idle watch when the provider goes silent.
  const attempt = new AbortController();
  const signal = attempt.signal;
  const onOuterAbort = () => attempt.abort();
  if (outerSignal.aborted) attempt.abort();
  else outerSignal.addEventListener("abort", onOuterAbort, { once: true });
  let stalled = false;
  let phase: keyof Waits = "connect";
  // Each event moves the deadline; the one timer is set again only when it fires before the
  // deadline or the deadline comes sooner than it, not for every event of the stream.
  let deadline = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let firesAt = Number.POSITIVE_INFINITY;
  const arm = () => {
    clearTimeout(idle);
    firesAt = deadline;
    idle = setTimeout(() => {
      if (performance.now() < deadline) return arm();
      stalled = true;
      attempt.abort();
    }, Math.max(0, deadline - performance.now()));
  };
  const watch = (next: keyof Waits = phase, ms = waits[next]) => {
    phase = next;
    deadline = performance.now() + ms;
    if (deadline < firesAt) arm();
  };
  // The first event is due firstByte after the request, headers or not: a provider that holds its
  // headers back until it has something to say is just as silent, and a shorter first-byte wait
  // than the connect wait must hold (a gateway's --first-byte-timeout 3 answers 504 in 3 s, not 30).
  const sentAt = performance.now();
  const firstByteFirst = waits.firstByte < waits.connect;
  const stalledError = () =>
    new ProviderError(`${provider}: no data from ${url.origin} (${PHASE_WORDS[phase]}) for ${formatSeconds(waits[phase])}; the connection stalled`, {
      retryable: true,
      network: true,
      kind: "timeout",
    });
  if (firstByteFirst) watch("firstByte");
  else watch();
  try {
    let response: Response;
    try {
      // Bun's fetch applies HTTPS_PROXY / HTTP_PROXY / NO_PROXY itself (test/unit/ai/proxy.test.ts
      // pins that down); note it proxies loopback too unless NO_PROXY lists it.
      const sent = fetch(url, { method: "POST", headers, body, signal });
      onRequest?.();
      response = await sent;
      onResponse?.(response.headers);
      watch("firstByte", Math.max(0, waits.firstByte - (performance.now() - sentAt)));
    } catch (error) {
      if (stalled && !outerSignal.aborted) throw stalledError();
      const unreachable = unreachableHost(provider, url, error);
      if (unreachable) throw unreachable;
      if (connectionRefused(error)) {
        // Nothing listens there: usually a local server that is not running or a wrong base URL.
        // A few quick retries cover a server that is just starting; minutes of backoff would not help.
        throw new ProviderError(
          `${provider}: nothing is listening at ${url.origin} (${errorText(error)}); is the server running and the base URL right?`,
          { retryable: true, network: true, retryLimit: REFUSED_RETRIES, cause: error },
        );
      }
      throw new ProviderError(`${provider}: the connection to ${url.origin} failed (${errorText(error)})`, { retryable: true, network: true, cause: error });
    }
    if (!response.ok) {
      let text = "";
      try {
        text = await response.text();
      } catch (error) {
        if (signal.aborted) throw error;
      }
      throw httpError(provider, response.status, response.statusText, text, retryAfterMs(response.headers));
    }
    if (!response.body) throw new ProviderError(`${provider}: the response had no body`, { retryable: true, network: true });

    const events = framing(response.body);
    try {
      while (true) {
        let next: IteratorResult<SseEvent>;
        try {
          next = await events.next();
        } catch (error) {
          if (signal.aborted) throw error;
          throw new ProviderError(`${provider}: the response stream was cut off (${errorText(error)})`, { retryable: true, network: true, cause: error });
        }
        if (next.done) break;
        watch("idle");
        let action: "continue" | "end";
        try {
          action = decoder.handle(next.value);
        } catch (error) {
          if (error instanceof ProviderError) throw error;
          throw new ProviderError(`${provider}: could not read the response (${errorText(error)})`, { cause: error });
        }
        const batch = builder.take();
        if (batch.length > 0) yield batch;
        if (action === "end") break;
      }
    } finally {
      await events.return(undefined);
    }
    if (!decoder.complete) {
      if (stalled) throw stalledError();
      throw new ProviderError(`${provider}: the response stream was cut off before the reply was complete (the connection closed early)`, { retryable: true, network: true });
    }
  } catch (error) {
    if (stalled && !outerSignal.aborted) throw stalledError();
    throw error;
  } finally {
    clearTimeout(idle);
    outerSignal.removeEventListener("abort", onOuterAbort);
    // However the attempt ended (done, failed, or its consumer stopped pulling), its response must
    // not go on downloading: a stopped answer would keep the provider generating, and billing.
    attempt.abort();
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Retries of a refused connection, whatever the retry setting says. */
const REFUSED_RETRIES = 2;

/** getaddrinfo's answers for a name that does not exist (EAI_AGAIN, a DNS server not answering, is told apart). */
const UNKNOWN_HOST = new Set(["ENOTFOUND", "EAI_NONAME", "EAI_NODATA", "EAI_FAIL"]);
/** Certificate and handshake failures: the same request fails the same way every time. */
const TLS_FAILURE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME_MISMATCH|ALTNAME|EPROTO/;

/**
 * A host that cannot be found, or a TLS connection that cannot be made: retrying cannot help, so
 * the request fails at once with the cause and the fix (before: minutes of backoff, then the cause
 * cut to one line). Undefined for other failures.
 */
function unreachableHost(provider: string, url: URL, error: unknown): ProviderError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  if (UNKNOWN_HOST.has(code)) {
    return new ProviderError(
      `${provider}: the host ${url.hostname} cannot be found (${errorText(error)}). Check the provider's base URL (${url.origin}) for a typo, and that this machine's DNS or proxy (HTTPS_PROXY) can resolve it.`,
      { retryable: false, network: true, cause: error },
    );
  }
  if (code === "EAI_AGAIN") {
    // The DNS server did not answer: possibly passing, so two quick retries, not minutes of them.
    return new ProviderError(
      `${provider}: the host ${url.hostname} cannot be resolved now (${errorText(error)}): this machine's DNS server did not answer. Check the network connection and DNS (or the proxy, HTTPS_PROXY); the base URL is ${url.origin}.`,
      { retryable: true, network: true, retryLimit: REFUSED_RETRIES, cause: error },
    );
  }
  if (TLS_FAILURE.test(code)) {
    const fix =
      code === "EPROTO"
        ? `the server at ${url.host} may not speak HTTPS on that port (use http:// in the base URL if it is a plain HTTP server)`
        : `if the server uses a self-signed certificate or a private CA, point NODE_EXTRA_CA_CERTS at the CA's PEM file; if a proxy intercepts HTTPS, at the proxy's CA`;
    return new ProviderError(`${provider}: the TLS connection to ${url.origin} failed (${errorText(error)}): ${fix}.`, { retryable: false, network: true, cause: error });
  }
  return undefined;
}

function connectionRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ECONNREFUSED" || code === "ConnectionRefused";
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  // Bun's messages append a hint about `verbose: true` that means nothing to a user.
  const message = error.message.replace(/\s*For more information, pass `verbose: true`.*$/s, "");
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}

/** The JSON payload of an SSE event; a malformed one is the provider's bug, not worth retrying. */
export function eventJson(provider: string, event: SseEvent): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(event.data);
  } catch {
    throw new ProviderError(`${provider}: the response stream carried malformed JSON: ${event.data.slice(0, 200)}`);
  }
  if (value === null || typeof value !== "object") throw new ProviderError(`${provider}: unexpected stream data: ${event.data.slice(0, 200)}`);
  return value as Record<string, unknown>;
}
