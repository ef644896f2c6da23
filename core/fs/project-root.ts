import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The nearest ancestor of `cwd` (itself included) holding `.git` (a dir, or a worktree's file), or null outside a repository. */
export function repositoryRoot(cwd: string): string | null {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** The project `cwd` belongs to: its repository's root, else `cwd` itself (resolved). */
export function projectRoot(cwd: string): string {
  return repositoryRoot(cwd) ?? resolve(cwd);
}
