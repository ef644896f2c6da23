import { resolve } from "node:path";
import { expandHome } from "../../paths.ts";
import { declarationOf } from "../../tools/declarations/index.ts";
import { invert, renameKeys } from "../../tools/declarations/text.ts";

/**
 * Claude Code's tool names and input shapes for omp's tools, both ways, as each tool's declaration
 * gives them (core/tools/declarations): hooks written for Claude match `Edit|MultiEdit` and read
 * `tool_input.file_path`, and what they hand back in `updatedInput` must come back in omp's shape.
 * Keys omp does not know pass through unchanged.
 */

type Input = Record<string, unknown>;

/** Every name a matcher may be tested against for this omp tool: omp's own, then Claude's. */
export function matchNames(tool: string): string[] {
  return [tool, ...(declarationOf(tool)?.claude?.names ?? [])];
}

/**
 * The tool's name and input as Claude Code would have them: `file_path` absolute (resolved
 * against `cwd`), as Claude's tools always are and hooks written for them expect.
 */
export function toClaude(tool: string, input: Input, cwd?: string): { toolName: string; toolInput: Input } {
  const claude = declarationOf(tool)?.claude;
  if (!claude) return { toolName: tool, toolInput: input };
  const renamed = renameKeys(input, claude.fields ?? {});
  for (const key of cwd === undefined ? [] : ["file_path", ...(claude.absolute ?? [])]) {
    const path = renamed[key];
    if (typeof path === "string") renamed[key] = resolve(cwd!, expandHome(path));
  }
  const shaped = claude.toClaude?.(input, renamed) ?? { toolInput: renamed };
  return { toolName: shaped.toolName ?? claude.names[0]!, toolInput: shaped.toolInput };
}

/** A hook's `updatedInput` (Claude's shape, or already omp's) in omp's shape for `tool`. */
export function fromClaude(tool: string, input: Input): Input {
  const claude = declarationOf(tool)?.claude;
  if (!claude) return input;
  const renamed = renameKeys(input, invert(claude.fields ?? {}));
  return claude.fromClaude?.(renamed) ?? renamed;
}
