import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { findRepo } from "../../git/repo.ts";
import { changeEpoch, noteChange } from "./epoch.ts";
import { pruneOrphanCheckpoints } from "./prune.ts";
import { appendRecords, type CheckpointRecord } from "./journal.ts";
import { BlobStore, checkpointDir, diskState } from "./store.ts";
import { Snapshots, snapshotRef } from "./git-snapshot.ts";
import type { CheckpointTarget } from "./target.ts";

/**
 * What a command (bash, job) changes, which omp cannot see file by file: in a git repository the
 * files that differ from a private index of the work tree after the command are recorded like a
 * file tool's write (their prior content taken from that index), and the index brought up to date.
 * Elsewhere the journal says that a command ran whose changes are unknown, so a rewind lists it as
 * not restorable.
 *
 * The index after a command is the next one's "before" while the user's turn goes on and omp
 * changed nothing else in between (see epoch.ts), so a command costs one listing of what changed
 * (stat data decide which files are read) and, when something did, one read of the prior contents.
 * The index is not updated after each such command (a second git process per call, which the next
 * command waited for): the contents of the few files that differ from it are kept in memory
 * instead ({@link State.known}), and the index catches up only when they grow past a bound, at the
 * turn's end, or when a command starts while another runs. A turn's first command brings the index up to date first (the user may have
 * edited files between turns) and keeps it as a commit under the session's ref; what a background
 * job changes between two commands of a turn is recorded with the later command. A command that
 * starts while another runs (a subagent's, inside its task) turns the index into a tree for the
 * one already running, which then compares trees at its end.
 */

interface Running {
  /** The work tree before the command, as a tree: set once another command moved the index on. */
  tree?: string;
  /** That tree could not be made: the command's changes are unknown. */
  lost?: boolean;
}

interface State {
  /** The turn and change count at which the index last matched the work tree. */
  base?: { turn: string; epoch: number };
  running: Running[];
  /** The last command's index update, made while its result goes back to the model. */
  updating?: Promise<void>;
  /**
   * The files that differ from the index, as they were after the last command (while `base`
   * holds): the index plus these is the work tree the next command starts from.
   */
  known?: Map<string, Known>;
  /** The index has no racily clean entry (checked once after it was last written). */
  settled?: boolean;
}

/** A file's content ("absent": there is none) and whether it is executable. */
type Known = { content: Buffer | "absent"; executable: boolean };

/** How much {@link State.known} may hold before the index is brought up to date instead. */
const MAX_KNOWN_PATHS = 200;
const MAX_KNOWN_BYTES = 4 * 1024 * 1024;

const states = new Map<string, State>();

type Common = { entryId: string | null; toolCallId?: string; what: string; time: string };

export async function aroundCommand<T>(target: CheckpointTarget, cwd: string, what: string, toolCallId: string | undefined, run: () => Promise<T>): Promise<T> {
  pruneOrphanCheckpoints(target.session, cwd);
  const dir = checkpointDir(target.session);
  const repo = findRepo(cwd);
  const snapshots = repo ? new Snapshots(repo, dir) : undefined;
  const state = snapshots ? stateOf(snapshots) : undefined;
  await state?.updating;
  const self: Running = {};
  const ready = snapshots && state ? begin(snapshots, state, target) : false;
  noteChange();
  state?.running.push(self);
  const time = () => new Date().toISOString();
  const common = { entryId: target.entryId, ...(toolCallId ? { toolCallId } : {}) };
  try {
    return await run();
  } finally {
    if (state) state.running = state.running.filter((running) => running !== self);
    // A command that ran inside this one may still be updating the index.
    await state?.updating;
    try {
      const records = snapshots && state && ready && !self.lost ? finish(snapshots, state, self, target, { ...common, what, time: time() }) : undefined;
      appendRecords(dir, records ?? [{ kind: "unseen", ...common, what, why: snapshots ? "snapshot-failed" : "no-git", time: time() }]);
    } catch {
      // Recording what a command changed costs at most the rewind of that command, never its result.
      if (state) forget(state);
      try {
        appendRecords(dir, [{ kind: "unseen", ...common, what, why: "snapshot-failed", time: time() }]);
      } catch {
        // Not even the journal can be written (a full disk): the rewind will not know of this command.
      }
    }
  }
}

function stateOf(snapshots: Snapshots): State {
  let state = states.get(snapshots.dir);
  if (!state) states.set(snapshots.dir, (state = { running: [] }));
  return state;
}

/** Makes the private index the work tree before the command; false when it cannot be. */
function begin(snapshots: Snapshots, state: State, target: CheckpointTarget): boolean {
  const base = state.base;
  if (base && target.turn !== undefined && base.turn === target.turn && base.epoch === changeEpoch() && state.running.length === 0) return true;
  // Commands still running compare against the index as it stands: keep it for them as a tree.
  const waiting = state.running.filter((running) => running.tree === undefined && !running.lost);
  // They started from the index plus the files known in memory: those go into the index first,
  // which can be done from disk only while the files are still as they were then.
  if (waiting.length > 0 && state.known?.size && !(unchangedSince(snapshots.repo.root, state.known) && snapshots.update([...state.known.keys()]))) for (const running of waiting) running.lost = true;
  if (waiting.some((running) => !running.lost)) {
    const tree = snapshots.tree();
    for (const running of waiting) {
      if (tree) running.tree = tree;
      else running.lost = true;
    }
  }
  forget(state);
  if (!snapshots.sync()) return false;
  if (target.turn === undefined || base?.turn !== target.turn) {
    const tree = snapshots.tree();
    if (tree) snapshots.keep(tree, snapshotRef(target.sessionId));
  }
  return true;
}

