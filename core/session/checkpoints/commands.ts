import { lstatSync } from "node:fs";
import { join } from "node:path";
import { pruneOrphanCheckpoints } from "./prune.ts";
import { appendRecords, type CheckpointRecord } from "./journal.ts";
import { BlobStore, checkpointDir, diskState } from "./store.ts";
import { changedPaths, contentAt, snapshot, snapshotRef, workTreeOf } from "./git-snapshot.ts";
import type { CheckpointTarget } from "./target.ts";

/**
 * What a command (bash, job) changes, which omp cannot see file by file: in a git repository
 * the work tree is snapshotted before and after, and each file that differs is recorded like a
 * file tool's write (its prior content taken from the snapshot). Elsewhere the journal says that
 * a command ran whose changes are unknown, so a rewind lists it as not restorable.
 */
export async function aroundCommand<T>(target: CheckpointTarget, cwd: string, what: string, toolCallId: string | undefined, run: () => Promise<T>): Promise<T> {
  pruneOrphanCheckpoints(target.session, cwd);
  const dir = checkpointDir(target.session);
  const root = workTreeOf(cwd);
  const ref = snapshotRef(target.sessionId);
  const before = root ? snapshot(root, ref) : undefined;
  const time = () => new Date().toISOString();
  const common = { entryId: target.entryId, ...(toolCallId ? { toolCallId } : {}) };
  try {
    return await run();
  } finally {
    try {
      const after = root && before ? snapshot(root, ref) : undefined;
      if (!root || !before || !after) {
        appendRecords(dir, [{ kind: "unseen", ...common, what, why: root ? "snapshot-failed" : "no-git", time: time() }]);
      } else {
        const store = new BlobStore(dir, target.maxBytes);
        appendRecords(dir, changedPaths(root, before, after).map((relative) => recordOf(store, root, before, relative, { ...common, what, time: time() })));
      }
    } catch {
      // Recording what a command changed costs at most the rewind of that command, never its result.
      try {
        appendRecords(dir, [{ kind: "unseen", ...common, what, why: "snapshot-failed", time: time() }]);
      } catch {
        // Not even the journal can be written (a full disk): the rewind will not know of this command.
      }
    }
  }
}

/** One path the command changed: its prior content when it is a plain file, else why it cannot come back. */
function recordOf(store: BlobStore, root: string, before: string, relative: string, common: { entryId: string | null; toolCallId?: string; what: string; time: string }): CheckpointRecord {
  const path = join(root, relative);
  const { what, ...record } = common;
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat && !stat.isFile()) return { kind: "unseen", ...record, what: `${what}: ${relative}`, why: "not-a-file" };
  const prior = contentAt(root, before, relative);
  return { kind: "file", ...record, source: "bash", path, before: prior === undefined ? "absent" : store.put(prior), after: diskState(path) };
}
