import { readFileSync, statSync } from "node:fs";
import { type ConflictHunk, parseConflicts } from "../git/conflict-hunks.ts";
import { formatBytes } from "../format-bytes.ts";
import { plural } from "../plural.ts";
import { errorResult, textResult } from "./format.ts";
import type { ReadRange } from "./internal-urls.ts";
import { displayPath, readRefusal } from "./paths.ts";
import type { ReadDetails } from "./read-details.ts";
import { readTextOf } from "./read.ts";
import type { ToolContext, ToolResult } from "./types.ts";

/**
 * `read file:conflicts` and `conflict://<id>`: each merge-conflict hunk read gets an id for the
 * session, so `resolve` can name it. A hunk is found again by its text, not its line, so
 * resolving one leaves the others' ids good.
 */

/** Files past this are not scanned: a conflicted source file is far smaller. */
export const MAX_CONFLICT_FILE_BYTES = 16 * 1024 * 1024;
/** The listing's text; past it, the rest of the hunks are named only. */
const MAX_LISTING_CHARS = 200_000;

export interface RecordedConflict extends ConflictHunk {
  id: number;
  path: string;
}

interface Registry {
  next: number;
  byId: Map<number, RecordedConflict>;
}

const registries = new WeakMap<object, Registry>();
const processScope = {};

function registryOf(context: Pick<ToolContext, "jobScope">): Registry {
  const scope = context.jobScope ?? processScope;
  let registry = registries.get(scope);
  if (!registry) registries.set(scope, (registry = { next: 1, byId: new Map() }));
  return registry;
}

const sameHunk = (a: ConflictHunk, b: ConflictHunk) => a.lines.length === b.lines.length && a.lines.every((line, i) => b.lines[i] === line);

/** Gives each hunk its id: the one it had when read before (same file, same text), else a new one. */
function record(context: Pick<ToolContext, "jobScope">, path: string, hunks: ConflictHunk[]): RecordedConflict[] {
  const registry = registryOf(context);
  const known = [...registry.byId.values()].filter((conflict) => conflict.path === path);
  return hunks.map((hunk) => {
    const same = known.find((conflict) => sameHunk(conflict, hunk));
    const recorded: RecordedConflict = { ...hunk, id: same?.id ?? registry.next++, path };
    registry.byId.set(recorded.id, recorded);
    return recorded;
  });
}

export function recordedConflict(context: Pick<ToolContext, "jobScope">, id: number): RecordedConflict | undefined {
  return registryOf(context).byId.get(id);
}

export function forgetConflict(context: Pick<ToolContext, "jobScope">, id: number): void {
  registryOf(context).byId.delete(id);
}

/** The file's text for a conflict scan or a resolve; a string is why it cannot be read. */
export function conflictFileText(path: string, shown: string): string | { error: string } {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { error: `${shown} does not exist.` };
  }
  if (size > MAX_CONFLICT_FILE_BYTES) return { error: `${shown} is ${formatBytes(size)}; conflicts are looked for in files up to ${formatBytes(MAX_CONFLICT_FILE_BYTES)}.` };
  return readFileSync(path, "utf8");
}

const labelOf = (label: string) => (label === "" ? "" : ` ${label}`);

function describe(conflict: RecordedConflict, shown: string): string {
  const sides = `ours${labelOf(conflict.oursLabel)}, theirs${labelOf(conflict.theirsLabel)}${conflict.base ? `, base${labelOf(conflict.baseLabel ?? "")}` : ""}`;
  return `conflict://${conflict.id} (${shown} lines ${conflict.startLine}-${conflict.endLine}; ${sides})`;
}

/** `read file:conflicts`: the file's hunks, each under its id. The path is checked by read. */
export function readConflicts(path: string, context: ToolContext): ToolResult<ReadDetails> {
  const shown = displayPath(context.cwd, path);
  const text = conflictFileText(path, shown);
  if (typeof text !== "string") return errorResult(text.error);
  const conflicts = record(context, path, parseConflicts(text));
  if (conflicts.length === 0) return textResult(`${shown} has no merge-conflict markers (<<<<<<< … ======= … >>>>>>>).`);
  const parts: string[] = [];
  let chars = 0;
  let shownCount = 0;
  for (const conflict of conflicts) {
    const part = `${describe(conflict, shown)}\n${conflict.lines.map((line) => line.replace(/\r$/, "")).join("\n")}`;
    if (chars + part.length > MAX_LISTING_CHARS && shownCount > 0) break;
    parts.push(part);
    chars += part.length;
    shownCount++;
  }
  const rest = conflicts.slice(shownCount).map((conflict) => `conflict://${conflict.id}`);
  const header = `${shown}: ${plural(conflicts.length, "unresolved conflict")}. resolve {path: "conflict://<id>", pick: ours|theirs|both|base|edited} settles one; read conflict://<id>/ours (theirs, base) shows a side.`;
  const tail = rest.length > 0 ? `\n\n[Not shown (output size limit): ${rest.join(", ")}; read each by its id.]` : "";
  return textResult(`${header}\n\n${parts.join("\n\n")}${tail}`);
}

const CONFLICT_URL = /^conflict:\/\/(\d+)(?:\/(ours|theirs|base))?\/?$/i;

/** `conflict://<id>` (the hunk) and `conflict://<id>/ours|theirs|base` (one side), paged like text. */
export async function readConflictUrl(url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const match = CONFLICT_URL.exec(url);
  if (!match) return errorResult(`${url} is not a conflict URL: use conflict://<id>, or conflict://<id>/ours, /theirs or /base (ids come from read <file>:conflicts).`);
  const conflict = recordedConflict(context, Number(match[1]));
  if (!conflict) return errorResult(`There is no conflict://${match[1]} in this session: read <file>:conflicts first; it lists each hunk's id.`);
  const refused = readRefusal(context, conflict.path);
  if (refused !== undefined) return errorResult(refused);
  const side = match[2]?.toLowerCase() as "ours" | "theirs" | "base" | undefined;
  if (side === "base" && !conflict.base) return errorResult(`conflict://${conflict.id} has no base section (the merge did not use diff3 markers).`);
  const lines = side ? conflict[side]! : conflict.lines;
  const text = lines.map((line) => line.replace(/\r$/, "")).join("\n");
  if (text === "") return textResult(`conflict://${conflict.id}${side ? `/${side}` : ""} is empty (that side removes the lines).`);
  return readTextOf(`conflict://${conflict.id}${side ? `/${side}` : ""}`, text, range);
}
