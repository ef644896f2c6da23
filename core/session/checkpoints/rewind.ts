import { existsSync, unlinkSync } from "node:fs";
import { writeFileAtomic } from "../../fs/atomic-write.ts";
import { resolve } from "node:path";
import type { PathPolicy } from "../../sandbox/path-policy.ts";
import { OmpError } from "../../errors/omp-error.ts";
import { textOf } from "../../ai/transcript.ts";
import { branchEntries, loadSession } from "../loader.ts";
import { type CheckpointRecord, readRecords } from "./journal.ts";
import { beginWrites } from "./record.ts";
import { BlobStore, DEFAULT_MAX_BYTES, checkpointDir, diskState } from "./store.ts";
import type { CheckpointTarget } from "./target.ts";

/**
 * Rewinding the files to how they were before a user turn: {@link planRewind} says what would
 * change, {@link rewindFiles} does it. Only files omp changed since that turn are touched (the
 * checkpoint journal's records on the branch since then), each back to its content before omp's
 * first change, and a file whose content is no longer what omp left there was changed by someone
 * else since: it is reported, never overwritten.
 */

/** A session as the rewind reads it: an Agent fits. */
export interface RewindSource {
  writer?: { path: string; leafId: string | null; header: { id: string }; sync(): void } | undefined;
}

export interface RewindFile {
  path: string;
  /** The blob to put back, or "absent": the file did not exist then and is removed. */
  to: string;
  /** What omp last left there (its hash or "absent"): the restore goes ahead only while the disk still holds it. */
  expected: string;
}

export interface RewindPlan {
  session: string;
  /** The session's working directory. */
  cwd: string;
  sessionId: string;
  entryId: string;
  /** Files that go back. */
  restore: RewindFile[];
  /** Files someone changed after omp did: left alone. */
  changedOutside: { path: string }[];
  /** What cannot be put back: a command's changes outside git, a content over the store's cap. */
  notRestorable: { path?: string; reason: string }[];
}

export interface RewindResult {
  restored: string[];
  changedOutside: { path: string }[];
  notRestorable: { path?: string; reason: string }[];
}

export interface UserTurn {
  entryId: string;
  text: string;
  time: Date;
}

/** The user's messages on the session's current branch, oldest first: the points a rewind can go back to. */
export function userTurns(source: RewindSource): UserTurn[] {
  const writer = source.writer;
  if (!writer || !existsSync(writer.path)) return [];
  writer.sync();
  return branchEntries(loadSession(writer.path), writer.leafId).flatMap((entry) =>
    entry.type === "message" && entry.message.role === "user" ? [{ entryId: entry.id, text: textOf(entry.message.content), time: new Date(entry.timestamp) }] : [],
  );
}

const UNSEEN = {
  "no-git": "not a git repository, so its changes are unknown",
  "snapshot-failed": "git could not snapshot the work tree (an error, over 5 s, or untracked files over 50 MB each or 200 MB in all), so its changes are unknown",
  "not-a-file": "a symlink or folder it made or changed, which omp does not restore",
} as const;

/** What rewinding `source`'s files to just before the user message `toEntryId` would do. */
export function planRewind(source: RewindSource, toEntryId: string): RewindPlan {
  const writer = source.writer;
  if (!writer) throw new OmpError("this session is not saved (--no-session), so it has no checkpoints to rewind to");
  writer.sync();
  const session = loadSession(writer.path);
  const branch = branchEntries(session, writer.leafId);
  const start = branch.findIndex((entry) => entry.id === toEntryId);
  const entry = branch[start];
  if (!entry || entry.type !== "message" || entry.message.role !== "user") {
    throw new OmpError(`cannot rewind to ${toEntryId}: it is not a user message on the session's current branch`);
  }
  const since = new Set(branch.slice(start).map((e) => e.id));
  const plan: RewindPlan = { session: writer.path, cwd: session.header.cwd, sessionId: writer.header.id, entryId: toEntryId, restore: [], changedOutside: [], notRestorable: [] };
  return planFiles(plan, readRecords(checkpointDir(writer.path)), (record) => record.entryId !== null && since.has(record.entryId));
}

/** The number of journal records of `session` so far: a mark {@link planSinceMark} rewinds to. */
export function journalMark(session: string): number {
  return readRecords(checkpointDir(session)).length;
}

