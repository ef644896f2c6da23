import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { type GitResult, OMP_IDENTITY, gitSync, gitText } from "../git/run.ts";
import { configRoot, expandHome } from "../paths.ts";

/**
 * omp's git worktrees: `omp worktree`, `--worktree`, and the task tool's isolated subagents. They
 * live where the original omp keeps them, `~/.omp/wt/<project>/<name>` (`OMP_WORKTREE_DIR`
 * moves them), each on its own branch `omp/<name>`. Every git call goes through the safe runner
 * with the content filters emptied: a worktree's checkout, status, patch and snapshot run no hook
 * or filter the repository configured.
 */

export const BRANCH_PREFIX = "omp/";
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TIMEOUT_MS = 120_000;

export interface WorktreeInfo {
  name: string;
  path: string;
  branch: string;
  /** Files changed in it and not yet committed on its branch. */
  dirty: number;
  /** Commits on its branch that the repository's current HEAD does not have. */
  ahead: number;
}

function run(cwd: string, args: string[], input?: string): GitResult {
  return gitSync(args, { cwd, timeoutMs: TIMEOUT_MS, withoutFilters: true, ...(input === undefined ? {} : { input }) });
}

function must(cwd: string, args: string[], what: string, input?: string): string {
  return gitText(args, { cwd, timeoutMs: TIMEOUT_MS, what, withoutFilters: true, ...(input === undefined ? {} : { input }) });
}

/** The repository's top folder (the main work tree's, also when called from a linked worktree). */
export function repositoryRoot(cwd: string): string {
  const common = run(cwd, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  if (!common.ok) throw new OmpError(`${cwd} is not in a git repository: worktrees are git's`);
  const dir = common.out.toString("utf8").trim();
  // The common dir is <root>/.git for an ordinary repository.
  return basename(dir) === ".git" ? join(dir, "..") : must(cwd, ["rev-parse", "--show-toplevel"], "finding the repository").trim();
}

export function worktreesRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.OMP_WORKTREE_DIR ? expandHome(env.OMP_WORKTREE_DIR) : join(configRoot(), "wt");
}

/** `<name>-<hash>`: readable, and two projects of the same name never share a folder. */
function projectDir(root: string, env: NodeJS.ProcessEnv): string {
  const real = realpathSync(root);
  return join(worktreesRoot(env), `${basename(real)}-${createHash("sha256").update(real).digest("hex").slice(0, 8)}`);
}

export function checkName(name: string): string {
  if (!NAME.test(name)) throw new OmpError(`worktree name "${name}": use letters, digits, '.', '_' or '-' (up to 64, not starting with a dot or dash)`);
  return name;
}

export function newWorktreeName(): string {
  return `wt-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * A new worktree `name` of the repository at `cwd`, on a new branch `omp/<name>` from `from`
 * (default HEAD), or detached at `from` with `detach` (the task tool's snapshots).
 */
export function createWorktree(cwd: string, name: string, options: { from?: string; detach?: boolean; env?: NodeJS.ProcessEnv } = {}): WorktreeInfo {
  const root = repositoryRoot(cwd);
  const env = options.env ?? process.env;
  const path = join(projectDir(root, env), checkName(name));
  if (existsSync(path)) throw new OmpError(`a worktree named ${name} exists already (${path}); pick another name or \`omp worktree remove ${name}\``);
  const branch = `${BRANCH_PREFIX}${name}`;
  if (!options.detach && run(root, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`]).ok) {
    throw new OmpError(`the branch ${branch} exists already; remove it (git branch -D ${branch}) or pick another name`);
  }
  mkdirSync(projectDir(root, env), { recursive: true, mode: 0o700 });
  const from = options.from ?? "HEAD";
  must(root, ["worktree", "add", "--quiet", ...(options.detach ? ["--detach", path, from] : ["-b", branch, path, from])], `creating the worktree ${name}`);
  return { name, path, branch: options.detach ? "" : branch, dirty: 0, ahead: 0 };
}

/** The worktrees omp made for the repository at `cwd`, with their state. */
export function listWorktrees(cwd: string, env: NodeJS.ProcessEnv = process.env): WorktreeInfo[] {
  const root = repositoryRoot(cwd);
  const base = projectDir(root, env);
  const porcelain = must(root, ["worktree", "list", "--porcelain", "-z"], "listing worktrees");
  const found: WorktreeInfo[] = [];
  for (const record of porcelain.split("\0\0")) {
    const fields = new Map(record.split("\0").filter(Boolean).map((line) => [line.split(" ")[0]!, line.slice(line.indexOf(" ") + 1)] as const));
    const path = fields.get("worktree");
    if (!path || relative(base, path).startsWith("..") || relative(base, path) === "") continue;
    const branch = (fields.get("branch") ?? "").replace(/^refs\/heads\//, "");
    found.push({ name: basename(path), path, branch, ...worktreeState(root, path, branch) });
  }
  return found;
}

function worktreeState(root: string, path: string, branch: string): { dirty: number; ahead: number } {
  if (!existsSync(path)) return { dirty: 0, ahead: 0 };
  const status = run(path, ["status", "--porcelain", "-z", "--untracked-files=all"]);
  const dirty = status.ok ? status.out.toString("utf8").split("\0").filter((line) => /^.. /.test(line)).length : 0;
  const ahead = branch ? Number(run(root, ["rev-list", "--count", `HEAD..${branch}`]).out.toString("utf8").trim() || 0) : 0;
  return { dirty, ahead };
}

export function findWorktree(cwd: string, name: string, env: NodeJS.ProcessEnv = process.env): WorktreeInfo {
  const found = listWorktrees(cwd, env).find((worktree) => worktree.name === name);
  if (!found) throw new OmpError(`no worktree named ${name} in this repository; \`omp worktree list\` shows them`);
  return found;
}

