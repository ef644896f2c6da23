import type { ProviderFailure } from "../ai/stream.ts";

/** Failure kinds every client format has a name and status for. */
export type FailureKind =
  | "invalid_request"
  | "authentication"
  | "permission"
  | "not_found"
  | "too_large"
  | "unsupported_media"
  | "rate_limit"
  | "overloaded"
  | "api_error"
  | "timeout";

export interface GatewayFailure {
  kind: FailureKind;
  message: string;
  /** The wait the provider asked for, relayed as `retry-after` / `retry-after-ms`. */
  retryAfterMs?: number;
  /** False where the same request cannot succeed later (`x-should-retry: false`). */
  retryable: boolean;
  /** The provider's failure behind it, by kind: what decides a retry without signed thinking or a blocked credential. */
  upstream?: ProviderFailure;
}

export function failure(kind: FailureKind, message: string, retryAfterMs?: number): GatewayFailure {
  const retryable = kind === "rate_limit" || kind === "overloaded" || kind === "api_error" || kind === "timeout";
  return retryAfterMs === undefined ? { kind, message, retryable } : { kind, message, retryAfterMs, retryable };
}

const BY_STATUS: Record<number, FailureKind> = {
  400: "invalid_request",
  401: "authentication",
  403: "permission",
  404: "not_found",
  408: "timeout",
  413: "too_large",
  422: "invalid_request",
  429: "rate_limit",
  503: "overloaded",
  504: "timeout",
  529: "overloaded",
};

/** What a provider's refusal means for the client, whatever format either side speaks. */
export function upstreamFailure(message: string, info: ProviderFailure | undefined): GatewayFailure {
  const kind: FailureKind =
    info?.kind === "overloaded"
      ? "overloaded"
      : info?.kind === "quota" || info?.kind === "usage-limit"
        ? "rate_limit"
        : info?.code === "timeout"
          ? "timeout"
          : info?.status !== undefined
          ? (BY_STATUS[info.status] ?? (info.status >= 500 ? "api_error" : "invalid_request"))
          : "api_error";
  const out = failure(kind, message, info?.retryAfterMs);
  // A spent quota does not come back by retrying the same credential.
  if (info?.code === "insufficient_quota") out.retryable = false;
  if (info) out.upstream = info;
  return out;
}

/**
 * Answers that another account may not get: a usage limit or a rejected credential. Only these
 * move a conversation to another credential, and only before anything reached the client.
 */
export function isAccountFailure(f: GatewayFailure): boolean {
  return f.kind === "rate_limit" || f.kind === "authentication" || f.kind === "permission";
}

/** `retry-after`, `retry-after-ms` and `x-should-retry`, which both official SDKs honour. */
export function retryHeaders(f: GatewayFailure): Record<string, string> {
  const headers: Record<string, string> = {};
  if (f.retryAfterMs !== undefined) {
    headers["retry-after"] = String(Math.max(1, Math.ceil(f.retryAfterMs / 1000)));
    headers["retry-after-ms"] = String(Math.round(f.retryAfterMs));
  } else if (f.kind === "rate_limit" || f.kind === "overloaded") headers["retry-after"] = "1";
  if (!f.retryable) headers["x-should-retry"] = "false";
  return headers;
}
