import { EXIT_FAILURE } from "./exit-codes.ts";

/**
 * An error meant for the person at the terminal: `message` says what went wrong and how to fix
 * it; `cause` keeps the underlying error for diagnostics. The CLI layer maps `exitCode` to the
 * process exit status.
 */
export class OmpError extends Error {
  override readonly name = "OmpError";
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode ?? EXIT_FAILURE;
  }
}

/** The message of anything thrown, for error chains and diagnostics. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
