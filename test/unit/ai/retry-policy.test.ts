// The retry loop's edges, through one adapter: the loop is shared, so one wire format suffices.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { stream } from "../../../core/ai/index.ts";
import { type Standin, startStandin } from "../../support/standin/index.ts";
import { API_CASES, KEY, context, modelFor, run, textOf } from "./harness.ts";

let standin: Standin;
const saved = process.env.OMP_RETRY_BASE_MS;
const anthropic = API_CASES[0]!;

beforeAll(async () => {
  standin = await startStandin();
});
afterAll(async () => {
  await standin.close();
  if (saved === undefined) delete process.env.OMP_RETRY_BASE_MS;
  else process.env.OMP_RETRY_BASE_MS = saved;
});
beforeEach(() => {
  standin.requests.length = 0;
  process.env.OMP_RETRY_BASE_MS = "2";
});

describe("retry policy", () => {
  test("gives up after maxRetries and says so", async () => {
    standin.setScript([{ status: 500 }, { status: 502 }, { status: 503 }, { text: "too late" }]);
    const { events, final } = await run(modelFor(anthropic, standin.url), context(), { maxRetries: 2 });

    expect(events.filter((e) => e.type === "retry").map((e) => (e.type === "retry" ? e.attempt : 0))).toEqual([1, 2]);
    expect(standin.requests).toHaveLength(3);
    expect(final.stopReason).toBe("error");
    expect(final.errorMessage).toBe("anthropic 503: error 503 (api_error) (gave up after 3 attempts)");
  });

  test("maxRetries 0 fails on the first error", async () => {
    standin.setScript([{ status: 429 }, { text: "unused" }]);
    const { events, final } = await run(modelFor(anthropic, standin.url), context(), { maxRetries: 0 });
    expect(events.some((e) => e.type === "retry")).toBe(false);
    expect(final.errorMessage).toStartWith("anthropic 429:");
    expect(standin.requests).toHaveLength(1);
  });

  test("backoff grows between attempts when the server gives no retry-after", async () => {
    process.env.OMP_RETRY_BASE_MS = "40";
    standin.setScript([{ status: 500 }, { status: 500 }, { status: 500 }, { text: "ok" }]);
    const { events, final } = await run(modelFor(anthropic, standin.url), context());
    const delays = events.flatMap((e) => (e.type === "retry" ? [e.delayMs] : []));
    // Equal jitter: each wait is between half and all of 40, 80, 160 ms.
    expect(delays[0]).toBeWithin(20, 41);
    expect(delays[1]).toBeWithin(40, 81);
    expect(delays[2]).toBeWithin(80, 161);
    expect(textOf(final)).toBe("ok");
  });

  test("a retry-after beyond the cap fails instead of hanging", async () => {
    standin.setScript([{ status: 429, retryAfter: 3600 }, { text: "unused" }]);
    const started = performance.now();
    const { final } = await run(modelFor(anthropic, standin.url), context());
    expect(performance.now() - started).toBeLessThan(1000);
    expect(final.errorMessage).toContain("asks to wait 3600 s");
    expect(standin.requests).toHaveLength(1);
  });

  test("abort during the retry wait ends at once", async () => {
    standin.setScript([{ status: 429, retryAfter: 30 }, { text: "unused" }]);
    const controller = new AbortController();
    const types: string[] = [];
    let abortedAt = 0;
    let stopReason;
    for await (const event of stream(modelFor(anthropic, standin.url), context(), { apiKey: KEY, signal: controller.signal })) {
      types.push(event.type);
      if (event.type === "retry") {
        abortedAt = performance.now();
        controller.abort();
      }
      if (event.type === "error") stopReason = event.message.stopReason;
    }
    expect(performance.now() - abortedAt).toBeLessThan(500);
    expect(types).toEqual(["start", "retry", "error"]);
    expect(stopReason).toBe("aborted");
    expect(standin.requests).toHaveLength(1);
  });

  test("an already aborted signal sends nothing", async () => {
    standin.setScript([{ text: "unused" }]);
    const { final } = await run(modelFor(anthropic, standin.url), context(), { signal: AbortSignal.abort() });
    expect(final.stopReason).toBe("aborted");
    expect(standin.requests).toHaveLength(0);
  });

  test("a refused connection is retried twice at most, then reported with the address and what to check", async () => {
    const closed = await startStandin();
    const url = closed.url;
    await closed.close();
    const { events, final } = await run(modelFor(anthropic, url), context(), { maxRetries: 10 });
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    expect(final.errorMessage).toStartWith(`anthropic: nothing is listening at ${url}`);
    expect(final.errorMessage).toContain("ECONNREFUSED");
    expect(final.errorMessage).toContain("is the server running and the base URL right? (gave up after 3 attempts)");
    const once = await run(modelFor(anthropic, url), context(), { maxRetries: 1 });
    expect(once.events.filter((e) => e.type === "retry")).toHaveLength(1);
  });

  test("an overload after text but before any tool call is retried from scratch, the partial marked discarded", async () => {
    standin.setScript([{ text: "partial answer here", streamErrorAfterEvents: 4 }, { text: "the whole answer" }]);
    const { events, final } = await run(modelFor(anthropic, standin.url), context());
    const retries = events.filter((e) => e.type === "retry");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ discarded: true });
    expect(final.stopReason).toBe("stop");
    expect(textOf(final)).toBe("the whole answer");
  });

  test("an in-stream error after a tool call, or one that is not an overload, is not retried", async () => {
    standin.setScript([{ text: "t", toolCalls: [{ name: "ls", arguments: {} }], streamErrorAfterEvents: 9 }, { text: "unused" }]);
    const afterCall = await run(modelFor(anthropic, standin.url), context());
    expect(afterCall.events.some((e) => e.type === "retry")).toBe(false);
    expect(afterCall.final.errorMessage).toBe("anthropic: Overloaded (overloaded_error)");
    standin.setScript([{ text: "partial answer here", streamErrorAfterEvents: 4, streamError: { message: "Internal server error", kind: "api_error" } }, { text: "unused" }]);
    const other = await run(modelFor(anthropic, standin.url), context());
    expect(other.events.some((e) => e.type === "retry")).toBe(false);
    expect(other.final.errorMessage).toBe("anthropic: Internal server error (api_error)");
    expect(textOf(other.final).length).toBeGreaterThan(0);
  });

  test("the wait between events starts again with each event: a stream longer in all than the wait completes, a silence past it is a stall", async () => {
    const words = Array.from({ length: 24 }, (_, i) => `w${i}`).join(" ");
    standin.setScript([{ text: words, eventDelayMs: 250 }]);
    const started = performance.now();
    const slow = await run(modelFor(anthropic, standin.url), context(), { maxRetries: 0, idleTimeoutMs: 1000 });
    expect(performance.now() - started).toBeGreaterThan(1000);
    expect(slow.final.stopReason).toBe("stop");
    expect(textOf(slow.final)).toBe(words);
    standin.setScript([{ text: words, pauseAfterEvents: 3, pauseMs: 3000 }]);
    const silent = await run(modelFor(anthropic, standin.url), context(), { maxRetries: 0, idleTimeoutMs: 1000 });
    expect(silent.final.errorMessage).toContain("(between events) for 1 s; the connection stalled");
  });

  test("an invalid base URL is reported without a request", async () => {
    const { final } = await run(modelFor(anthropic, "not a url"), context());
    expect(final.errorMessage).toContain('invalid base URL "not a url"');
  });

  test("a consumer that stops early releases the connection", async () => {
    standin.setScript([{ text: "a b c d e f g h", eventDelayMs: 50 }]);
    const iterator = stream(modelFor(anthropic, standin.url), context(), { apiKey: KEY })[Symbol.asyncIterator]();
    while (true) {
      const next = await iterator.next();
      if (next.done || next.value.type === "text_delta") break;
    }
    await iterator.return?.();
    await Bun.sleep(100);
    expect(standin.requests[0]!.disconnected).toBe(true);
  });
});
