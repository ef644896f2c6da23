import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "../fs/file-lock.ts";
import { TEMP_PREFIX } from "./extract.ts";
import { dirNames } from "../fs/dir-names.ts";

/** A version dir this young may belong to an omp that is extracting into it right now. */
export const PRUNE_GRACE_MS = 10 * 60 * 1000;

const VERSION_DIR = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/;

function mtimeOf(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Removes natives of builds no longer in use below `root`: every build's dir (`<version>+<hash>`,
 * cache-key.ts, or an older omp's `<version>`) except `current`'s and the most recently used other
 * one (kept so a rollback starts without extracting), once it has been idle for the grace period.
 * `current` is a dir name, or a version whose every build is kept (after an update, before the new
 * binary has named its dir). Also clears temp dirs that killed extractions left in `current`.
 * Best effort: returns the paths removed and never throws.
 */
export function pruneNatives(root: string, current: string, now: number = Date.now()): string[] {
  const removed: string[] = [];
  const others = dirNames(root)
    .filter((name) => name !== current && !name.startsWith(`${current}+`) && VERSION_DIR.test(name))
    .map((name) => ({ path: join(root, name), mtime: mtimeOf(join(root, name)) }))
    .filter((dir): dir is { path: string; mtime: number } => dir.mtime !== null)
    .sort((a, b) => b.mtime - a.mtime);
  const stale = others.slice(1).filter((dir) => now - dir.mtime > PRUNE_GRACE_MS);

  const staleTemps = staleTempDirs(join(root, current), now);

  for (const path of [...stale.map((dir) => dir.path), ...staleTemps]) {
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {}
  }
  return removed;
}

/**
 * Temp dirs of extractions that can no longer finish in `versionDir`: their process is gone, or
 * (names without a pid, from older omps) they have been idle past the grace period.
 */
export function staleTempDirs(versionDir: string, now: number = Date.now()): string[] {
  return dirNames(versionDir).filter((name) => name.startsWith(TEMP_PREFIX))
    .filter((name) => {
      const pid = /^(\d+)-/.exec(name.slice(TEMP_PREFIX.length))?.[1];
      if (pid !== undefined) return Number(pid) !== process.pid && !processAlive(Number(pid));
      const mtime = mtimeOf(join(versionDir, name));
      return mtime !== null && now - mtime > PRUNE_GRACE_MS;
    })
    .map((name) => join(versionDir, name));
}
