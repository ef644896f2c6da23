import { lstatSync } from "node:fs";
import { join } from "node:path";
import { findRepo } from "../../git/repo.ts";
import { changeEpoch, noteChange } from "./epoch.ts";
import { pruneOrphanCheckpoints } from "./prune.ts";
import { appendRecords, type CheckpointRecord } from "./journal.ts";
import { BlobStore, checkpointDir, diskState } from "./store.ts";
import { Snapshots, snapshotRef } from "./git-snapshot.ts";
import type { CheckpointTarget } from "./target.ts";

/**
 * What a command (bash, job) changes, which omp cannot see file by file: in a git repository
 * the work tree is snapshotted before and after, and each file that differs is recorded like a
 * file tool's write (its prior content taken from the snapshot). Elsewhere the journal says that
 * a command ran whose changes are unknown, so a rewind lists it as not restorable.
 *
 * One snapshot per command: the one after a command is the next one's "before" while the user's
 * turn goes on and omp changed nothing else in between (see epoch.ts). A turn's first command
 * takes a fresh one, since the user may have edited files between turns; what a background job
 * changes between two commands of a turn is recorded with the later command.
 */

interface Base {
  tree: string;
  turn: string;
  epoch: number;
}

/** The last snapshot of each private git folder, while it may serve as the next "before". */
const bases = new Map<string, Base>();

export async function aroundCommand<T>(target: CheckpointTarget, cwd: string, what: string, toolCallId: string | undefined, run: () => Promise<T>): Promise<T> {
  pruneOrphanCheckpoints(target.session, cwd);
  const dir = checkpointDir(target.session);
  const repo = findRepo(cwd);
  const snapshots = repo ? new Snapshots(repo, dir) : undefined;
  const before = snapshots ? baseFor(snapshots, target) : undefined;
  noteChange();
  const time = () => new Date().toISOString();
  const common = { entryId: target.entryId, ...(toolCallId ? { toolCallId } : {}) };
  try {
    return await run();
  } finally {
    try {
      const after = snapshots && before ? snapshots.capture() : undefined;
      if (snapshots) {
        if (after && target.turn !== undefined) bases.set(snapshots.dir, { tree: after, turn: target.turn, epoch: changeEpoch() });
        else bases.delete(snapshots.dir);
      }
      if (!snapshots || !before || !after) {
        appendRecords(dir, [{ kind: "unseen", ...common, what, why: snapshots ? "snapshot-failed" : "no-git", time: time() }]);
      } else {
        const store = new BlobStore(dir, target.maxBytes);
        const changes = snapshots.changes(before, after);
        const contents = snapshots.contents(changes.flatMap((change) => (change.blob ? [change.blob] : [])));
        appendRecords(dir, changes.map((change) => recordOf(store, snapshots.repo.root, change.path, change.blob === undefined ? "absent" : contents.get(change.blob), { ...common, what, time: time() })));
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

/** The work tree before a command: the previous command's snapshot while still true, else a new one (kept under the session's ref when it opens a turn). */
function baseFor(snapshots: Snapshots, target: CheckpointTarget): string | undefined {
  const last = bases.get(snapshots.dir);
  if (last && target.turn !== undefined && last.turn === target.turn && last.epoch === changeEpoch()) return last.tree;
  const tree = snapshots.capture();
  if (tree && (target.turn === undefined || last?.turn !== target.turn)) snapshots.keep(tree, snapshotRef(target.sessionId));
  return tree;
}

/** One path the command changed: its prior content ("absent": there was none) when it is a plain file, else why it cannot come back. */
function recordOf(store: BlobStore, root: string, relative: string, prior: Buffer | "absent" | undefined, common: { entryId: string | null; toolCallId?: string; what: string; time: string }): CheckpointRecord {
  const path = join(root, relative);
  const { what, ...record } = common;
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat && !stat.isFile()) return { kind: "unseen", ...record, what: `${what}: ${relative}`, why: "not-a-file" };
  // A prior content git could not give back: unknown, never taken for "there was none".
  if (prior === undefined) return { kind: "unseen", ...record, what: `${what}: ${relative}`, why: "snapshot-failed" };
  return { kind: "file", ...record, source: "bash", path, before: prior === "absent" ? "absent" : store.put(prior), after: diskState(path) };
}
