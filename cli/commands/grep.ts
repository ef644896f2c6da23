import { statSync } from "node:fs";
import { natives } from "../../core/natives/index.ts";
import type { GrepMode, GrepOptions, SortOrder } from "../../core/natives/api.ts";
import { formatJsonSummary } from "../shared/grep-output.ts";
import { reportSearchError } from "../shared/native-errors.ts";
import { pipeToStdout } from "../shared/stream-output.ts";
import { writeStdout } from "../shared/write.ts";
import { EXIT_FAILURE } from "../../core/errors/exit-codes.ts";

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
  sort?: SortOrder;
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
  const options = {
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
  } satisfies GrepOptions;
  const withFilename = flags.filename === false ? false : (flags.withFilename ?? defaultWithFilename(paths));
  const started = performance.now();
  try {
    const stream = natives().grepStream({ ...options, withFilename, sort: flags.sort ?? "path", json: flags.json ?? false });
    // A closed pipe is rg's quiet success: what was wanted got printed.
    if (!(await pipeToStdout(stream))) return 0;
    const summary = stream.summary();
    if (flags.json && summary) await writeStdout(formatJsonSummary(summary, performance.now() - started));
    return summary && (summary.totalMatches > 0 || summary.filesWithMatches > 0) ? 0 : EXIT_FAILURE;
  } catch (error) {
    return reportSearchError("grep", error);
  }
}
