import { folderFiles } from "../fs/folder-files.ts";
import { isAbsolute, join, relative, resolve } from "node:path";
import { errorResult, textResult } from "./format.ts";
import type { ReadRange } from "./internal-urls.ts";
import type { ReadDetails } from "./read-details.ts";
import type { ToolContext, ToolResult } from "./types.ts";

/**
 * `local://<path>`: the session's scratch folder (the original omp's scheme), for notes and shared
 * background a task's subagents read too: `<artifacts>/local/` of the top-level session, which
 * its subagents (sessions under `<artifacts>/subagents/`) share. write and read take it.
 */

const LOCAL = /^local:\/\//i;
const MAX_LISTED = 200;

export const isLocalUrl = (path: string) => LOCAL.test(path);

/** The top-level session's `local/`, from any of its agents' artifacts dirs. */
function localRoot(artifactsDir: string): string {
  let dir = artifactsDir;
  for (let match = /\/subagents\/[^/]+\/?$/.exec(dir); match; match = /\/subagents\/[^/]+\/?$/.exec(dir)) dir = dir.slice(0, match.index);
  return join(dir, "local");
}

/** The file `url` names; a string is why it names none (it leads outside the folder). */
export function localPath(artifactsDir: string, url: string): { path: string } | { error: string } {
  const inner = decodeURIComponent(url.replace(LOCAL, "")).replace(/^\/+/, "");
  const root = localRoot(artifactsDir);
  const path = resolve(root, inner);
  const within = relative(root, path);
  if (within.startsWith("..") || isAbsolute(within)) return { error: `${url} leads outside the session's local:// folder; use local://<name>.` };
  return { path };
}

/** `local://` lists the folder; `local://<path>` reads a file of it as read reads files. */
export async function readLocalUrl(url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const found = localPath(context.artifactsDir, url);
  if ("error" in found) return errorResult(found.error);
  const root = localRoot(context.artifactsDir);
  if (found.path === root) {
    const files = folderFiles(root, MAX_LISTED, 8).map((path) => `local://${path}`);
    if (files.length === 0) return textResult("The session's local:// folder is empty; write local://<name> to keep a note there.");
    return textResult(`${files.join("\n")}${files.length >= MAX_LISTED ? `\n[first ${MAX_LISTED} files]` : ""}`);
  }
  const { readTool } = await import("./read.ts");
  return readTool.execute({ path: found.path, offset: range.offset, limit: range.limit }, context);
}
