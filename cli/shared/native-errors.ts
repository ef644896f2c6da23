import { NativesLoadError } from "../../core/natives/load.ts";
import { nativeErrorCode } from "../../core/natives/index.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";

/** Prints a search failure for `omp <command>` and returns the exit status ripgrep would use. */
export function reportSearchError(command: string, error: unknown): number {
  if (error instanceof NativesLoadError) {
    process.stderr.write(`omp ${command}: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (nativeErrorCode(error)) {
    process.stderr.write(`omp ${command}: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  throw error;
}
