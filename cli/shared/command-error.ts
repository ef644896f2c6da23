import { OmpError } from "../../core/errors/omp-error.ts";
import { writeFdQuietly } from "./write.ts";
import { EXIT_INTERNAL } from "../../core/errors/exit-codes.ts";

/**
 * The exit status for an error a command threw: an OmpError is meant for the user, so its message
 * goes to stderr as `omp: <message>`. Anything else is a bug; the runtime would print it with a
 * screenful of minified bundle source, so it gets one line too, and its stack only on request.
 */
export function reportCommandError(error: unknown): number {
  const { text, exitCode } = describeFailure(error);
  writeFdQuietly(2, text);
  return exitCode;
}

function describeFailure(error: unknown): { text: string; exitCode: number } {
  if (error instanceof OmpError) return { text: `omp: ${error.message}\n`, exitCode: error.exitCode };
  const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const line = described.split("\n")[0]!.slice(0, 500);
  const stack = process.env.OMP_DEBUG && error instanceof Error && error.stack ? `${error.stack}\n` : "";
  return { text: `omp: internal error: ${line} (this is a bug in omp; OMP_DEBUG=1 shows the stack trace)\n${stack}`, exitCode: EXIT_INTERNAL };
}

/**
 * Errors thrown outside any command's promise chain (a timer, a stream callback) or promises
 * nobody awaited end the process the same way: one line on stderr and a non-zero exit, running the
 * exit handlers (the interactive mode restores the terminal in one).
 */
export function installCrashHandlers(): void {
  const crash = (error: unknown) => {
    const { text, exitCode } = describeFailure(error);
    // Written by the last exit handler, after the interactive mode has left the alternate screen.
    process.once("exit", () => writeFdQuietly(2, text));
    process.exit(exitCode);
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
}