/** What rewinding the files of `target`'s session to how they were at `mark` (a {@link journalMark}) would do. */
export function planSinceMark(target: CheckpointTarget, mark: number): RewindPlan {
  const plan: RewindPlan = { session: target.session, cwd: target.cwd, sessionId: target.sessionId, entryId: "", restore: [], changedOutside: [], notRestorable: [] };
  return planFiles(plan, readRecords(checkpointDir(target.session)), (_record, index) => index >= mark);
}

/** Fills `plan` with the files the records `inWindow` changed: each back to its content before the window's first change. */
function planFiles(plan: RewindPlan, records: CheckpointRecord[], inWindow: (record: CheckpointRecord, index: number) => boolean): RewindPlan {
  const store = new BlobStore(checkpointDir(plan.session), Number.POSITIVE_INFINITY);
  /** Per path: its content before the first change in the window. */
  const first = new Map<string, string>();
  /** Those contents that travelled with their records, not yet in the store. */
  const carried = new Map<string, string>();
  /** Per path: what omp left there last, on any branch (a restore included). */
  const last = new Map<string, string>();
  records.forEach((record, index) => {
    if (record.kind === "unseen") {
      if (inWindow(record, index)) plan.notRestorable.push({ reason: `${record.what}: ${UNSEEN[record.why]}` });
      return;
    }
    last.set(record.path, record.after);
    if (!inWindow(record, index) || first.has(record.path)) return;
    first.set(record.path, record.before);
    if (record.content !== undefined) carried.set(record.before, record.content);
  });
  for (const [path, to] of first) {
    const now = diskState(path);
    if (now === to) continue;
    const content = carried.get(to);
    if (content !== undefined) store.adopt(to, Buffer.from(content, "base64"));
    if (to === "unsaved" || (to !== "absent" && !store.has(to))) {
      plan.notRestorable.push({ path, reason: "its earlier content was not kept (over the checkpoint store's size cap)" });
      continue;
    }
    const expected = last.get(path)!;
    if (now !== expected) plan.changedOutside.push({ path });
    else plan.restore.push({ path, to, expected });
  }
  return plan;
}

/**
 * Puts the plan's files back, each atomically (a temporary file renamed over it, or an unlink),
 * so a crash midway leaves every file old or new, never torn. A file changed since the plan was
 * made joins changedOutside instead. The restores are recorded, so a later rewind knows what omp
 * left there.
 */
export function rewindFiles(plan: RewindPlan, maxBytes = DEFAULT_MAX_BYTES, paths?: PathPolicy): RewindResult {
  const store = new BlobStore(checkpointDir(plan.session), maxBytes);
  const target: CheckpointTarget = { session: plan.session, cwd: plan.cwd, sessionId: plan.sessionId, entryId: null, maxBytes };
  const result: RewindResult = { restored: [], changedOutside: [...plan.changedOutside], notRestorable: [...plan.notRestorable] };
  for (const file of plan.restore) {
    if (diskState(file.path) !== file.expected) {
      result.changedOutside.push({ path: file.path });
      continue;
    }
    const redirected = paths && redirection(paths, file.path);
    if (redirected) {
      result.notRestorable.push({ path: file.path, reason: redirected });
      continue;
    }
    const content = file.to === "absent" ? undefined : store.get(file.to);
    if (file.to !== "absent" && content === undefined) {
      result.notRestorable.push({ path: file.path, reason: "its checkpoint is missing or damaged" });
      continue;
    }
    const pending = beginWrites(target, [file.path], undefined, "rewind");
    if (content === undefined) unlinkSync(file.path);
    else writeFileAtomic(file.path, content, { mode: "user" });
    pending.done();
    result.restored.push(file.path);
  }
  return result;
}

/**
 * Why a restore must not go to `path` now: a link planted since leads it onto the deny-list, or
 * out of the writable roots where omp wrote it (the session's own approval covered the path named).
 */
function redirection(paths: PathPolicy, path: string): string | undefined {
  const verdict = paths.check(path, "write");
  if (verdict.kind === "denied") return verdict.message;
  if (verdict.kind === "needs-approval" && verdict.real !== resolve(path)) return `it now leads to ${verdict.real} through a link; ${verdict.message}`;
  return undefined;
}
