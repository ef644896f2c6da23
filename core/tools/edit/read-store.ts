import { readFileSync, realpathSync, statSync } from "node:fs";

/**
 * What the model last saw of each file, per session: recorded by read (and by edit and write for
 * what they wrote), checked by the edit engine so that an edit made from a stale read is refused
 * instead of silently undoing someone else's change.
 */

/** Files up to this size are hashed when read; bigger ones are judged by mtime and size alone. */
const HASH_LIMIT = 8 * 1024 * 1024;
/** Content kept to show what changed, per file and in total (oldest dropped first). */
const KEEP_LIMIT = 1024 * 1024;
const KEEP_TOTAL = 32 * 1024 * 1024;

interface Snapshot {
  mtimeMs: number;
  size: number;
  hash?: string;
  /** The text as read, to tell which lines changed since. */
  text?: string;
}

export type Freshness = { stale: false } | { stale: true; before?: string };

function hashOf(bytes: Uint8Array): string {
  // Not for security: telling a changed file from an unchanged one (node:crypto would load at start-up).
  return Bun.hash(bytes).toString(16);
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export class FileReadStore {
  private readonly snapshots = new Map<string, Snapshot>();
  private kept = 0;

  /** After a read of `path`: what it holds now. Never throws; a file that cannot be read is simply not recorded. */
  recordFile(path: string): void {
    try {
      const stat = statSync(path);
      if (!stat.isFile()) return;
      const bytes = stat.size <= HASH_LIMIT ? readFileSync(path) : undefined;
      this.record(path, { mtimeMs: stat.mtimeMs, size: stat.size }, bytes);
    } catch {
      // Unreadable now: nothing to compare against later.
    }
  }

  /** After a read that took the whole file: `bytes` are what the model saw, `stat` the file's as it was read. */
  recordBytes(path: string, stat: { mtimeMs: number }, bytes: Uint8Array): void {
    if (bytes.length > HASH_LIMIT) return this.recordFile(path);
    this.record(path, { mtimeMs: stat.mtimeMs, size: bytes.length }, bytes);
  }

  /** After omp itself wrote `bytes` to `path`. */
  recordWrite(path: string, bytes: Uint8Array): void {
    try {
      const stat = statSync(path);
      this.record(path, { mtimeMs: stat.mtimeMs, size: stat.size }, bytes);
    } catch {
      this.forget(path);
    }
  }

  forget(path: string): void {
    const key = realPath(path);
    const old = this.snapshots.get(key);
    if (old?.text) this.kept -= old.text.length;
    this.snapshots.delete(key);
  }

  /** Whether `path`, now holding `bytes`, changed since the model last saw it (never seen: fresh). */
  check(path: string, bytes: Uint8Array): Freshness {
    const snapshot = this.snapshots.get(realPath(path));
    if (!snapshot) return { stale: false };
    if (snapshot.hash !== undefined) {
      if (snapshot.size === bytes.length && snapshot.hash === hashOf(bytes)) return { stale: false };
      return snapshot.text === undefined ? { stale: true } : { stale: true, before: snapshot.text };
    }
    try {
      const stat = statSync(path);
      if (stat.mtimeMs === snapshot.mtimeMs && stat.size === snapshot.size) return { stale: false };
    } catch {
      // Gone or unreadable: treat as changed.
    }
    return { stale: true };
  }

  private record(path: string, stat: { mtimeMs: number; size: number }, bytes: Uint8Array | undefined): void {
    this.forget(path);
    const snapshot: Snapshot = { ...stat };
    if (bytes) {
      snapshot.hash = hashOf(bytes);
      if (bytes.length <= KEEP_LIMIT) {
        snapshot.text = Buffer.from(bytes).toString("utf8");
        this.kept += snapshot.text.length;
      }
    }
    this.snapshots.set(realPath(path), snapshot);
    for (const [key, old] of this.snapshots) {
      if (this.kept <= KEEP_TOTAL) break;
      if (old.text === undefined || key === realPath(path)) continue;
      this.kept -= old.text.length;
      delete old.text;
    }
  }
}
