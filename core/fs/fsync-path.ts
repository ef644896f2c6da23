import { closeSync, fsyncSync, openSync } from "node:fs";

/** Writes a file's (or a directory's entries') dirty data out to disk; throws what open or fsync threw. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
