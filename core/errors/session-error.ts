import type { ErrorKind } from "./error-kind.ts";
import { EXIT_USAGE } from "./exit-codes.ts";
import { OmpError } from "./omp-error.ts";

/**
 * A failure of something a client asked of a session, classified where it arises: clients get
 * its kind and whether trying again may help (error-kind.ts), not just the words.
 */
export class SessionError extends OmpError {
  readonly kind: ErrorKind;
  readonly retryable: boolean;

  constructor(kind: ErrorKind, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, { exitCode: kind === "invalid-command" || kind === "invalid-input" ? EXIT_USAGE : undefined, cause: options.cause });
    this.kind = kind;
    this.retryable = options.retryable ?? kind === "busy";
  }
}
