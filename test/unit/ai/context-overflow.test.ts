// Context-window overflow as the providers word it, and errors that only look similar.
import { describe, expect, test } from "bun:test";
import { isContextOverflow } from "../../../core/ai/context-overflow.ts";

describe("isContextOverflow", () => {
  test("recognises each provider's wording", () => {
    for (const message of [
      "anthropic 400: prompt is too long: 210345 tokens > 200000 maximum (invalid_request_error)",
      "openai 400: This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. (context_length_exceeded)",
      "openrouter 400: context_length_exceeded",
      "vllm 400: This model's maximum context length is 32768 tokens. However, you requested 40000 tokens",
      "google 400: The input token count (1200000) exceeds the maximum number of tokens allowed (1048576). (INVALID_ARGUMENT)",
      "openai 400: Your input exceeds the context window of this model. Please adjust your input and try again.",
      "groq 400: Please reduce the length of the messages or completion.",
      "mistral 400: Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
      "llama.cpp 400: the request exceeds the available context size, try increasing it",
      "lmstudio 400: The number of tokens to keep from the initial prompt is greater than the context length",
      "ollama 500: prompt too long; exceeded max context length by 2048 tokens",
    ]) {
      expect(isContextOverflow(message)).toBe(true);
    }
  });

  test("other failures are not overflow", () => {
    for (const message of [
      undefined,
      "",
      "anthropic 429: rate limited (rate_limit_error)",
      "openai 400: Invalid 'max_tokens': integer below minimum value (invalid_request_error)",
      "anthropic 401: invalid x-api-key (authentication_error)",
      "anthropic: the response stream was cut off (ECONNRESET)",
      "google 400: Request contains an invalid argument. (INVALID_ARGUMENT)",
    ]) {
      expect(isContextOverflow(message)).toBe(false);
    }
  });
});
