import { type ProviderFailure, classifyFailure } from "../failure.ts";

/**
 * A failed provider call, worded for the person at the terminal, with its `failure`: the kind
 * decided here, once (core/ai/failure.ts), that every consumer switches on. `retryable` says
 * whether the same request may succeed later (rate limits, overload, server errors, dropped
 * connections); a decoder that knows better for its in-stream errors says so.
 */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  readonly failure: ProviderFailure;
  /** Fewer retries than the caller allows, for failures that waiting rarely fixes. */
  readonly retryLimit: number | undefined;
  /** The provider said it is overloaded mid-stream: worth a retry even after text was shown. */
  readonly overloaded: boolean;

  constructor(
    message: string,
    options: {
      retryable?: boolean;
      retryAfterMs?: number;
      retryLimit?: number;
      overloaded?: boolean;
      status?: number;
      /** The provider's own error code. */
      kind?: string;
      /** For a usage limit: when it resets. */
      resetsAt?: number;
      zeroQuota?: boolean;
      /** No HTTP answer at all. */
      network?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const failure = classifyFailure({ status: options.status, code: options.kind, text: message, retryAfterMs: options.retryAfterMs, resetsAt: options.resetsAt, zeroQuota: options.zeroQuota, network: options.network });
    this.failure = { ...failure, retryable: options.retryable ?? failure.retryable };
    this.overloaded = options.overloaded ?? false;
    this.retryLimit = options.retryLimit;
  }

  get retryable(): boolean {
    return this.failure.retryable;
  }

  get retryAfterMs(): number | undefined {
    return this.failure.retryAfterMs;
  }
}

/** What a provider said about an error, from whichever JSON shape it uses. */
export interface ProviderErrorInfo {
  message: string;
  /** `authentication_error`, `invalid_api_key`, `INVALID_ARGUMENT`, ... */
  kind?: string;
  /** A subscription's usage limit: when it resets (epoch ms), from `resets_at` / `resets_in_seconds` or Code Assist's "quota will reset after 1h2m3s". */
  resetsAt?: number;
}

const MAX_TEXT = 300;

/**
 * Reads the error shapes seen in the wild: Anthropic `{type:"error", error:{type, message}}`,
 * OpenAI `{error:{message, type, code}}`, Gemini `{error:{code, message, status}}` (sometimes
 * wrapped in an array), Ollama `{error:"..."}`, vLLM `{message, type}`, FastAPI `{detail}`.
 */
export function readErrorInfo(payload: unknown): ProviderErrorInfo | undefined {
  if (Array.isArray(payload)) return payload.length > 0 ? readErrorInfo(payload[0]) : undefined;
  if (payload === null || typeof payload !== "object") return undefined;
  const obj = payload as Record<string, unknown>;
  const inner = obj.error;
  if (typeof inner === "string" && inner.trim() !== "") return { message: inner };
  if (inner !== null && typeof inner === "object") {
    const info = readErrorFields(inner as Record<string, unknown>);
    if (info) return info;
  }
  const own = readErrorFields(obj);
  if (own) return own;
  if (typeof obj.detail === "string") return { message: obj.detail };
  if (Array.isArray(obj.detail)) return { message: JSON.stringify(obj.detail).slice(0, MAX_TEXT) };
  return undefined;
}

function readErrorFields(obj: Record<string, unknown>): ProviderErrorInfo | undefined {
  if (typeof obj.message !== "string" || obj.message.trim() === "") return undefined;
  const kind = [obj.code, obj.type, obj.status].find((v): v is string => typeof v === "string" && v !== "error");
  const info: ProviderErrorInfo = kind === undefined ? { message: obj.message.trim() } : { message: obj.message.trim(), kind };
  // Codex's usage_limit_reached says when the window resets.
  if (typeof obj.resets_at === "number") info.resetsAt = obj.resets_at < 1e12 ? obj.resets_at * 1000 : obj.resets_at;
  else if (typeof obj.resets_in_seconds === "number") info.resetsAt = Date.now() + obj.resets_in_seconds * 1000;
  else {
    const at = quotaResetAt(info.message);
    if (at !== undefined) info.resetsAt = at;
  }
  return info;
}

