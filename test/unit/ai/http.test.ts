// SSE framing, retry timing and provider error bodies, without a network.
import { describe, expect, test } from "bun:test";
import { httpError, isRetryableStatus } from "../../../core/ai/http/errors.ts";
import { MAX_RETRY_DELAY_MS, backoffDelayMs, retryAfterMs, retryBaseDelayMs, sleep } from "../../../core/ai/http/retry.ts";
import { type SseEvent, parseSse } from "../../../core/http/sse.ts";

function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of parseSse(bodyOf(chunks))) out.push(event);
  return out;
}

describe("SSE parser", () => {
  test("event names, ids, multi-line data, comments and the optional space", async () => {
    const events = await collect([": keep-alive\n", "event: message_start\nid: 7\ndata: {\"a\":1}\n\n", "data:first\ndata: second\n\n"]);
    expect(events).toEqual([
      { event: "message_start", data: '{"a":1}', id: "7" },
      // The last id persists, as the spec says.
      { event: "message", data: "first\nsecond", id: "7" },
    ]);
  });

  test("CRLF and CR line ends, including a CRLF split across chunks", async () => {
    const events = await collect(["data: one\r", "\n\r", "\ndata: two\r\rdata: three\r\n\r\n"]);
    expect(events.map((e) => e.data)).toEqual(["one", "two", "three"]);
  });

  test("a multi-byte character split across chunks", async () => {
    const bytes = new TextEncoder().encode("data: héllo ✓\n\n");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.slice(i, i + 3));
        controller.close();
      },
    });
    const events: SseEvent[] = [];
    for await (const event of parseSse(body)) events.push(event);
    expect(events.map((e) => e.data)).toEqual(["héllo ✓"]);
  });

  test("events without data are skipped and an unterminated last event is dropped", async () => {
    const events = await collect(["event: ping\n\n", "data: whole\n\n", "event: message_stop\ndata: {}"]);
    expect(events.map((e) => e.data)).toEqual(["whole"]);
  });

  test("stopping early cancels the body", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("data: x\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _ of parseSse(body)) break;
    expect(cancelled).toBe(true);
  });
});

describe("retry timing", () => {
  test("retry-after-ms wins, then retry-after in seconds or as an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "Tue, 31 Dec 2024 23:59:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  test("exponential backoff with jitter, capped", () => {
    expect(backoffDelayMs(1, 1000, () => 0)).toBe(500);
    expect(backoffDelayMs(1, 1000, () => 1)).toBe(1000);
    expect(backoffDelayMs(3, 1000, () => 0.5)).toBe(3000);
    expect(backoffDelayMs(20, 1000, () => 1)).toBe(MAX_RETRY_DELAY_MS);
  });

  test("OMP_RETRY_BASE_MS overrides the base delay", () => {
    expect(retryBaseDelayMs({})).toBe(1000);
    expect(retryBaseDelayMs({ OMP_RETRY_BASE_MS: "5" })).toBe(5);
    expect(retryBaseDelayMs({ OMP_RETRY_BASE_MS: "nonsense" })).toBe(1000);
  });

  test("sleep ends at once on abort", async () => {
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 20);
    expect(await sleep(10_000, controller.signal)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
    expect(await sleep(1)).toBe(true);
  });
});

describe("provider error bodies", () => {
  test("each provider's JSON shape becomes one clear line", () => {
    const anthropic = JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
    expect(httpError("anthropic", 401, "Unauthorized", anthropic).message).toBe("anthropic 401: invalid x-api-key (authentication_error)");
    const openai = JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
    expect(httpError("openai", 401, "", openai).message).toBe("openai 401: Incorrect API key provided (invalid_api_key)");
    const google = JSON.stringify([{ error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT" } }]);
    expect(httpError("google", 400, "", google).message).toBe("google 400: API key not valid. (INVALID_ARGUMENT)");
    expect(httpError("ollama", 404, "", JSON.stringify({ error: "model 'qwen' not found" })).message).toBe("ollama 404: model 'qwen' not found");
    expect(httpError("vllm", 400, "", JSON.stringify({ detail: "bad" })).message).toBe("vllm 400: bad");
    expect(httpError("proxy", 502, "Bad Gateway", "<html>\n  <b>upstream</b> down</html>").message).toBe("proxy 502: <html> <b>upstream</b> down</html>");
    expect(httpError("proxy", 503, "Service Unavailable", "").message).toBe("proxy 503: Service Unavailable");
  });

  test("what is worth retrying", () => {
    expect([408, 409, 429, 500, 502, 503, 529].every((s) => isRetryableStatus(s))).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some((s) => isRetryableStatus(s))).toBe(false);
    expect(isRetryableStatus(429, "insufficient_quota")).toBe(false);
    expect(isRetryableStatus(400, "overloaded_error")).toBe(true);
    const overloaded = JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect(httpError("anthropic", 529, "", overloaded, 1500)).toMatchObject({ retryable: true, retryAfterMs: 1500 });
  });
});
