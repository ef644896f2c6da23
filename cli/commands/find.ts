import { join } from "node:path";
import type { EntryKind, GlobOptions, SortOrder } from "../../core/natives/api.ts";
import { natives } from "../../core/natives/index.ts";
import { reportSearchError } from "../shared/native-errors.ts";
import { pipeToStdout } from "../shared/stream-output.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";

export interface FindFlags {
  type?: string[];
  hidden?: boolean;
  ignore: boolean;
  maxResults?: number;
  newest?: boolean;
  sort?: SortOrder;
  long?: boolean;
  json?: boolean;
}

const KINDS: Record<string, EntryKind> = {
  f: "file",
  file: "file",
  d: "dir",
  dir: "dir",
  directory: "dir",
  l: "symlink",
  link: "symlink",
  symlink: "symlink",
};

export async function runFind(glob: string, path: string | undefined, flags: FindFlags): Promise<number> {
  const kinds: EntryKind[] = [];
  for (const name of flags.type ?? []) {
    const kind = KINDS[name];
    if (!kind) {
      process.stderr.write(`omp find: unknown type ${JSON.stringify(name)}; use f (file), d (dir) or l (symlink)\n`);
      return EXIT_USAGE;
    }
    kinds.push(kind);
  }
  const listing = {
    patterns: [glob],
    root: path ?? ".",
    kinds,
    hidden: flags.hidden ?? false,
    respectIgnore: flags.ignore,
    maxResults: flags.maxResults,
  } satisfies GlobOptions;
  const format = flags.json ? "json" : flags.long ? "long" : "plain";
  return streamPaths({ ...listing, newestFirst: flags.newest ?? false }, path, flags.sort ?? "path", format);
}

/**
 * Listings stream: entries are formatted natively and printed as the walk finds them, in path
 * order or (`--sort none`) as found; `--newest` sorts the whole listing first. Paths print as the
 * user would type them: below the directory they named, as fd does.
 */
async function streamPaths(listing: GlobOptions, path: string | undefined, sort: SortOrder, format: "plain" | "long" | "json"): Promise<number> {
  const prefix = path === undefined || path === "." ? "" : join(path, "_").slice(0, -1);
  try {
    const stream = natives().globStream({ ...listing, prefix, sort, format });
    if (!(await pipeToStdout(stream))) return 0;
    return (stream.summary()?.totalMatches ?? 0) > 0 ? 0 : 1;
  } catch (error) {
    return reportSearchError("find", error);
  }
}
