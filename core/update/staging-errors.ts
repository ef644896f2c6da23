import { writeFileSync } from "node:fs";
import { OmpError, describeError } from "../errors/omp-error.ts";

const FULL = new Set(["ENOSPC", "EDQUOT"]);

/**
 * An error writing an update's files, for the user: a full disk or quota says so and where, with
 * the room the update needs; anything else keeps the system's words. Nothing was changed by then.
 */
export function stagingWriteError(path: string, error: unknown, neededBytes?: number): OmpError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code && FULL.has(code)) {
    const need = neededBytes === undefined ? "" : ` (it needs ${Math.ceil(neededBytes / 1024 ** 2)} MiB there)`;
    return new OmpError(
      `no space left to write ${path}${need}: ${code === "EDQUOT" ? "the disk quota is used up" : "the disk is full"}. Free some space and run omp update again; nothing was changed.`,
      { cause: error },
    );
  }
  return new OmpError(`cannot write ${path}: ${describeError(error)}; nothing was changed`, { cause: error });
}

/** Writes the verified binary to its staging path, private until the swap makes it executable. */
export function writeStaged(staged: string, binary: Uint8Array): void {
  try {
    writeFileSync(staged, binary, { mode: 0o700 });
  } catch (error) {
    throw stagingWriteError(staged, error, binary.length);
  }
}
