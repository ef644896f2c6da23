import { statSync } from "node:fs";
import { natives } from "../core/natives/index.ts";
import type { GrepMode } from "../core/natives/api.ts";
import { formatGrepJson, formatGrepPlain } from "./grep-output.ts";
import { reportSearchError } from "./native-errors.ts";
import { writeStdout } from "./write.ts";

export interface GrepFlags {
  ignoreCase?: boolean;
  smartCase?: boolean;
  fixedStrings?: boolean;
  multiline?: boolean;
  glob?: string[];
  type?: string[];
  hidden?: boolean;
  ignore: boolean;
  afterContext?: number;
  beforeContext?: number;
  context?: number;
  maxCount?: number;
  filesWithMatches?: boolean;
  count?: boolean;
  maxColumns?: number;
  withFilename?: boolean;
  filename: boolean;
  threads?: number;
  json?: boolean;
}

/** ripgrep prints paths when it may see more than one file. */
function defaultWithFilename(paths: string[]): boolean {
  if (paths.length !== 1) return true;
  try {
    return statSync(paths[0]!).isDirectory();
  } catch {
    return true;
  }
}

export async function runGrep(pattern: string, paths: string[], flags: GrepFlags): Promise<number> {
  const mode: GrepMode = flags.filesWithMatches ? "files_with_matches" : flags.count ? "count" : "content";
  const before = flags.beforeContext ?? flags.context ?? 0;
  const after = flags.afterContext ?? flags.context ?? 0;
  const started = performance.now();
  let result;
  try {
    result = await natives().grep({
      pattern,
      paths,
      globs: flags.glob ?? [],
      types: flags.type ?? [],
      ignoreCase: flags.ignoreCase ?? false,
      smartCase: flags.smartCase ?? false,
      fixedStrings: flags.fixedStrings ?? false,
      multiline: flags.multiline ?? false,
      hidden: flags.hidden ?? false,
      respectIgnore: flags.ignore,
      contextBefore: mode === "content" ? before : 0,
      contextAfter: mode === "content" ? after : 0,
      maxCount: flags.maxCount,
      maxColumns: flags.maxColumns,
      mode,
      threads: flags.threads ?? 0,
    });
  } catch (error) {
    return reportSearchError("grep", error);
  }
  const withFilename = flags.filename === false ? false : (flags.withFilename ?? defaultWithFilename(paths));
  await writeStdout(
    flags.json
      ? formatGrepJson(result, mode, performance.now() - started)
      : formatGrepPlain(result, { withFilename, context: before > 0 || after > 0, mode }),
  );
  return result.totalMatches > 0 || result.filesWithMatches > 0 ? 0 : 1;
}
