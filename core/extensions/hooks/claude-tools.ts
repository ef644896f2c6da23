import { resolve } from "node:path";
import { expandHome } from "../../paths.ts";

/**
 * Claude Code's tool names and input shapes for omp's tools, both ways: hooks written for Claude
 * match `Edit|MultiEdit` and read `tool_input.file_path`, and what they hand back in
 * `updatedInput` must come back in omp's shape. Keys omp does not know pass through unchanged.
 */

import { applyPatchPaths } from "../../tools/edit/apply-patch.ts";

type Input = Record<string, unknown>;

/** The Claude names a matcher may use for each omp tool (the first is what hooks are sent). */
const CLAUDE_NAMES: Record<string, string[]> = {
  read: ["Read"],
  write: ["Write"],
  edit: ["Edit", "MultiEdit"],
  // What GPT models edit with (core/tools/edit/mode.ts): an Edit to hooks and agent definitions.
  apply_patch: ["Edit", "MultiEdit"],
  bash: ["Bash"],
  grep: ["Grep"],
  find: ["Glob"],
  ls: ["LS"],
  todo: ["TodoWrite"],
  task: ["Task"],
  job: ["BashOutput", "KillShell"],
  ask: ["AskUserQuestion"],
  exit_plan_mode: ["ExitPlanMode"],
};

/** Field renames omp → Claude, per tool (the reverse is derived). */
const FIELDS: Record<string, Record<string, string>> = {
  read: { path: "file_path" },
  write: { path: "file_path" },
  edit: { path: "file_path" },
  grep: { ignoreCase: "-i", outputMode: "output_mode", context: "-C", limit: "head_limit" },
  bash: { background: "run_in_background" },
};

const EDIT_FIELDS: Record<string, string> = { oldText: "old_string", newText: "new_string", replaceAll: "replace_all" };

const rename = (input: Input, map: Record<string, string>): Input =>
  Object.fromEntries(Object.entries(input).map(([key, value]) => [map[key] ?? key, value]));

const invert = (map: Record<string, string>) => Object.fromEntries(Object.entries(map).map(([a, b]) => [b, a]));

/** Every name a matcher may be tested against for this omp tool: omp's own, then Claude's. */
export function matchNames(tool: string): string[] {
  return [tool, ...(CLAUDE_NAMES[tool] ?? [])];
}

/**
 * The tool's name and input as Claude Code would have them: `file_path` absolute (resolved
 * against `cwd`), as Claude's tools always are and hooks written for them expect.
 */
export function toClaude(tool: string, input: Input, cwd?: string): { toolName: string; toolInput: Input } {
  const names = CLAUDE_NAMES[tool];
  if (!names) return { toolName: tool, toolInput: input };
  // Hooks read the file an Edit changes from file_path: the patch's first file.
  if (tool === "apply_patch") return { toolName: "Edit", toolInput: { file_path: applyPatchPaths(String(input.input ?? ""))[0], ...input } };
  const renamed = rename(input, FIELDS[tool] ?? {});
  if (cwd !== undefined && typeof renamed.file_path === "string") renamed.file_path = resolve(cwd, expandHome(renamed.file_path));
  if (cwd !== undefined && (tool === "grep" || tool === "find" || tool === "ls") && typeof renamed.path === "string") renamed.path = resolve(cwd, expandHome(renamed.path));
  if (tool !== "edit" || !Array.isArray(input.edits)) return { toolName: names[0]!, toolInput: renamed };
  const edits = (input.edits as unknown[]).map((edit) => (edit && typeof edit === "object" ? rename(edit as Input, EDIT_FIELDS) : edit));
  if (edits.length === 1 && edits[0] && typeof edits[0] === "object") {
    const { edits: _, ...rest } = renamed;
    return { toolName: "Edit", toolInput: { ...rest, ...(edits[0] as Input) } };
  }
  return { toolName: "MultiEdit", toolInput: { ...renamed, edits } };
}

/** A hook's `updatedInput` (Claude's shape, or already omp's) in omp's shape for `tool`. */
export function fromClaude(tool: string, input: Input): Input {
  if (tool === "apply_patch") {
    const { file_path: _, ...patch } = input;
    return patch;
  }
  const renamed = rename(input, invert(FIELDS[tool] ?? {}));
  if (tool !== "edit") return renamed;
  const editFields = invert(EDIT_FIELDS);
  const { old_string, new_string, replace_all, ...rest } = renamed;
  if (typeof old_string === "string") {
    const single: Input = { oldText: old_string, newText: new_string ?? "" };
    if (replace_all !== undefined) single.replaceAll = replace_all;
    return { ...rest, edits: [single] };
  }
  if (Array.isArray(rest.edits)) {
    rest.edits = rest.edits.map((edit) => (edit && typeof edit === "object" ? rename(edit as Input, editFields) : edit));
  }
  return rest;
}
