import { OmpError } from "../core/errors/omp-error.ts";
import { writeFdQuietly } from "./write.ts";

/**
 * The exit status for an error a command threw: an OmpError is meant for the user, so its message
 * goes to stderr as `omp: <message>`; anything else is a bug and keeps its stack trace.
 */
export function reportCommandError(error: unknown): number {
  if (!(error instanceof OmpError)) throw error;
  writeFdQuietly(2, `omp: ${error.message}\n`);
  return error.exitCode;
}
