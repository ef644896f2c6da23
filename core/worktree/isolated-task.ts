import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitSync } from "../git/run.ts";
import { type WorktreeInfo, applyPatch, createWorktree, patchFiles, removeWorktree, snapshotWorkTree, worktreePatch } from "./worktrees.ts";

/** A subagent's own worktree: a detached checkout of the caller's files as they were when it started. */
export interface Isolation {
  worktree: WorktreeInfo;
  /** The snapshot commit it started from: its changes are what differs from it. */
  base: string;
  /** The caller's repository top folder, where its changes go back. */
  root: string;
}

/** Makes the worktree for an isolated task of the repository at `cwd`, uncommitted work included. */
export function isolate(cwd: string): Isolation {
  const base = snapshotWorkTree(cwd);
  const worktree = createWorktree(cwd, `task-${crypto.randomUUID().slice(0, 8)}`, { from: base, detach: true });
  const root = gitSync(["rev-parse", "--show-toplevel"], { cwd }).out.toString("utf8").trim();
  return { worktree, base, root };
}

export type IsolationReturn =
  | { kind: "unchanged" }
  | { kind: "applied"; files: string[] }
  | { kind: "conflict"; reason: string; patchFile: string; files: string[] };

/**
 * Brings an isolated task's changes back: one patch applied to the caller's work tree whole or
 * not at all, through `record` (the caller's checkpoints, so a rewind takes it back). On a
 * conflict nothing changes here: the patch is saved in `artifactsDir` and the worktree kept.
 */
export async function bringBack(isolation: Isolation, artifactsDir: string, record: (paths: string[], change: () => ReturnType<typeof applyPatch>) => Promise<ReturnType<typeof applyPatch>>): Promise<IsolationReturn> {
  const { worktree, base, root } = isolation;
  const patch = worktreePatch(worktree.path, base);
  if (patch === "") {
    removeWorktree(root, worktree, { force: true });
    return { kind: "unchanged" };
  }
  const files = patchFiles(root, patch);
  const outcome = await record(
    files.map((file) => join(root, file)),
    () => applyPatch(root, patch, files),
  );
  if (outcome.applied) {
    removeWorktree(root, worktree, { force: true });
    return { kind: "applied", files };
  }
  mkdirSync(artifactsDir, { recursive: true });
  const patchFile = join(artifactsDir, `${worktree.name}.patch`);
  writeFileSync(patchFile, patch);
  return { kind: "conflict", reason: outcome.reason, patchFile, files };
}
