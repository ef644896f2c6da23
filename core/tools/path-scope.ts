import { projectRoot } from "../fs/project-root.ts";
import { type PathAccess, type PathPolicy, type PathVerdict, realPath, within } from "../sandbox/path-policy.ts";
import { applyPatchPaths } from "./edit/apply-patch.ts";
import { hashlinePaths } from "./edit/hashline.ts";
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

  /** The paths a call names and what it does to them. */
  private paths(toolName: string, input: unknown): { path: string; access: PathAccess }[] {
    const patched = patchPaths(toolName, input);
    if (patched) return patched.map((path) => ({ path: resolveToolPath(this.cwd, path), access: "write" }));
    const key = PATH_KEYS[toolName];
    if (key === undefined || input === null || typeof input !== "object") return [];
    const record = input as Record<string, unknown>;
    const given = record[key];
    if (given !== undefined && typeof given !== "string") return [];
    const writes = WRITE_TOOLS.has(toolName) || (APPLYING_TOOLS.has(toolName) && record.apply === true);
    return [{ path: resolveToolPath(this.cwd, given), access: writes ? "write" : "read" }];
  }
}

const WRITE_TOOLS = new Set(["write", "edit"]);
/** Tools that only write with `apply: true`. */
const APPLYING_TOOLS = new Set(["ast_edit", "lsp"]);

/** Which input names the path each built-in tool works on; without one, the working directory. */
const PATH_KEYS: Record<string, string> = {
  read: "path",
  write: "path",
  edit: "path",
  ls: "path",
  grep: "path",
  find: "path",
  bash: "cwd",
  // A rewrite or a rename outside the project must ask like an edit there, auto-accept mode or not.
  ast_grep: "path",
  ast_edit: "path",
  lsp: "path",
  inspect_image: "path",
};

/** The files an apply_patch or hashline edit names inside its one `input` string. */
function patchPaths(toolName: string, input: unknown): string[] | undefined {
  const record = input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const text = record.input;
  // Patch mode's rename writes a second file.
  if (toolName === "edit" && typeof record.path === "string" && typeof record.rename === "string") return [record.path, record.rename];
  if (typeof text !== "string" || (toolName !== "apply_patch" && toolName !== "edit")) return undefined;
  return toolName === "apply_patch" ? applyPatchPaths(text) : hashlinePaths(text);
}
