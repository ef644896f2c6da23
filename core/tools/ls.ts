import { declared } from "./declare.ts";
import { LS_MAX_ENTRIES, ls as lsDeclaration } from "./declarations/ls.ts";
import { type Dirent, lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { errorResult, textResult } from "./format.ts";
import { formatBytes } from "../format-bytes.ts";
import { displayPath, notFoundMessage, resolveToolPath, readRefusal } from "./paths.ts";
import type { ToolDefinition } from "./types.ts";
import { plural } from "../plural.ts";


const schema = z.object({
  path: z.string().optional().describe("Directory to list (default: the working directory)"),
});

interface Entry {
  name: string;
  kind: "dir" | "file" | "symlink" | "other";
  size?: number;
  target?: string;
}

function describeEntry(dir: string, dirent: Dirent): Entry {
  const path = join(dir, dirent.name);
  if (dirent.isDirectory()) return { name: dirent.name, kind: "dir" };
  if (dirent.isSymbolicLink()) {
    let target = "?";
    try {
      target = readlinkSync(path);
    } catch {
      // Unreadable link: still listed, target unknown.
    }
    let pointsToDir = false;
    try {
      pointsToDir = statSync(path).isDirectory();
    } catch {
      // Dangling link.
    }
    return { name: dirent.name, kind: "symlink", target: pointsToDir ? `${target}/` : target };
  }
  if (dirent.isFile()) {
    let size: number | undefined;
    try {
      size = lstatSync(path).size;
    } catch {
      // Removed while listing.
    }
    return { name: dirent.name, kind: "file", size };
  }
  return { name: dirent.name, kind: "other" };
}

function formatEntry(entry: Entry, width: number): string {
  switch (entry.kind) {
    case "dir":
      return `${entry.name}/`;
    case "symlink":
      return `${entry.name} -> ${entry.target}`;
    case "file":
      return `${entry.name.padEnd(width)}  ${entry.size === undefined ? "?" : formatBytes(entry.size)}`;
    case "other":
      return `${entry.name.padEnd(width)}  (special file)`;
  }
}

const byName = (a: Entry, b: Entry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export interface LsDetails {
  path: string;
  directories: number;
  files: number;
  /** The entries listed, directories first. */
  entries: Entry[];
}

export const lsTool: ToolDefinition<typeof schema, LsDetails> = {
  ...declared(lsDeclaration),
  schema,
  async execute(input, context) {
    const path = resolveToolPath(context.cwd, input.path);
    const refused = readRefusal(context, path);
    if (refused !== undefined) return errorResult(refused);
    const shown = displayPath(context.cwd, path);
    let dirents: Dirent[];
    try {
      dirents = readdirSync(path, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return errorResult(notFoundMessage(context.cwd, path, "Directory"));
      if (code === "ENOTDIR") return errorResult(`${shown} is a file, not a directory; use read to see its content.`);
      if (code === "EACCES") return errorResult(`Permission denied: cannot list ${shown}`);
      throw error;
    }
    const entries = dirents.map((dirent) => describeEntry(path, dirent));
    const dirs = entries.filter((e) => e.kind === "dir").sort(byName);
    const others = entries.filter((e) => e.kind !== "dir").sort(byName);
    const sorted = [...dirs, ...others];
    const details: LsDetails = { path, directories: dirs.length, files: others.length, entries: sorted.slice(0, LS_MAX_ENTRIES) };
    if (sorted.length === 0) return textResult(`${shown}/ is empty.`, details);
    const page = sorted.slice(0, LS_MAX_ENTRIES);
    const width = Math.min(40, Math.max(...page.map((e) => e.name.length)));
    const header = `${shown}/ (${plural(dirs.length, "directory", "directories")}, ${plural(others.length, "file")})`;
    let text = `${header}\n${page.map((entry) => formatEntry(entry, width)).join("\n")}`;
    if (sorted.length > page.length) {
      text += `\n\n[Showing ${page.length} of ${sorted.length} entries. Use find with a pattern to narrow down.]`;
    }
    return textResult(text, details);
  },
};
