// The four adapters against the stand-in over real loopback HTTP: the same behaviours per wire API.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Message } from "../../../core/ai/messages.ts";
import { complete, stream } from "../../../core/ai/index.ts";
import { type Standin, startStandin } from "../../support/standin/index.ts";
import { API_CASES, KEY, type PublicApi, PRICES, context, modelFor, run, textOf, toolCalls, user } from "./harness.ts";

let standin: Standin;
const savedBase = process.env.OMP_RETRY_BASE_MS;

beforeAll(async () => {
  standin = await startStandin();
  process.env.OMP_RETRY_BASE_MS = "2";
});
afterAll(async () => {
  await standin.close();
  if (savedBase === undefined) delete process.env.OMP_RETRY_BASE_MS;
  else process.env.OMP_RETRY_BASE_MS = savedBase;
});
beforeEach(() => {
  standin.requests.length = 0;
});

/** What each API must have sent on the request that continues after two tool calls. */
const CONTINUATION: Record<PublicApi, (body: any, ids: [string, string]) => void> = {
  "anthropic-messages": (body, [a, b]) => {
    expect(body.system).toEqual([{ type: "text", text: "You are a test assistant.", cache_control: { type: "ephemeral" } }]);
    expect(body.tools.map((t: any) => Object.keys(t).sort())).toEqual([
      ["description", "input_schema", "name"],
      ["cache_control", "description", "input_schema", "name"],
    ]);
    expect(body.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(body.messages[1].content.filter((c: any) => c.type === "tool_use").map((c: any) => [c.id, c.name, c.input])).toEqual([
      [a, "read", { path: "src/a.ts" }],
      [b, "grep", { pattern: "TODO", limit: 5 }],
    ]);
    const results = body.messages[2].content;
    expect(results.map((r: any) => [r.type, r.tool_use_id, r.is_error ?? false])).toEqual([
      ["tool_result", a, false],
      ["tool_result", b, true],
    ]);
    expect(results[0].content).toEqual([{ type: "text", text: "export const a = 1;" }]);
    // The cache breakpoint sits on the last block of the last user message.
    expect(results[1].cache_control).toEqual({ type: "ephemeral" });
  },
  "openai-completions": (body, [a, b]) => {
    expect(body.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(body.messages[2].tool_calls).toEqual([
      { id: a, type: "function", function: { name: "read", arguments: JSON.stringify({ path: "src/a.ts" }) } },
      { id: b, type: "function", function: { name: "grep", arguments: JSON.stringify({ pattern: "TODO", limit: 5 }) } },
    ]);
    expect(body.messages.slice(3).map((m: any) => [m.tool_call_id, m.content])).toEqual([
      [a, "export const a = 1;"],
      [b, "grep: bad pattern"],
    ]);
  },
  "openai-responses": (body, [a, b]) => {
    expect(body.instructions).toBe("You are a test assistant.");
    expect(body.input.map((i: any) => i.type ?? i.role)).toEqual(["user", "function_call", "function_call", "function_call_output", "function_call_output"]);
    expect(body.input[1]).toMatchObject({ type: "function_call", call_id: a, name: "read", arguments: JSON.stringify({ path: "src/a.ts" }) });
    expect(body.input[1].id).toStartWith("fc_");
    expect(body.input.slice(3).map((i: any) => [i.call_id, i.output])).toEqual([
      [a, "export const a = 1;"],
      [b, "grep: bad pattern"],
    ]);
  },
  "google-generative-ai": (body) => {
    expect(body.systemInstruction).toEqual({ parts: [{ text: "You are a test assistant." }] });
    expect(body.contents.map((c: any) => c.role)).toEqual(["user", "model", "user"]);
    expect(body.contents[1].parts.map((p: any) => p.functionCall)).toEqual([
      { name: "read", args: { path: "src/a.ts" } },
      { name: "grep", args: { pattern: "TODO", limit: 5 } },
    ]);
    expect(body.contents[2].parts.map((p: any) => p.functionResponse)).toEqual([
      { name: "read", response: { output: "export const a = 1;" } },
      { name: "grep", response: { error: "grep: bad pattern" } },
    ]);
    // Gemini rejects JSON Schema keywords outside its subset.
    expect(JSON.stringify(body.tools)).not.toContain("additionalProperties");
    expect(JSON.stringify(body.tools)).not.toContain("$schema");
  },
};

/** The thinking settings each API must send for `thinking: "medium"`. */
const THINKING: Record<PublicApi, (body: any) => void> = {
  "anthropic-messages": (body) => {
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 10240 });
    expect(body.max_tokens).toBeGreaterThan(10240);
  },
  "openai-completions": (body) => expect(body.reasoning_effort).toBe("medium"),
  "openai-responses": (body) => {
    expect(body.reasoning).toEqual({ effort: "medium", summary: "auto" });
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.store).toBe(false);
  },
  "google-generative-ai": (body) => expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 10240, includeThoughts: true }),
};

