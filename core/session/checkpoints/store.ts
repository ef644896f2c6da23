import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, unlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../fs/atomic-write.ts";

/**
 * The checkpoint store's blobs: file contents by sha256, one file each, so a content seen twice
 * (the same file before two edits, a file restored and edited again) is stored once. The store
 * has a byte cap: past it the blobs used least recently go first, so the newest turns stay
 * restorable and the oldest become "not restorable" rather than the disk filling up.
 */

/** The `checkpoints.maxBytes` default, for callers without the settings at hand. */
export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

/** `<session>.checkpoints/`, beside the session file: a session's checkpoints go with it. */
export function checkpointDir(sessionPath: string): string {
  return `${sessionPath.replace(/\.jsonl$/, "")}.checkpoints`;
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The sha256 of what is at `path` now; "absent" when nothing is. */
export function diskState(path: string): string {
  try {
    return sha256(readFileSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "absent";
    throw error;
  }
}

/** Byte totals per store dir, counted once per process and kept up to date by {@link BlobStore.put}. */
const totals = new Map<string, number>();
/**
 * A content this small may travel inside its journal record instead of a blob file of its own:
 * on a disk where making a file costs the better part of a millisecond, a command's recording
 * then makes none. Bounded per store and process, so the journal (never shrunk) stays small.
 */
const INLINE_MAX_BYTES = 4096;
const INLINE_BUDGET_BYTES = 4 * 1024 * 1024;
const inlined = new Map<string, number>();


export class BlobStore {
  private readonly blobs: string;

  constructor(
    dir: string,
    private readonly maxBytes: number,
  ) {
    this.blobs = join(dir, "blobs");
  }

  private pathOf(sha: string): string {
    return join(this.blobs, sha.slice(0, 2), sha);
  }

  /**
   * Stores `bytes`; "unsaved" when it alone is over the cap. Durably by default: the write it
   * protects comes next. A content read after the change it precedes (a command's, from git) has
   * nothing left to protect, and its record is not synced either: it skips the fsync.
   */
  put(bytes: Uint8Array, durable = true): string {
    if (bytes.length > this.maxBytes) return "unsaved";
    const sha = sha256(bytes);
    const path = this.pathOf(sha);
    if (existsSync(path)) {
      // Used again: the cap keeps it over older ones.
      const now = new Date();
      utimesSync(path, now, now);
      return sha;
    }
    mkdirSync(join(this.blobs, sha.slice(0, 2)), { recursive: true, mode: 0o700 });
    writeFileAtomic(path, bytes, { durable });
    const total = this.total() + bytes.length;
    totals.set(this.blobs, total);
    if (total > this.maxBytes) this.shrink(sha);
    return sha;
  }

  /**
   * Whether `bytes` (non-durable: read after the change it precedes) may travel in its record
   * rather than be stored now; counted against this process's budget when it may.
   */
  inline(bytes: Uint8Array): boolean {
    if (bytes.length > INLINE_MAX_BYTES) return false;
    const used = inlined.get(this.blobs) ?? 0;
    if (used + bytes.length > INLINE_BUDGET_BYTES) return false;
    inlined.set(this.blobs, used + bytes.length);
    return true;
  }

  /** Stores a content a record carried (see {@link inline}) unless it is there; one that does not hash to `sha` is left out. */
  adopt(sha: string, bytes: Buffer): void {
    if (!this.has(sha) && sha256(bytes) === sha) this.put(bytes, false);
  }

  get(sha: string): Buffer | undefined {
    try {
      const bytes = readFileSync(this.pathOf(sha));
      // A blob changed on disk is no checkpoint: restoring it would write something else.
      return sha256(bytes) === sha ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  has(sha: string): boolean {
    return existsSync(this.pathOf(sha));
  }

  private list(): { path: string; size: number; used: number }[] {
    if (!existsSync(this.blobs)) return [];
    return readdirSync(this.blobs).flatMap((prefix) =>
      readdirSync(join(this.blobs, prefix)).flatMap((name) => {
        try {
          const stat = statSync(join(this.blobs, prefix, name));
          return [{ path: join(this.blobs, prefix, name), size: stat.size, used: stat.mtimeMs }];
        } catch {
          return [];
        }
      }),
    );
  }

  private total(): number {
    let total = totals.get(this.blobs);
    if (total === undefined) {
      total = this.list().reduce((sum, blob) => sum + blob.size, 0);
      totals.set(this.blobs, total);
    }
    return total;
  }

  /** Drops the least recently used blobs (never `keep`, just stored) until the store fits its cap. */
  private shrink(keep: string): void {
    const blobs = this.list().sort((a, b) => a.used - b.used);
    let total = blobs.reduce((sum, blob) => sum + blob.size, 0);
    for (const blob of blobs) {
      if (total <= this.maxBytes) break;
      if (blob.path === this.pathOf(keep)) continue;
      try {
        unlinkSync(blob.path);
        total -= blob.size;
      } catch {
        // Gone already.
      }
    }
    totals.set(this.blobs, total);
  }
}
