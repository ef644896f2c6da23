import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fsyncPath } from "./fsync-path.ts";

/**
 * The one way omp replaces a file it owns or the user asked it to write: configs, state files,
 * caches, tool writes. Every state file goes through here so that none can be torn by a crash or
 * lose its permission bits.
 */

export interface AtomicWriteResult {
  /** The file actually written: the target of a symlink rather than the link. */
  path: string;
  created: boolean;
  /** Size before the write, when the file existed. */
  previousBytes?: number;
  bytes: number;
}

export interface AtomicWriteOptions {
  /**
   * Mode of a file that does not exist yet, exactly (an existing file keeps its own bits). Default
   * 0600; "user" is a file the user asked for (a tool write): 0666 less the umask, as any editor makes.
   */
  mode?: number | "user";
  /** Set `mode` even on an existing file (a cache that must be private whatever an old copy was). */
  forceMode?: boolean;
  /** fsync the data and the directory; off only for caches whose loss is a miss. Default true. */
  durable?: boolean;
}

/** Follows a symlink to what it points at, so writing through a link (a dotfiles repo) keeps the link. */
function writeTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Replaces `path` so that readers see the old or the new content, never a mix, and a crash
 * cannot leave a half-written file: the data goes to a temporary file in the same directory,
 * is synced, and is renamed over the target. Missing parent dirs are created 0700.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): AtomicWriteResult {
  const target = writeTarget(path);
  const dir = dirname(target);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let previous: { mode: number; size: number } | undefined;
  try {
    const stat = statSync(target);
    if (stat.isDirectory()) throw new Error(`${path} is a directory`);
    previous = { mode: stat.mode & 0o7777, size: stat.size };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const durable = options.durable ?? true;
  const exactMode = options.forceMode || previous === undefined ? options.mode : previous.mode;
  const mode = exactMode === "user" ? 0o666 : (exactMode ?? 0o600);
  const temp = join(dir, `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = openSync(temp, "wx", mode);
  try {
    try {
      // openSync's mode is filtered by the umask; the intended bits must survive exactly.
      if (exactMode !== "user") fchmodSync(fd, mode);
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Already renamed or never created; nothing to clean.
    }
    throw error;
  }
  if (durable) syncDirectory(dir);
  return { path: target, created: previous === undefined, previousBytes: previous?.size, bytes: bytes.length };
}

/** Makes a rename inside `dir` durable; some platforms cannot open directories, which is fine to skip. */
export function syncDirectory(dir: string): void {
  try {
    fsyncPath(dir);
  } catch {
    // Durability of the directory entry is best effort.
  }
}
