import { join } from "node:path";
import type { EntryKind, GlobOptions, SortOrder } from "../core/natives/api.ts";
import { natives } from "../core/natives/index.ts";
import { reportSearchError } from "./native-errors.ts";
import { pipeToStdout } from "./stream-output.ts";
import { writeStdout } from "./write.ts";

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

function formatSize(bytes: number): string {
  const units = ["B", "K", "M", "G", "T"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)}${units[unit]}`.padStart(7);
}

export async function runFind(glob: string, path: string | undefined, flags: FindFlags): Promise<number> {
  const kinds: EntryKind[] = [];
  for (const name of flags.type ?? []) {
    const kind = KINDS[name];
    if (!kind) {
      process.stderr.write(`omp find: unknown type ${JSON.stringify(name)}; use f (file), d (dir) or l (symlink)\n`);
      return 2;
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
  if (!flags.newest && !flags.long && !flags.json) return streamPaths(listing, path, flags.sort ?? "path");
  let result;
  try {
    result = await natives().glob({ ...listing, newestFirst: flags.newest ?? false });
  } catch (error) {
    return reportSearchError("find", error);
  }
  // Paths print as the user would type them: below the directory they named, as fd does.
  const shown = (relative: string) => (path === undefined || path === "." ? relative : join(path, relative));
  const lines = result.entries.map((entry) => {
    if (flags.json) return JSON.stringify({ ...entry, path: shown(entry.path) });
    if (flags.long) return `${formatSize(entry.size)}  ${new Date(entry.mtimeMs).toISOString()}  ${shown(entry.path)}`;
    return shown(entry.path);
  });
  await writeStdout(lines.length ? `${lines.join("\n")}\n` : "");
  return result.entries.length > 0 ? 0 : 1;
}

/**
 * Plain listings stream: paths are formatted natively and printed as the walk finds them, in
 * path order or (`--sort none`) as found. Paths print as the user would type them: below the
 * directory they named, as fd does.
 */
async function streamPaths(listing: GlobOptions, path: string | undefined, sort: SortOrder): Promise<number> {
  const prefix = path === undefined || path === "." ? "" : join(path, "_").slice(0, -1);
  try {
    const stream = natives().globStream({ ...listing, prefix, sort });
    if (!(await pipeToStdout(stream))) return 0;
    return (stream.summary()?.totalMatches ?? 0) > 0 ? 0 : 1;
  } catch (error) {
    return reportSearchError("find", error);
  }
}
