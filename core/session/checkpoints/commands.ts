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
    const after = root && before ? snapshot(root, ref) : undefined;
    if (!root || !before || !after) {
      appendRecords(dir, [{ kind: "unseen", ...common, what, why: root ? "snapshot-failed" : "no-git", time: time() }]);
    } else {
      const store = new BlobStore(dir, target.maxBytes);
      const records = changedPaths(root, before, after).map((relative): CheckpointRecord => {
        const path = join(root, relative);
        const prior = contentAt(root, before, relative);
        return { kind: "file", ...common, source: "bash", path, before: prior === undefined ? "absent" : store.put(prior), after: diskState(path), time: time() };
      });
      appendRecords(dir, records);
    }
  }
}
