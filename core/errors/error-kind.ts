import type { z } from "zod";
import { FAILURE_KINDS } from "../ai/failure.ts";
import { ProviderError } from "../ai/http/errors.ts";
import { EXIT_USAGE } from "./exit-codes.ts";
import { OmpError, describeError } from "./omp-error.ts";
import { SessionError } from "./session-error.ts";
import type * as schema from "../protocol/error.ts";

/**
 * What kind of failure a client is told about: a provider call's (core/ai/failure.ts) or the
 * session's own. Decided where the failure arises (a SessionError's kind, a ProviderError's
 * failure), so a client switches on the kind and never parses the message.
 */
export const SESSION_ERROR_KINDS = [
  /** The line is not a command of the protocol: not JSON, an unknown type, a field missing or of the wrong type. */
  "invalid-command",
  /** A well-formed command names something that is not there or not allowed (a model, an entry, a job). */
  "invalid-input",
  /** The session is doing something the command conflicts with (a run, a compaction, a bash command); it may succeed once that ends. */
  "busy",
  /** The work was stopped (abort). */
  "aborted",
  /** The command's work failed for another reason; the message says which. */
  "failed",
] as const;

export const ERROR_KINDS = [...FAILURE_KINDS, ...SESSION_ERROR_KINDS] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** A failure as clients receive it, typed from its schema (core/protocol/error.ts). */
export type ErrorInfo = z.output<typeof schema.ErrorInfo>;

/** The failure `error` already is, as a client receives it; anything unclassified is `failed`. */
export function errorInfo(error: unknown): ErrorInfo {
  const message = describeError(error);
  if (error instanceof ProviderError) return { kind: error.failure.kind, message, retryable: error.failure.retryable };
  if (error instanceof SessionError) return { kind: error.kind, message, retryable: error.retryable };
  if (error instanceof OmpError && error.exitCode === EXIT_USAGE) return { kind: "invalid-input", message, retryable: false };
  return { kind: "failed", message, retryable: false };
}