/**
 * Removes a worktree and, when nothing on it is lost (merged, or `force`), its branch. Uncommitted
 * changes or unmerged commits refuse without `force`, saying what would be lost.
 */
export function removeWorktree(cwd: string, worktree: WorktreeInfo, options: { force?: boolean } = {}): { branchKept: boolean } {
  const root = repositoryRoot(cwd);
  if (!options.force && worktree.dirty > 0) throw new OmpError(`${worktree.name} has ${worktree.dirty} uncommitted change(s); merge it (omp worktree merge ${worktree.name}) or remove it with --force`);
  must(root, ["worktree", "remove", ...(options.force ? ["--force"] : []), worktree.path], `removing the worktree ${worktree.name}`);
  if (!worktree.branch) return { branchKept: false };
  const deleted = run(root, ["branch", options.force ? "-D" : "-d", worktree.branch]);
  return { branchKept: !deleted.ok };
}

/** Everything in `dir` (commits and uncommitted changes, untracked files too) since `base`, as a binary patch. */
export function worktreePatch(dir: string, base: string): string {
  // A private index of this process's own: the worktree's is left as the subagent or the user left it.
  const index = join(must(dir, ["rev-parse", "--absolute-git-dir"], "finding the worktree's git dir").trim(), `omp-patch-index-${process.pid}`);
  const env = { GIT_INDEX_FILE: index };
  const step = (args: string[]) => gitText(args, { cwd: dir, env, timeoutMs: TIMEOUT_MS, what: "reading the worktree's changes", withoutFilters: true });
  try {
    step(["read-tree", "HEAD"]);
    step(["add", "-A"]);
    return step(["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", base]);
  } finally {
    rmSync(index, { force: true });
  }
}

export type PatchOutcome = { applied: true; files: string[] } | { applied: false; reason: string };

/** The files a patch touches, relative to the repository root. */
export function patchFiles(root: string, patch: string): string[] {
  return must(root, ["apply", "--numstat", "-z", "-"], "reading the patch", patch)
    .split("\0")
    .filter(Boolean)
    .map((line) => line.split("\t").at(-1)!)
    .filter(Boolean);
}

/** Applies `patch` to the work tree at `root` whole or not at all: git checks every hunk before it writes. `files`: its {@link patchFiles}, when the caller has them. */
export function applyPatch(root: string, patch: string, files = patchFiles(root, patch)): PatchOutcome {
  const check = run(root, ["apply", "--check", "--binary", "-"], patch);
  if (!check.ok) return { applied: false, reason: check.err.trim() || "the patch does not apply" };
  must(root, ["apply", "--binary", "-"], "applying the patch", patch);
  return { applied: true, files };
}

/**
 * A commit of the work tree at `cwd` as it is now (tracked and untracked files, ignored ones
 * left out), made without touching the user's index or branches: an isolated subagent starts
 * from what the user sees, uncommitted work included.
 */
export function snapshotWorkTree(cwd: string): string {
  const root = repositoryRoot(cwd);
  const gitDir = must(root, ["rev-parse", "--absolute-git-dir"], "finding the git dir").trim();
  const env = { GIT_INDEX_FILE: join(gitDir, `omp-snapshot-index-${process.pid}`), ...OMP_IDENTITY };
  const step = (args: string[]) => gitText(args, { cwd: root, env, timeoutMs: TIMEOUT_MS, what: "snapshotting the work tree", withoutFilters: true }).trim();
  const hasHead = run(root, ["rev-parse", "--verify", "-q", "HEAD"]).ok;
  try {
    step(hasHead ? ["read-tree", "HEAD"] : ["read-tree", "--empty"]);
    step(["add", "-A"]);
    const tree = step(["write-tree"]);
    return step(["commit-tree", tree, ...(hasHead ? ["-p", "HEAD"] : []), "-m", "omp: the work tree an isolated task started from"]);
  } finally {
    rmSync(env.GIT_INDEX_FILE, { force: true });
  }
}

/**
 * Brings a worktree's work (its branch's commits and its uncommitted changes since it forked) into
 * the work tree at `cwd` as uncommitted changes, whole or not at all, then removes the worktree
 * unless `keep`. A conflict applies nothing and keeps the worktree, saying where it failed.
 */
export function mergeWorktree(cwd: string, worktree: WorktreeInfo, options: { keep?: boolean } = {}): PatchOutcome {
  const target = must(cwd, ["rev-parse", "--show-toplevel"], "finding the work tree").trim();
  const head = must(worktree.path, ["rev-parse", "HEAD"], `reading ${worktree.name}`).trim();
  const base = must(target, ["merge-base", "HEAD", head], `finding where ${worktree.name} forked`).trim();
  const patch = worktreePatch(worktree.path, base);
  const outcome: PatchOutcome = patch === "" ? { applied: true, files: [] } : applyPatch(target, patch);
  // Its work is in the target now: the branch's commits are not lost with it.
  if (outcome.applied && !options.keep) removeWorktree(cwd, worktree, { force: true });
  return outcome;
}
