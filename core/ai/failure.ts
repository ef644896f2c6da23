/**
 * Why a provider call failed, decided once where the answer is read (core/ai/http/errors.ts and
 * the adapters' stream decoders) and carried on the failed message and its `error` event, so the
 * agent, the credential rotation and the gateway switch on a kind instead of reading the words.
 */
export const FAILURE_KINDS = [
  /** The key or token was refused (401/403, `authentication_error`, `invalid_api_key`). */
  "auth",
  /** A subscription's usage window is spent; `resetsAt` says when it opens again. */
  "usage-limit",
  /** Too many requests for now; waiting helps. */
  "rate-limit",
  /** The key's plan has no quota for this at all; waiting never helps. */
  "quota",
  /** The provider is overloaded (529, 503, `overloaded_error`). */
  "overloaded",
  /** The conversation no longer fits the model's context window. */
  "context-overflow",
  /** Signed thinking failed Anthropic's prefix or signature check. */
  "thinking-signature",
  /** The request itself is wrong (other 4xx). */
  "bad-request",
  /** The provider broke (5xx). */
  "server",
  /** No answer: refused, dropped, stalled or cut-off connections. */
  "network",
  /** The reply was stopped by the provider's filters or an unknown reason. */
  "other",
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface ProviderFailure {
  kind: FailureKind;
  /** The HTTP status, when the failure came as one (absent for in-stream errors and network failures). */
  status?: number;
  /** The provider's own error code (`overloaded_error`, `insufficient_quota`, `INVALID_ARGUMENT`), for relaying it. */
  code?: string;
  /** The wait the provider asked for. */
  retryAfterMs?: number;
  /** For `usage-limit`: when the window resets (epoch ms). */
  resetsAt?: number;
  /** Whether the same request may succeed later. */
  retryable: boolean;
}

/** How each provider says the conversation is too long (and a local server in yet other words). */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  /prompt is too long/i,
  // OpenAI, OpenRouter, vLLM, DeepSeek: "maximum context length is 128000 tokens", code context_length_exceeded
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /longer than the model'?s context length/i,
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)"
  /input token count.*exceeds the maximum/i,
  // OpenAI Responses, xAI, Groq: "exceeds the context window", "reduce the length of the messages"
  /exceeds? the context window/i,
  /reduce the length of the messages/i,
  // Mistral: "Prompt contains 140000 tokens ... too large for model with 131072 maximum context length"
  /too large for model with \d+ maximum context length/i,
  // llama.cpp and LM Studio: "the request exceeds the available context size", "greater than the context length"
  /exceeds the available context size/i,
  /greater than the context length/i,
  // Ollama: "prompt too long; exceeded max context length"
  /exceeded max context length/i,
];

/**
 * Anthropic's 400 for thinking blocks that failed the prefix or signature check ("… thinking
 * block … prefix …", "Invalid signature in thinking block", "`thinking` or `redacted_thinking`
 * blocks … cannot be modified").
 */
function thinkingRejected(text: string): boolean {
  return /thinking/i.test(text) && /prefix|signature|cannot be modified|must remain/i.test(text);
}

const AUTH_CODES = new Set(["authentication_error", "permission_error", "invalid_api_key", "UNAUTHENTICATED", "PERMISSION_DENIED", "invalid_request_error_auth"]);
const OVERLOAD_CODES = new Set(["overloaded_error", "server_is_overloaded", "UNAVAILABLE"]);

export interface FailureFacts {
  status?: number;
  code?: string;
  /** The provider's words (or ours for network failures). */
  text: string;
  retryAfterMs?: number;
  resetsAt?: number;
  /** The answer was refused before the model ran because the key's tier has no quota (Gemini's `limit: 0`). */
  zeroQuota?: boolean;
  /** No HTTP answer at all. */
  network?: boolean;
}

/** The one place that decides a failure's kind. */
export function classifyFailure(facts: FailureFacts): ProviderFailure {
  const { status, code } = facts;
  const base = { ...(status !== undefined && { status }), ...(code !== undefined && { code }), ...(facts.retryAfterMs !== undefined && { retryAfterMs: facts.retryAfterMs }) };
  const make = (kind: FailureKind, retryable: boolean): ProviderFailure => ({ kind, ...base, retryable });
  if (facts.network) return make("network", true);
  if (status === 429 && facts.resetsAt !== undefined) return { ...make("usage-limit", false), resetsAt: facts.resetsAt };
  if (code === "insufficient_quota" || (status === 429 && facts.zeroQuota)) return make("quota", false);
  if ((code !== undefined && OVERLOAD_CODES.has(code)) || status === 529) return make("overloaded", true);
  if (status === 401 || status === 403 || (code !== undefined && AUTH_CODES.has(code))) return make("auth", false);
  if (status === 429) return make("rate-limit", true);
  if ((status === undefined || status < 500 || status === 500) && OVERFLOW_PATTERNS.some((pattern) => pattern.test(facts.text))) return make("context-overflow", false);
  if (status === 400 && thinkingRejected(facts.text)) return make("thinking-signature", false);
  if (status === 503) return make("overloaded", true);
  if (status === 408 || status === 409 || status === 504) return make("server", true);
  if (status !== undefined && status >= 500) return make("server", true);
  if (status !== undefined && status >= 400) return make("bad-request", false);
  if (code === "api_error") return make("server", true);
  return make("other", false);
}
