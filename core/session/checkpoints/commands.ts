import { lstatSync } from "node:fs";
import { join } from "node:path";
import { findRepo } from "../../git/repo.ts";
import { deferRecording, recordingsReady, settleRecordings } from "./deferred.ts";
import { changeEpoch, noteChange } from "./epoch.ts";
import { pruneOrphanCheckpoints } from "./prune.ts";
import { appendRecords, type CheckpointRecord } from "./journal.ts";
import { BlobStore, checkpointDir, diskState, sha256 } from "./store.ts";
import { Snapshots, snapshotRef } from "./git-snapshot.ts";
import type { CheckpointTarget } from "./target.ts";
import { type Prefetch, WorkTreeStat } from "./work-tree-stat.ts";
import { natives } from "../../natives/index.ts";

/**
 * What a command (bash, job) changes, which omp cannot see file by file: in a git repository the
 * files that differ, after the command, from the work tree as it was before are recorded like a
 * file tool's write (their prior content kept), and that picture brought up to date. Elsewhere the
 * journal says that a command ran whose changes are unknown, so a rewind lists it as not restorable.
 *
 * A user's turn starts from the work tree as the user left it: its first command brings a private
 * index up to date with git and reads it into a picture held in memory (work-tree-stat.ts); a
 * commit of it under the session's ref, so that git's gc keeps its blobs, is made meanwhile. From then on, while omp changed nothing else in
 * between (see epoch.ts), each command's changes are found from stat data in process, git started
 * only for names never seen before, after the command's result went back (deferred.ts); the
 * picture after a command is the next one's "before". What
 * a background job changes between two calls of a turn is recorded with the later call (a job
 * read is one). Bytes read for changed files stay in memory until they grow past a bound; then the
 * index takes them over, off the call's path. A command that starts while another runs (a
 * subagent's, inside its task) turns the index into a tree for the one already running, which then
 * compares trees at its end.
 */

interface Running {
  /** The work tree before the command, as a tree: set once another command moved the index on, or when no picture could be made. */
  tree?: string;
  /** That tree could not be made: the command's changes are unknown. */
  lost?: boolean;
}

interface State {
  /** The turn and change count at which the picture last matched the work tree. */
  base?: { turn: string; epoch: number };
  running: Running[];
  /** The index taking over a picture's bytes, while the call's result goes back to the model. */
  updating?: Promise<void>;
  /** The work tree as the last command left it (while `base` holds). */
  picture?: WorkTreeStat;
  /** A command's {@link listBeside} is waiting for git: another starting meanwhile does not list too. */
  listing?: boolean;
}

/** Turns' first states being kept as commits in the background (git-snapshot.ts's keepLater); finished at exit. */
const keeping = new Set<{ settle(): void }>();
let keepingHooked = false;

function keepInBackground(snapshots: Snapshots, sessionId: string): void {
  const kept = snapshots.keepLater(snapshotRef(sessionId));
  keeping.add(kept);
  void kept.done.then(() => keeping.delete(kept));
  if (keepingHooked) return;
  keepingHooked = true;
  process.on("exit", () => {
    for (const pending of keeping) pending.settle();
  });
}

const states = new Map<string, State>();

type Common = { entryId: string | null; toolCallId?: string; what: string; time: string };

export async function aroundCommand<T>(target: CheckpointTarget, cwd: string, what: string, toolCallId: string | undefined, run: () => Promise<T>): Promise<T> {
  pruneOrphanCheckpoints(target.session, cwd);
  const dir = checkpointDir(target.session);
  const repo = findRepo(cwd);
  const snapshots = repo ? new Snapshots(repo, dir) : undefined;
  const state = snapshots ? stateOf(snapshots) : undefined;
  await recordingsReady();
  settleRecordings();
  await state?.updating;
  const listing = snapshots && state ? listBeside(snapshots, state, target) : undefined;
  const listed = listing ? await listing : undefined;
  const self: Running = {};
  const ready = snapshots && state ? begin(snapshots, state, target, self, listed) : false;
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
    const deferred = state?.picture && ready && !self.lost && !self.tree;
    // Every file's stat data is taken on a worker thread meanwhile (work-tree-stat.ts's prefetch).
    const prefetch = deferred ? state.picture!.prefetch() : undefined;
    const record = () => {
      try {
        const records = snapshots && state && ready && !self.lost ? finish(snapshots, state, self, target, { ...common, what, time: time() }, prefetch) : undefined;
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
    };
    // The scan of a picture runs while the result goes back to the model (deferred.ts says when it
    // must have run); git's trees, compared for overlapping commands, are made now, after it.
    if (deferred) deferRecording(record, prefetch?.ready);
    else {
      settleRecordings();
      record();
    }
  }
}

function stateOf(snapshots: Snapshots): State {
  let state = states.get(snapshots.dir);
  if (!state) states.set(snapshots.dir, (state = { running: [] }));
  return state;
}

/** Whether the picture is the work tree as the last command of this turn left it, omp having changed nothing since. */
function holds(state: State, target: CheckpointTarget): boolean {
  const base = state.base;
  return base !== undefined && state.picture !== undefined && target.turn !== undefined && base.turn === target.turn && base.epoch === changeEpoch();
}

/**
 * A picture made anew starts with git's look at the work tree: taken in the background while the
 * native addon, which the picture needs next (and a first run extracts from this binary), loads.
 * Undefined when no picture is to be made. What ran meanwhile is recorded, as before any command;
 * the look is used only when nothing else began meanwhile (another command, a file tool's write):
 * else begin() looks again, as it would have.
 */
