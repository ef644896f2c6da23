import { projectRoot } from "../fs/project-root.ts";
import { type PathAccess, type PathPolicy, type PathVerdict, realPath, within } from "../sandbox/path-policy.ts";
import { declarationOf } from "./declarations/index.ts";
import { resolveToolPath } from "./paths.ts";

/**
 * The directories the tools may use without asking under `--approval-mode write` and `always-ask`:
 * the project (the repository around the working directory, else the working directory), the
 * dirs given with `--add-dir`, and the session's own artifacts. Paths are compared by where they
 * really lead, so a symlink inside the project that points out of it counts as outside.
 */
export class PathScope {
  readonly roots: string[];

  constructor(
    readonly cwd: string,
    allowed: string[] = [],
    /** The sandbox's rules for omp's tools; absent: only the project's bounds count. */
    readonly policy?: PathPolicy,
  ) {
    this.roots = [...new Set([projectRoot(cwd), ...allowed].map(realPath))];
  }

  /** The scope of an agent working in `dir` (an isolated task's worktree): its project is `dir`, this scope's roots stay allowed. */
  withWorkspace(dir: string): PathScope {
    return new PathScope(dir, this.roots, this.policy?.withWorkspace(dir));
  }

  /** The paths of this call that lead outside every root (empty for tools that name no path). */
  outside(toolName: string, input: unknown): string[] {
    return this.paths(toolName, input)
      .filter(({ path }) => {
        const real = realPath(path);
        return !this.roots.some((root) => within(real, root));
      })
      .map(({ path }) => path);
  }

  /** What the sandbox policy says of each path this call names, where it is not a plain yes. */
  verdicts(toolName: string, input: unknown): { path: string; verdict: Exclude<PathVerdict, { kind: "allowed" }> }[] {
    if (!this.policy) return [];
    const found: { path: string; verdict: Exclude<PathVerdict, { kind: "allowed" }> }[] = [];
    for (const { path, access } of this.paths(toolName, input)) {
      const verdict = this.policy.check(path, access);
      if (verdict.kind !== "allowed") found.push({ path, verdict });
    }
    return found;
  }

  /** The paths a call names and what it does to them, as the tool's declaration says. */
  private paths(toolName: string, input: unknown): { path: string; access: PathAccess }[] {
    const named = declarationOf(toolName)?.paths;
    if (!named || input === null || typeof input !== "object") return [];
    return named(input as Record<string, unknown>).map(({ path, access }) => ({ path: resolveToolPath(this.cwd, path), access }));
  }
}
