import { copyFileSync, existsSync, lstatSync, rmSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

/**
 * Snapshots of a git work tree for what commands change, made with git's plumbing so that the
 * user's index, HEAD, branches and work tree are never touched: the tree is staged into a
 * temporary index (a copy of theirs, so unchanged files are not hashed again), written as a
 * commit, and kept alive under refs/omp/checkpoints/<session>, outside refs/heads.
 */

/** Longest one git step may take: a work tree too big for that is not snapshotted again this process (see {@link snapshot}). */
const GIT_TIMEOUT_MS = 5_000;
/** Work trees whose snapshot failed or took too long: every command would pay for it again. */
const givenUp = new Set<string>();
/** No prompts, no hooks, no locks on the user's index, an identity even where none is configured. */
const GIT_ENV = {
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_AUTHOR_NAME: "omp",
  GIT_AUTHOR_EMAIL: "omp@localhost",
  GIT_COMMITTER_NAME: "omp",
  GIT_COMMITTER_EMAIL: "omp@localhost",
};

function git(cwd: string, args: string[], env: Record<string, string> = {}): { ok: boolean; out: Buffer } {
  try {
    const result = Bun.spawnSync(["git", ...args], { cwd, stdin: "ignore", stdout: "pipe", stderr: "ignore", timeout: GIT_TIMEOUT_MS, env: { ...process.env, ...GIT_ENV, ...env } });
    return { ok: result.exitCode === 0, out: result.stdout };
  } catch {
    return { ok: false, out: Buffer.alloc(0) };
  }
}

const text = (out: Buffer) => out.toString("utf8").trim();

/** The work tree's top folder, or undefined outside a repository (or without git). */
export function workTreeOf(cwd: string): string | undefined {
  const result = git(cwd, ["rev-parse", "--show-toplevel"]);
  return result.ok ? text(result.out) : undefined;
}

/** The work tree as a commit (tracked and untracked files, ignored ones left out), chained under `ref`; undefined if git failed. */
export function snapshot(root: string, ref: string): string | undefined {
  if (givenUp.has(root)) return undefined;
  const made = commitWorkTree(root, ref);
  if (made === undefined) givenUp.add(root);
  return made;
}

/** A path git names (`--git-path`), made absolute. */
function gitPath(root: string, name: string): string {
  const path = text(git(root, ["rev-parse", "--git-path", name]).out);
  return isAbsolute(path) ? path : join(root, path);
}

/** Untracked files a snapshot would copy into git's object store: past these, the command is left unsnapshotted (not restorable) rather than the disk filled. */
const MAX_UNTRACKED_FILE_BYTES = 50 * 1024 * 1024;
const MAX_UNTRACKED_BYTES = 200 * 1024 * 1024;

/** Whether the work tree's untracked, unignored files stay within what a snapshot may store. */
function untrackedWithinLimits(root: string): boolean {
  const listed = git(root, ["ls-files", "-z", "--others", "--exclude-standard"]);
  if (!listed.ok) return false;
  let total = 0;
  for (const path of listed.out.toString("utf8").split("\0")) {
    if (path === "") continue;
    const size = lstatSync(join(root, path), { throwIfNoEntry: false })?.size ?? 0;
    total += size;
    if (size > MAX_UNTRACKED_FILE_BYTES || total > MAX_UNTRACKED_BYTES) return false;
  }
  return true;
}

function commitWorkTree(root: string, ref: string): string | undefined {
  if (!untrackedWithinLimits(root)) return undefined;
  // Beside the user's index, not in TMPDIR: the same disk (a cheap copy), and there even when TMPDIR is not.
  const userIndexPath = gitPath(root, "index");
  const index = join(dirname(userIndexPath), `omp-checkpoint-${process.pid}-${Math.random().toString(36).slice(2)}.index`);
  try {
    if (existsSync(userIndexPath)) copyFileSync(userIndexPath, index);
    const env = { GIT_INDEX_FILE: index };
    if (!git(root, ["add", "-A", "--", "."], env).ok) return undefined;
    const tree = git(root, ["write-tree"], env);
    if (!tree.ok) return undefined;
    const parent = git(root, ["rev-parse", "-q", "--verify", ref]);
    const commit = git(root, ["commit-tree", text(tree.out), ...(parent.ok ? ["-p", text(parent.out)] : []), "-m", "omp checkpoint"]);
    if (!commit.ok) return undefined;
    const sha = text(commit.out);
    git(root, ["update-ref", ref, sha]);
    return sha;
  } catch {
    // A snapshot that cannot be made (a read-only .git, a full disk) costs the rewind of this command, never the command.
    return undefined;
  } finally {
    rmSync(index, { force: true });
  }
}

/** Paths (relative to the root) that differ between two snapshots. */
export function changedPaths(root: string, from: string, to: string): string[] {
  const result = git(root, ["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to]);
  return result.ok ? result.out.toString("utf8").split("\0").filter(Boolean) : [];
}

/** A file's content in a snapshot; undefined when it was not there. */
export function contentAt(root: string, commit: string, path: string): Buffer | undefined {
  const result = git(root, ["cat-file", "blob", `${commit}:${path}`]);
  return result.ok ? result.out : undefined;
}

/** The ref a session's snapshots hang from. */
export const snapshotRef = (sessionId: string) => `refs/omp/checkpoints/${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}`;

/** Removes a session's snapshot ref (its commits go with git's next gc); nothing outside a repository. */
export function dropSnapshots(cwd: string, sessionId: string): void {
  const root = workTreeOf(cwd);
  if (root) git(root, ["update-ref", "-d", snapshotRef(sessionId)]);
}
