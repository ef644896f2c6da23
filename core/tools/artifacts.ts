import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorResult, textResult } from "./format.ts";
import type { ReadRange } from "./internal-urls.ts";
import { readTextOf } from "./read.ts";
import type { ToolContext, ToolResult } from "./types.ts";
import type { ReadDetails } from "./read-details.ts";
import { dirNames } from "../fs/dir-names.ts";

/** What bash and other tools save as `<tool>-<n>.log` in the session's artifacts dir. */
const ARTIFACT = /^([a-z][\w-]*?)-(\d+)\.log$/;

function artifacts(dir: string): { id: string; tool: string; file: string }[] {
  return dirNames(dir).flatMap((file) => {
    const match = ARTIFACT.exec(file);
    return match ? [{ id: match[2]!, tool: match[1]!, file }] : [];
  }).sort((a, b) => Number(a.id) - Number(b.id));
}

/** `artifact://<id>` (or `artifact://bash-<id>`): a saved tool output of this session, such as bash's full output log. */
export async function readArtifact(url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const wanted = url.replace(/^artifact:\/\//i, "").replace(/^\/+|\/+$/g, "");
  const all = artifacts(context.artifactsDir);
  if (wanted === "") {
    if (all.length === 0) return textResult("This session has saved no tool output yet (artifact:// is empty).");
    return textResult(`Saved tool outputs of this session:\n${all.map((a) => `artifact://${a.id} (${a.tool})`).join("\n")}`);
  }
  const match = all.find((a) => a.id === wanted || `${a.tool}-${a.id}` === wanted);
  if (!match) {
    return errorResult(`There is no artifact://${wanted} in this session.${all.length > 0 ? ` Saved: ${all.map((a) => `artifact://${a.id}`).join(", ")}.` : " It has saved no tool output yet."}`);
  }
  return readTextOf(`artifact://${match.id}`, await readFile(join(context.artifactsDir, match.file), "utf8"), range);
}
