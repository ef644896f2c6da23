import { closeSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";

/**
 * Replaces `path` with `text` so that readers (and a crash) see either the old file or the new
 * one, never a half-written one: write a temp file beside it, fsync, rename over. A symlinked file
 * (a dotfiles repo) is replaced at its target so the link survives; an existing file keeps its mode.
 */
export function writeFileAtomic(path: string, text: string, mode = 0o600): void {
  let target = path;
  let targetMode = mode;
  try {
    target = realpathSync(path);
    targetMode = statSync(target).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw writeError(path, error);
  }
  const temp = `${target}.${process.pid}.${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex")}.tmp`;
  try {
    const fd = openSync(temp, "wx", targetMode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw writeError(path, error);
  }
}

function writeError(path: string, error: unknown): OmpError {
  return new OmpError(`cannot write ${displayPath(path)}: ${describeError(error)}`, { cause: error });
}
