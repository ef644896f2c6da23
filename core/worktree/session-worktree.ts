import { folderTrust } from "../trust/folder-trust.ts";
import { type WorktreeInfo, checkName, createWorktree, listWorktrees, newWorktreeName, removeWorktree, repositoryRoot } from "./worktrees.ts";

export interface SessionWorktree {
  worktree: WorktreeInfo;
  /** The repository the worktree belongs to is trusted: so is its worktree, for this run. */
  trusted: boolean;
  /** At the session's end: removes the worktree when it holds nothing, else says where the work is. */
  leave(): string;
}

/**
 * `--worktree [name]`: the session runs in worktree `name` of the repository at `cwd` (made on a
 * new branch omp/<name>, or the existing one of that name taken up again).
 */
export function enterWorktree(cwd: string, name: string | true, env: NodeJS.ProcessEnv = process.env): SessionWorktree {
  const wanted = name === true ? newWorktreeName() : checkName(name);
  const worktree = listWorktrees(cwd, env).find((w) => w.name === wanted) ?? createWorktree(cwd, wanted, { env });
  const trusted = folderTrust(repositoryRoot(cwd), { env }).trusted;
  return {
    worktree,
    trusted,
    leave() {
      const now = listWorktrees(cwd, env).find((w) => w.name === wanted);
      if (!now) return `the worktree ${wanted} is gone`;
      if (now.dirty === 0 && now.ahead === 0) {
        removeWorktree(cwd, now);
        return `removed the worktree ${wanted}: nothing changed in it`;
      }
      return `kept the worktree ${wanted} at ${now.path} (${now.dirty} uncommitted, ${now.ahead} commits on ${now.branch}): \`omp worktree merge ${wanted}\` brings its work here, \`omp --worktree ${wanted}\` goes on in it`;
    },
  };
}
