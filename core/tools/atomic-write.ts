import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteResult {
  /** The file actually written: the target of a symlink rather than the link. */
  path: string;
  created: boolean;
  /** Size before the write, when the file existed. */
  previousBytes?: number;
  bytes: number;
}

/** Follows a symlink to what it points at, so writing through a link does not replace the link with a file. */
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
 * is synced, and is renamed over the target. The old file's permission bits are kept.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): AtomicWriteResult {
  const target = writeTarget(path);
  const dir = dirname(target);
  mkdirSync(dir, { recursive: true });
  let previous: { mode: number; size: number } | undefined;
  try {
    const stat = statSync(target);
    if (stat.isDirectory()) throw new Error(`${path} is a directory`);
    previous = { mode: stat.mode & 0o7777, size: stat.size };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const temp = join(dir, `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = openSync(temp, "wx", previous?.mode ?? 0o666);
  try {
    try {
      // openSync's mode is filtered by the umask; the old file's bits must survive exactly.
      if (previous) fchmodSync(fd, previous.mode);
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
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
  syncDirectory(dir);
  return { path: target, created: previous === undefined, previousBytes: previous?.size, bytes: bytes.length };
}

/** Makes the rename itself durable; some platforms cannot open directories, which is fine to skip. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Durability of the directory entry is best effort.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
