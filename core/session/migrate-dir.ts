import { closeSync, existsSync, openSync, readSync, renameSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "../paths.ts";
import { dirNames } from "../fs/dir-names.ts";

/**
 * Moves a project's sessions out of a dir named the old, ambiguous way (`x/a-b` and `x/a/b` both
 * were `-x-a-b`) into its own. The old dir may hold several projects' sessions, so only files
 * whose header names this project's cwd move (with their artifacts dir); the others wait for
 * their own project, and the old dir goes once it is empty. Safe against another omp migrating
 * at the same time: a rename that loses the race finds the file gone and moves on.
 */
export function migrateLegacySessionDir(legacyDir: string, dir: string, isThisProject: (headerCwd: string) => boolean): void {
  for (const name of dirNames(legacyDir)) {
    if (!name.endsWith(".jsonl")) continue;
    const from = join(legacyDir, name);
    const headerCwd = headerCwdOf(from);
    if (headerCwd === undefined || !isThisProject(headerCwd)) continue;
    try {
      ensurePrivateDir(dir);
      if (existsSync(join(dir, name))) continue;
      renameSync(from, join(dir, name));
      const artifacts = from.slice(0, -".jsonl".length);
      if (existsSync(artifacts)) renameSync(artifacts, join(dir, name.slice(0, -".jsonl".length)));
    } catch {
      // Moved by a concurrent omp, or not movable: the file stays readable where it is.
    }
  }
  try {
    rmdirSync(legacyDir);
  } catch {
    // Not empty: other projects' sessions are still in it.
  }
}

/** The cwd in a session file's header line, without reading the rest of the file. */
function headerCwdOf(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString("utf8");
    const newline = text.indexOf("\n");
    const header = JSON.parse(newline === -1 ? text : text.slice(0, newline));
    return header?.type === "session" && typeof header.cwd === "string" ? header.cwd : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