function listBeside(snapshots: Snapshots, state: State, target: CheckpointTarget): Promise<string[] | undefined> | undefined {
  if (state.listing || holds(state, target) || state.running.length > 0) return undefined;
  const epoch = changeEpoch();
  state.listing = true;
  return snapshots
    .pendingBeside(loadAddon)
    .finally(() => {
      state.listing = false;
    })
    .then(async (listed) => {
      settleRecordings();
      await state.updating;
      return state.running.length === 0 && changeEpoch() === epoch ? listed : undefined;
    });
}

function loadAddon(): void {
  try {
    natives();
  } catch {
    // Without it the picture looks at the files itself (work-tree-stat.ts).
  }
}

/** Makes the picture (or, without one, a tree) the work tree before the command; false when it cannot be. `listed`: see {@link listBeside}. */
function begin(snapshots: Snapshots, state: State, target: CheckpointTarget, self: Running, listed?: readonly string[]): boolean {
  const base = state.base;
  if (holds(state, target) && state.running.length === 0) return true;
  // Commands still running compare against the work tree as it was: keep it for them as a tree.
  const waiting = state.running.filter((running) => running.tree === undefined && !running.lost);
  // They started from the index plus the files read since: those go into the index first, which
  // can be done from disk only while the files are still as they were then.
  const dirty = state.picture ? [...state.picture.dirty] : [];
  if (waiting.length > 0 && dirty.length > 0 && !(state.picture!.dirtyOnDisk() && snapshots.update(dirty))) for (const running of waiting) running.lost = true;
  if (waiting.some((running) => !running.lost)) {
    const tree = snapshots.tree();
    for (const running of waiting) {
      if (tree) running.tree = tree;
      else running.lost = true;
    }
  }
  forget(state);
  if (!snapshots.sync(listed)) return false;
  const firstOfTurn = target.turn === undefined || base?.turn !== target.turn;
  state.picture = WorkTreeStat.load(snapshots.repo.root, snapshots.index, snapshots.hashBytes(), (paths) => snapshots.ignored(paths));
  if (state.picture) {
    // Its commit is for git's gc alone: made while the command runs.
    if (firstOfTurn) keepInBackground(snapshots, target.sessionId);
    return true;
  }
  // An index this process cannot read (split, sparse): trees before and after, from git.
  self.tree = snapshots.tree();
  if (self.tree && firstOfTurn) snapshots.keep(self.tree, snapshotRef(target.sessionId));
  return self.tree !== undefined;
}

/** The records of what the command changed, the picture brought up to date; undefined when that cannot be known. */
function finish(snapshots: Snapshots, state: State, self: Running, target: CheckpointTarget, common: Common, prefetch?: Prefetch): CheckpointRecord[] | undefined {
  const store = new BlobStore(checkpointDir(target.session), target.maxBytes);
  const root = snapshots.repo.root;
  if (self.tree) {
    // Commands still running keep their picture; the next one to start makes a new one.
    if (state.running.length === 0) forget(state);
    if (!snapshots.sync()) return undefined;
    const after = snapshots.tree();
    if (!after) return undefined;
    const changes = snapshots.changes(self.tree, after);
    const contents = snapshots.contents(changes.flatMap((change) => (change.blob ? [change.blob] : [])));
    return changes.map((change) => recordOf(store, root, change.path, change.blob === undefined ? "absent" : contents.get(change.blob), common));
  }
  const picture = state.picture;
  const changes = picture?.scan((paths) => snapshots.ignored(paths), prefetch);
  if (!picture || !changes) {
    forget(state);
    return undefined;
  }
  const blobs = snapshots.contents(changes.flatMap(({ before }) => (before !== "absent" && "oid" in before ? [before.oid] : [])));
  const records = changes.map(({ path, before }) => recordOf(store, root, path, before === "absent" ? "absent" : "oid" in before ? blobs.get(before.oid) : before.content, common));
  // New ignore rules: what git leaves out is for it to say again.
  if (changes.some(({ path }) => path === ".gitignore" || path.endsWith("/.gitignore"))) {
    forget(state);
    return records;
  }
  if (target.turn !== undefined && state.running.length === 0) state.base = { turn: target.turn, epoch: changeEpoch() };
  if (!picture.heavy()) return records;
  // The index takes the bytes read over, off the call's path (the next command waits for it).
  const base = state.base;
  state.updating = snapshots
    .updateLater([...picture.dirty])
    .catch(() => false)
    .then((ok) => {
      if (!ok || !picture.seed(snapshots.index)) {
        if (state.base === base) forget(state);
      }
    });
  return records;
}

/** The picture no longer matches the work tree. */
function forget(state: State): void {
  state.base = undefined;
  state.picture = undefined;
}

/** One path the command changed: its prior content ("absent": there was none) when it is a plain file, else why it cannot come back. */
function recordOf(store: BlobStore, root: string, relative: string, prior: Buffer | "absent" | undefined, common: Common): CheckpointRecord {
  const path = join(root, relative);
  const { what, ...record } = common;
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat && !stat.isFile()) return { kind: "unseen", ...record, what: `${what}: ${relative}`, why: "not-a-file" };
  // A prior content git could not give back: unknown, never taken for "there was none".
  if (prior === undefined) return { kind: "unseen", ...record, what: `${what}: ${relative}`, why: "snapshot-failed" };
  if (prior === "absent") return { kind: "file", ...record, source: "bash", path, before: "absent", after: diskState(path) };
  if (store.inline(prior)) return { kind: "file", ...record, source: "bash", path, before: sha256(prior), content: prior.toString("base64"), after: diskState(path) };
  return { kind: "file", ...record, source: "bash", path, before: store.put(prior, false), after: diskState(path) };
}
