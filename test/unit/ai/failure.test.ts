// Failures classified once, where the provider's answer is read: each provider's wording of the
// same trouble comes out as one kind, and errors that only look similar do not.
import { describe, expect, test } from "bun:test";
import { classifyFailure } from "../../../core/ai/failure.ts";
import { ProviderError, httpError } from "../../../core/ai/http/errors.ts";

const kindOf = (provider: string, status: number, body: unknown) => httpError(provider, status, "", JSON.stringify(body)).failure.kind;

describe("classifyFailure", () => {
  test("context overflow in each provider's words, whatever the status it comes with", () => {
    const cases: [string, number, string][] = [
      ["anthropic", 400, "prompt is too long: 210345 tokens > 200000 maximum"],
      ["openai", 400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens."],
      ["openrouter", 400, "context_length_exceeded"],
      ["vllm", 400, "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens"],
      ["google", 400, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."],
      ["openai", 400, "Your input exceeds the context window of this model. Please adjust your input and try again."],
      ["groq", 400, "Please reduce the length of the messages or completion."],
      ["mistral", 400, "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length"],
      ["llama.cpp", 400, "the request exceeds the available context size, try increasing it"],
      ["lmstudio", 400, "The number of tokens to keep from the initial prompt is greater than the context length"],
      ["ollama", 500, "prompt too long; exceeded max context length by 2048 tokens"],
    ];
    for (const [provider, status, message] of cases) expect([message, kindOf(provider, status, { error: { message } })]).toEqual([message, "context-overflow"]);
    // In a stream there is no status: the words decide.
    expect(classifyFailure({ text: "anthropic: prompt is too long: 300000 tokens > 200000 maximum" }).kind).toBe("context-overflow");
  });

  test("the other kinds, from the answers that carry them", () => {
    expect(kindOf("anthropic", 401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } })).toBe("auth");
    expect(kindOf("anthropic", 429, { type: "error", error: { type: "rate_limit_error", message: "rate limited" } })).toBe("rate-limit");
    expect(kindOf("anthropic", 529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })).toBe("overloaded");
    expect(kindOf("openai", 429, { error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" } })).toBe("quota");
    expect(kindOf("openai", 400, { error: { message: "Invalid 'max_tokens': integer below minimum value", type: "invalid_request_error" } })).toBe("bad-request");
    expect(kindOf("google", 400, { error: { code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT" } })).toBe("bad-request");
    expect(kindOf("anthropic", 400, { type: "error", error: { type: "invalid_request_error", message: "messages.1.content.0: Invalid `signature` in `thinking` block" } })).toBe("thinking-signature");
    expect(kindOf("openai", 502, { error: { message: "bad gateway" } })).toBe("server");
    expect(new ProviderError("anthropic: the response stream was cut off (ECONNRESET)", { retryable: true, network: true }).failure.kind).toBe("network");
  });

  test("a usage limit carries when it resets, and is no retry", () => {
    const resets = Math.floor(Date.now() / 1000) + 3600;
    const error = httpError("openai-codex", 429, "", JSON.stringify({ error: { type: "usage_limit_reached", message: "The usage limit has been reached", resets_at: resets } }));
    expect(error.failure).toMatchObject({ kind: "usage-limit", status: 429, resetsAt: resets * 1000, retryable: false });
    expect(error.message).toContain("usage limit; resets at");
  });

  test("Gemini's zero quota is a quota failure, not a rate limit to wait out", () => {
    const body = { error: { code: 429, message: "Quota exceeded for metric: generate_content_free_tier_requests, limit: 0", status: "RESOURCE_EXHAUSTED" } };
    const error = httpError("google", 429, "", JSON.stringify(body));
    expect(error.failure).toMatchObject({ kind: "quota", retryable: false });
  });
});
