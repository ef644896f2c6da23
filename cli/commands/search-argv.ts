import { type FindFlags, runFind } from "./find.ts";
import { type GrepFlags, runGrep } from "./grep.ts";
import { parseOptions } from "../options/option-parser.ts";
import { FIND_OPTIONS, GREP_OPTIONS } from "../options/search-options.ts";

export type SearchArgv =
  | { command: "grep"; pattern: string; paths: string[]; flags: GrepFlags }
  | { command: "find"; glob: string; path: string | undefined; flags: FindFlags };

/**
 * `omp grep` / `omp find` arguments (after the command word) as commander would hand them to the
 * action, or undefined to leave them to commander: help, a usage error, anything parseOptions does
 * not take.
 */
export function parseSearchArgv(command: string, argv: readonly string[]): SearchArgv | undefined {
  if (command === "grep") {
    const parsed = parseOptions(GREP_OPTIONS, argv);
    if (!parsed || parsed.operands.length === 0) return undefined;
    const [pattern, ...paths] = parsed.operands;
    return { command, pattern: pattern!, paths, flags: parsed.flags as unknown as GrepFlags };
  }
  if (command === "find") {
    const parsed = parseOptions(FIND_OPTIONS, argv);
    if (!parsed || parsed.operands.length === 0 || parsed.operands.length > 2) return undefined;
    const [glob, path] = parsed.operands;
    return { command, glob: glob!, path, flags: parsed.flags as unknown as FindFlags };
  }
  return undefined;
}

/** Runs the search without loading commander (a search should start as fast as rg does); undefined as above. */
export async function runSearchArgv(command: string, argv: readonly string[]): Promise<number | undefined> {
  const parsed = parseSearchArgv(command, argv);
  if (!parsed) return undefined;
  // Static imports: each chunk imported on the way to a search adds its own load time.
  if (parsed.command === "grep") return runGrep(parsed.pattern, parsed.paths, parsed.flags);
  return runFind(parsed.glob, parsed.path, parsed.flags);
}