const ERROR_401: Record<PublicApi, string> = {
  "anthropic-messages": "anthropic 401: invalid x-api-key (authentication_error)",
  "openai-completions": "openai 401: Incorrect API key provided: sk-stand***in. (invalid_api_key)",
  "openai-responses": "openai 401: Incorrect API key provided: sk-stand***in. (invalid_api_key)",
  "google-generative-ai": "google 401: API key not valid. Please pass a valid API key. (UNAUTHENTICATED)",
};

for (const c of API_CASES) {
  describe(c.api, () => {
    const model = () => modelFor(c, standin.url);

    test("text reply with usage and cost", async () => {
      const usage = { input: 1000, output: 500, cacheRead: 2000, cacheWrite: c.reportsCacheWrite ? 400 : 0 };
      standin.setScript([{ text: "Hello from the stand-in", usage }]);
      const { events, final } = await run(model(), context());

      expect(events[0]!.type).toBe("start");
      expect(events.at(-1)!.type).toBe("done");
      const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toBe("Hello from the stand-in");
      expect(events.map((e) => e.type).filter((t) => t.startsWith("text_") && t !== "text_delta")).toEqual(["text_start", "text_end"]);
      expect(final.content).toEqual([{ type: "text", text: "Hello from the stand-in" }]);
      expect(final.stopReason).toBe("stop");
      expect(final).toMatchObject({ api: c.api, provider: c.provider, model: "test-model" });

      expect(final.usage).toMatchObject({ ...usage, totalTokens: usage.input + usage.output + usage.cacheRead + usage.cacheWrite });
      const cost = (usage.input * PRICES.input + usage.output * PRICES.output + usage.cacheRead * PRICES.cacheRead + usage.cacheWrite * PRICES.cacheWrite) / 1e6;
      expect(final.usage.cost.total).toBeCloseTo(cost, 12);
      expect(final.usage.cost.cacheRead).toBeCloseTo((2000 * PRICES.cacheRead) / 1e6, 12);

      expect(standin.requests).toHaveLength(1);
      const req = standin.requests[0]!;
      expect(req.path).toBe(c.path);
      expect(req.headers[c.keyHeader[0]]).toBe(c.keyHeader[1]);
      if (c.api === "anthropic-messages") expect(req.headers["anthropic-version"]).toBe("2023-06-01");
      if (c.api === "google-generative-ai") expect(req.query).toEqual({ alt: "sse" });
      else expect(req.body.stream).toBe(true);
      if (c.api === "openai-completions") expect(req.body.stream_options).toEqual({ include_usage: true });
    });

    test("reply with thinking", async () => {
      standin.setScript([{ thinking: "The user greets me; greet back.", text: "Hi!" }]);
      const { events, final } = await run(model(), context(), { thinking: "medium" });

      const types = events.map((e) => e.type);
      expect(types.indexOf("thinking_start")).toBeLessThan(types.indexOf("thinking_end"));
      expect(types.indexOf("thinking_end")).toBeLessThan(types.indexOf("text_start"));
      expect(events.filter((e) => e.type === "thinking_delta").length).toBeGreaterThan(1);
      expect(final.content[0]).toMatchObject({ type: "thinking", thinking: "The user greets me; greet back." });
      expect(final.content[1]).toEqual({ type: "text", text: "Hi!" });
      const signature = final.content[0]!.type === "thinking" ? final.content[0]!.signature : undefined;
      if (c.api === "anthropic-messages") expect(signature).toStartWith("sig_standin_");
      if (c.api === "openai-responses") expect(JSON.parse(signature!)).toMatchObject({ type: "reasoning", encrypted_content: expect.stringMatching(/^enc_/) });
      THINKING[c.api](standin.requests[0]!.body);
    });

    test("parallel tool calls with arguments split across deltas", async () => {
      standin.setScript([
        {
          toolCalls: [
            { name: "read", arguments: { path: "src/a.ts" } },
            { name: "grep", arguments: { pattern: "TODO", limit: 5 } },
          ],
        },
      ]);
      const { events, final } = await run(model(), context());

      expect(final.stopReason).toBe("toolUse");
      const calls = toolCalls(final);
      expect(calls.map((t) => [t.name, t.arguments])).toEqual([
        ["read", { path: "src/a.ts" }],
        ["grep", { pattern: "TODO", limit: 5 }],
      ]);
      expect(new Set(calls.map((t) => t.id)).size).toBe(2);
      for (const call of calls) expect(call.id).not.toBe("");
      const ends = events.flatMap((e) => (e.type === "toolcall_end" ? [e.toolCall.name] : []));
      expect(ends.sort()).toEqual(["grep", "read"]);
      for (const index of [0, 1]) {
        const deltas = events.flatMap((e) => (e.type === "toolcall_delta" && e.contentIndex === index ? [e.delta] : []));
        expect(deltas.length).toBeGreaterThanOrEqual(c.streamsArguments ? 2 : 1);
        expect(JSON.parse(deltas.join(""))).toEqual(calls[index]!.arguments);
      }
    });

    test("a conversation continued with tool results", async () => {
      standin.setScript([
        {
          toolCalls: [
            { name: "read", arguments: { path: "src/a.ts" } },
            { name: "grep", arguments: { pattern: "TODO", limit: 5 } },
          ],
        },
        { text: "a.ts exports a = 1." },
      ]);
      const first = await complete(model(), context(), { apiKey: KEY });
      const [a, b] = toolCalls(first);
      const history: Message[] = [
        user("Hello"),
        first,
        { role: "toolResult", toolCallId: a!.id, toolName: "read", content: [{ type: "text", text: "export const a = 1;" }], isError: false, timestamp: Date.now() },
        { role: "toolResult", toolCallId: b!.id, toolName: "grep", content: [{ type: "text", text: "grep: bad pattern" }], isError: true, timestamp: Date.now() },
      ];
      const second = await complete(model(), context(history), { apiKey: KEY });

      expect(textOf(second)).toBe("a.ts exports a = 1.");
      expect(standin.requests).toHaveLength(2);
      CONTINUATION[c.api](standin.requests[1]!.body, [a!.id, b!.id]);
    });

    test("429 with retry-after, then success", async () => {
      standin.setScript([{ status: 429, retryAfter: 1 }, { text: "after the wait" }]);
      const seen: number[] = [];
      const started = performance.now();
      const { events, final } = await run(model(), context(), { onRetry: (info) => seen.push(info.delayMs) });

      expect(performance.now() - started).toBeGreaterThanOrEqual(950);
      const retries = events.filter((e) => e.type === "retry");
      expect(retries).toHaveLength(1);
      expect(retries[0]).toMatchObject({ type: "retry", attempt: 1, delayMs: 1000, reason: expect.stringContaining("429") });
      expect(seen).toEqual([1000]);
      expect(standin.requests).toHaveLength(2);
      expect(textOf(final)).toBe("after the wait");
      expect(final.stopReason).toBe("stop");
    });

    test("overload and a 5xx are retried", async () => {
      standin.setScript([{ overloaded: true }, { status: 500 }, { text: "third time lucky" }]);
      const { events, final } = await run(model(), context());

      const reasons = events.flatMap((e) => (e.type === "retry" ? [e.reason] : []));
      expect(reasons).toHaveLength(2);
      expect(reasons[0]).toContain(c.api === "anthropic-messages" ? "529" : "503");
      expect(reasons[0]!.toLowerCase()).toContain("overloaded");
      expect(reasons[1]).toContain("500");
      expect(standin.requests).toHaveLength(3);
      expect(textOf(final)).toBe("third time lucky");
    });

    test("an in-stream overload error before any output is retried", async () => {
      standin.setScript([{ text: "lost", streamErrorAfterEvents: c.eventsBeforeOutput }, { text: "recovered" }]);
      const { events, final } = await run(model(), context());

      expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
      expect(textOf(final)).toBe("recovered");
      expect(standin.requests).toHaveLength(2);
    });

    for (const cutMode of ["close", "reset"] as const) {
      test(`a stream cut (${cutMode}) before any output is retried`, async () => {
        standin.setScript([{ text: "never seen", cutAfterEvents: c.eventsBeforeOutput, cutMode }, { text: "second attempt" }]);
        const { events, final } = await run(model(), context());

        const retries = events.filter((e) => e.type === "retry");
        expect(retries).toHaveLength(1);
        // A reset before the first byte fails fetch itself, before any response exists.
        expect(retries[0]).toMatchObject({ reason: expect.stringMatching(/cut off|connection to .* failed/) });
        expect(events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("")).toBe("second attempt");
        expect(final.content).toEqual([{ type: "text", text: "second attempt" }]);
        expect(standin.requests).toHaveLength(2);
      });

      test(`a stream cut (${cutMode}) after text, before any tool call, is asked for again: the partial is discarded, the whole reply comes once`, async () => {
        const full = "This reply will be cut off midway";
        standin.setScript([{ text: full, cutAfterEvents: c.eventsThroughFirstText, cutMode }, { text: full }]);
        const { events, final } = await run(model(), context());

        const retries = events.filter((e) => e.type === "retry");
        expect(retries).toHaveLength(1);
        expect(retries[0]).toMatchObject({ discarded: true });
        expect(final.stopReason).toBe("stop");
        expect(textOf(final)).toBe(full);
        expect(standin.requests).toHaveLength(2);
      });
    }

    test("abort mid-stream stops promptly with stopReason aborted", async () => {
      standin.setScript([{ text: "one two three four five six", pauseAfterEvents: c.eventsThroughFirstText, pauseMs: 5000 }]);
      const controller = new AbortController();
      const events: string[] = [];
      let abortedAt = 0;
      let final;
      for await (const event of stream(model(), context(), { apiKey: KEY, signal: controller.signal })) {
        events.push(event.type);
        if (event.type === "text_delta" && abortedAt === 0) {
          abortedAt = performance.now();
          controller.abort();
        }
        if (event.type === "done" || event.type === "error") final = event.message;
      }
      expect(performance.now() - abortedAt).toBeLessThan(350);
      expect(events.at(-1)).toBe("error");
      expect(events.filter((t) => t === "text_delta")).toHaveLength(1);
      expect(final!.stopReason).toBe("aborted");
    });

    test("a 401 error body gives a clear message and is not retried", async () => {
      standin.setScript([{ status: 401 }]);
      const { events, final } = await run(model(), context());

      expect(events.map((e) => e.type)).toEqual(["start", "error"]);
      expect(final.stopReason).toBe("error");
      expect(final.errorMessage).toBe(ERROR_401[c.api]);
      expect(standin.requests).toHaveLength(1);
    });
  });
}
