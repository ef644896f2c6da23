import { projectRoot } from "../fs/project-root.ts";
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
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
  ) {
    this.roots = [...new Set([projectRoot(cwd), ...allowed].map(realPath))];
  }

  /** The paths of this call that lead outside every root (empty for tools that name no path). */
  outside(toolName: string, input: unknown): string[] {
    const patched = patchPaths(toolName, input);
    if (patched) return patched.flatMap((path) => this.outside("write", { path }));
    const key = PATH_KEYS[toolName];
    if (key === undefined || input === null || typeof input !== "object") return [];
    const given = (input as Record<string, unknown>)[key];
    if (given !== undefined && typeof given !== "string") return [];
    const path = resolveToolPath(this.cwd, given);
    const real = realPath(path);
    return this.roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep)) ? [] : [path];
  }
}

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

/**
 * Where `path` really leads: its nearest existing ancestor resolved through symlinks, plus the
 * rest. A dangling symlink is followed too, since writing through it creates its target.
 */
function realPath(path: string, depth = 0): string {
  const rest: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const target = depth < 40 ? danglingTarget(current) : undefined;
      if (target !== undefined) return join(realPath(target, depth + 1), ...rest.reverse());
      if (dirname(current) === current) return resolve(path);
      rest.push(basename(current));
    }
  }
}

function danglingTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? resolve(dirname(path), readlinkSync(path)) : undefined;
  } catch {
    return undefined;
  }
}
