import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { noteChange } from "./epoch.ts";
import { appendRecords, type CheckpointRecord } from "./journal.ts";
import { pruneOrphanCheckpoints } from "./prune.ts";
import { BlobStore, checkpointDir, diskState } from "./store.ts";
import type { CheckpointTarget } from "./target.ts";

/**
 * The hook every file tool's write goes through (core/tools/file-writes.ts): before the write,
 * each file's content (or its absence) is stored; after it, the journal says what omp left
 * there. A write that throws records nothing: the tool has undone it or written nothing.
 */

/** Writes go to a symlink's target: that is the file whose content changes. */
function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The content at `path` into the store: its sha, "absent", or "unsaved" (too big, or not a regular file). */
export function storeState(store: BlobStore, path: string): string {
  if (!existsSync(path)) return "absent";
  if (!lstatSync(path).isFile()) return "unsaved";
  return store.put(readFileSync(path));
}

export interface PendingWrites {
  /** The write went through: record it. */
  done(): void;
}

const NOTHING: PendingWrites = { done() {} };

/** Call before writing `paths`; `done()` once written. Without a target (no session) it records nothing. */
export function beginWrites(target: CheckpointTarget | undefined, paths: readonly string[], toolCallId?: string, source: "write" | "rewind" = "write"): PendingWrites {
  if (!target || paths.length === 0) return NOTHING;
  noteChange();
  pruneOrphanCheckpoints(target.session, target.cwd);
  const dir = checkpointDir(target.session);
  const store = new BlobStore(dir, target.maxBytes);
  const files = [...new Set(paths.map(realTarget))].map((path) => ({ path, before: storeState(store, path) }));
  return {
    done() {
      const time = new Date().toISOString();
      appendRecords(
        dir,
        files.map(({ path, before }): CheckpointRecord => ({ kind: "file", entryId: target.entryId, ...(toolCallId ? { toolCallId } : {}), source, path, before, after: diskState(path), time })),
      );
    },
  };
}

/** `write` with its files recorded around it (sync or async). */
export async function recordedWrite<T>(target: CheckpointTarget | undefined, paths: readonly string[], toolCallId: string | undefined, write: () => T | Promise<T>): Promise<T> {
  const pending = beginWrites(target, paths, toolCallId);
  const result = await write();
  pending.done();
  return result;
}