/** The records of what the command changed, the index brought up to date; undefined when that cannot be known. */
function finish(snapshots: Snapshots, state: State, self: Running, target: CheckpointTarget, common: Common): CheckpointRecord[] | undefined {
  const store = new BlobStore(checkpointDir(target.session), target.maxBytes);
  const root = snapshots.repo.root;
  let records: CheckpointRecord[];
  if (self.tree) {
    state.settled = false;
    if (!snapshots.sync()) return undefined;
    const after = snapshots.tree();
    if (!after) return undefined;
    const changes = snapshots.changes(self.tree, after);
    const contents = snapshots.contents(changes.flatMap((change) => (change.blob ? [change.blob] : [])));
    records = changes.map((change) => recordOf(store, root, change.path, change.blob === undefined ? "absent" : contents.get(change.blob), common));
  } else {
    const pending = snapshots.pending();
    const known = state.known ?? new Map<string, Known>();
    state.known = undefined;
    // A file known in memory that is back to the index's content is no longer pending, yet changed.
    const paths = pending && [...new Set([...pending, ...known.keys()])];
    if (!paths || !snapshots.withinLimits(paths)) {
      forget(state);
      return undefined;
    }
    const differing = new Set(pending);
    const prior = snapshots.indexed(paths.filter((path) => !known.has(path)));
    const now = new Map<string, Known>();
    let bytes = 0;
    let keep = target.turn !== undefined && state.running.length === 0;
    records = [];
    for (const path of paths) {
      const before = known.get(path);
      const after = differing.has(path) ? current(root, path) : undefined;
      if (after) now.set(path, after);
      else if (differing.has(path)) keep = false;
      bytes += after && after.content !== "absent" ? after.content.length : 0;
      if (before && after && sameContent(before.content, after.content)) continue;
      records.push(recordOf(store, root, path, before ? before.content : prior.get(path), common));
    }
    if (target.turn !== undefined && state.running.length === 0) state.base = { turn: target.turn, epoch: changeEpoch() };
    // An index git must read every racily clean file of on each listing is written again instead, until it settles.
    if (keep && state.base && now.size <= MAX_KNOWN_PATHS && bytes <= MAX_KNOWN_BYTES && (state.settled ||= snapshots.settled())) {
      state.known = now;
      return records;
    }
    // The changes are recorded: the index catches up off the call's path, and the next command waits for it.
    const base = state.base;
    const rewrite = !state.settled;
    state.settled = false;
    state.updating = snapshots
      .updateLater(paths, rewrite)
      .catch(() => false)
      .then((ok) => {
        if (!ok && state.base === base) state.base = undefined;
      });
    return records;
  }
  if (target.turn !== undefined && state.running.length === 0) state.base = { turn: target.turn, epoch: changeEpoch() };
  return records;
}

/** The index no longer matches the work tree, nor what is known beside it. */
function forget(state: State): void {
  state.base = undefined;
  state.known = undefined;
  state.settled = false;
}

/** A plain file's content as it is now ("absent": none); undefined for anything else (a folder, a link, a nested repository). */
function current(root: string, relative: string): Known | undefined {
  const path = join(root, relative.replace(/\/+$/, ""));
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return { content: "absent", executable: false };
  if (!stat.isFile()) return undefined;
  return { content: readFileSync(path), executable: (stat.mode & 0o111) !== 0 };
}

const sameContent = (a: Buffer | "absent", b: Buffer | "absent") => (a === "absent" || b === "absent" ? a === b : a.equals(b));

/** Whether the files in `known` are on disk as they were recorded (content and executable bit). */
function unchangedSince(root: string, known: Map<string, Known>): boolean {
  for (const [path, was] of known) {
    const now = current(root, path);
    if (!now || now.executable !== was.executable || !sameContent(now.content, was.content)) return false;
  }
  return true;
}

/** One path the command changed: its prior content ("absent": there was none) when it is a plain file, else why it cannot come back. */
function recordOf(store: BlobStore, root: string, relative: string, prior: Buffer | "absent" | undefined, common: Common): CheckpointRecord {
  const path = join(root, relative);
  const { what, ...record } = common;
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat && !stat.isFile()) return { kind: "unseen", ...record, what: `${what}: ${relative}`, why: "not-a-file" };
  // A prior content git could not give back: unknown, never taken for "there was none".
  if (prior === undefined) return { kind: "unseen", ...record, what: `${what}: ${relative}`, why: "snapshot-failed" };
  return { kind: "file", ...record, source: "bash", path, before: prior === "absent" ? "absent" : store.put(prior, false), after: diskState(path) };
}