/** Code Assist's exhausted plan: "... Your quota will reset after 18h31m10s." */
function quotaResetAt(message: string): number | undefined {
  const match = /quota will reset after (?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?/i.exec(message);
  if (!match || match[0].endsWith("after ")) return undefined;
  const [hours, minutes, seconds] = [match[1], match[2], match[3]].map((part) => Number(part ?? 0));
  return Date.now() + ((hours! * 60 + minutes!) * 60 + seconds!) * 1000;
}

/** `anthropic 401: invalid x-api-key (authentication_error)`. */
export function formatProviderError(provider: string, status: number | undefined, info: ProviderErrorInfo): string {
  const head = status === undefined ? provider : `${provider} ${status}`;
  const kind = info.kind !== undefined && !info.message.includes(info.kind) ? ` (${info.kind})` : "";
  return `${head}: ${info.message}${kind}`;
}

/** Turns an HTTP error response body into a ProviderError, classifying it for retries. */
export function httpError(provider: string, status: number, statusText: string, bodyText: string, retryAfter?: number): ProviderError {
  let info: ProviderErrorInfo | undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(bodyText);
    info = readErrorInfo(payload);
  } catch {
    info = undefined;
  }
  if (!info) {
    const text = bodyText.trim().replace(/\s+/g, " ");
    info = { message: text === "" ? statusText || "request failed" : text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text };
  }
  const message = formatProviderError(provider, status, info);
  if (info.resetsAt !== undefined && status === 429) {
    // Waiting minutes or hours for a subscription window is no retry: another credential may take over.
    return new ProviderError(`${message} (usage limit; resets at ${new Date(info.resetsAt).toISOString()})`, { status, kind: info.kind, resetsAt: info.resetsAt });
  }
  if (status === 429 && zeroQuota(payload, info.message)) {
    // Waiting never helps: the key's tier has no quota at all for this model (Gemini's free tier
    // for its pro models says `limit: 0`).
    return new ProviderError(`${message} (this model has no quota on the key's current tier: it needs a paid tier, e.g. billing enabled on the key's project, or pick another model with --model)`, {
      status,
      kind: info.kind,
      zeroQuota: true,
    });
  }
  const wait = retryAfter ?? retryInfoDelayMs(payload);
  return new ProviderError(message, { retryable: isRetryableStatus(status, info.kind), retryAfterMs: wait, status, kind: info.kind });
}

/** The google.rpc error details of a Gemini error body (`error.details[]`), possibly wrapped in an array. */
function errorDetails(payload: unknown): Record<string, unknown>[] {
  const body = Array.isArray(payload) ? payload[0] : payload;
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  return Array.isArray(details) ? details.filter((d): d is Record<string, unknown> => d !== null && typeof d === "object") : [];
}

/** Gemini's `google.rpc.RetryInfo.retryDelay` ("13s", "0.5s"), the wait its 429s ask for in the body instead of a header. */
export function retryInfoDelayMs(payload: unknown): number | undefined {
  for (const detail of errorDetails(payload)) {
    if (!String(detail["@type"] ?? "").endsWith("google.rpc.RetryInfo")) continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(String(detail.retryDelay ?? "").trim());
    if (match) return Math.ceil(Number(match[1]) * 1000);
  }
  return undefined;
}

/** A quota failure whose limit is zero: Gemini's QuotaFailure violations, or `limit: 0` in its message. */
function zeroQuota(payload: unknown, message: string): boolean {
  if (/\blimit:\s*0\b/.test(message)) return true;
  return errorDetails(payload).some(
    (detail) =>
      String(detail["@type"] ?? "").endsWith("google.rpc.QuotaFailure") &&
      Array.isArray(detail.violations) &&
      detail.violations.some((v: { quotaValue?: unknown }) => v?.quotaValue === "0" || v?.quotaValue === 0),
  );
}

/** Rate limits, timeouts, lock conflicts, overload and server errors; a spent quota never clears by waiting. */
export function isRetryableStatus(status: number, kind?: string): boolean {
  if (kind === "insufficient_quota") return false;
  if (kind === "overloaded_error") return true;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
