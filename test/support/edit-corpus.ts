import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseDoc } from "../../core/tools/edit/doc.ts";
import { CASES, type CorpusCase } from "../fixtures/edit-corpus/cases.ts";

/**
 * The edit corpus (test/fixtures/edit-corpus/cases.ts) as files on disk and as requests in every
 * edit format, and the judge that scores what became of each file: applied as expected, refused
 * with the file untouched, or damaged.
 */

export { CASES };
export const FORMATS = ["replace", "patch", "hashline", "apply_patch"] as const;
export type Format = (typeof FORMATS)[number];
export type Outcome = "applied" | "refused" | "damaged" | "n/a";

/** Where a case's file lives, relative to the corpus directory: each case has a folder of its own. */
export function casePath(c: CorpusCase): string {
  return `${c.name}/${c.file}`;
}

function realFile(dir: string, c: CorpusCase): string {
  return join(dir, c.name, c.linkTo ?? c.file);
}

/** Writes the case's file as the model read it (mode, symlink included). */
export function setUpCase(dir: string, c: CorpusCase): void {
  const path = join(dir, casePath(c));
  mkdirSync(dirname(path), { recursive: true });
  if (c.name === "create-missing") return;
  writeFileSync(realFile(dir, c), c.before);
  if (c.linkTo) symlinkSync(c.linkTo, path);
  if (c.mode !== undefined) chmodSync(realFile(dir, c), c.mode);
}

/** The file as it stands when the edit arrives: changed on disk after the read, for the stale cases. */
export function currentBefore(c: CorpusCase): string {
  return c.changedAfterRead ?? c.before;
}

function lines(text: string): string[] {
  return parseDoc(text).lines;
}

/** Lines `from`..`to` of `before` (1-based) that differ from `after`, and what `after` has there. */
function changedRegion(before: string, after: string): { from: number; to: number; body: string[] } {
  const a = lines(before);
  const b = lines(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return { from: prefix + 1, to: a.length - suffix, body: b.slice(prefix, b.length - suffix) };
}

/** The first line of `before` holding the old text's first line (for hashline refusals, which have no expected file). */
function oldLine(c: CorpusCase): number {
  const first = c.old.split("\n")[0]!.trim();
  return Math.max(1, lines(c.before).findIndex((line) => line.trim() === first) + 1);
}

function split(text: string): string[] {
  const rows = text.replaceAll("\r\n", "\n").split("\n");
  if (rows.length > 1 && rows[rows.length - 1] === "") rows.pop();
  return rows;
}

/** One hunk: the lines old and new share at their start and end as context, the rest removed and added. */
function hunk(c: CorpusCase): string[] {
  const old = split(c.old);
  const added = split(c.new);
  let prefix = 0;
  while (prefix < old.length - 1 && prefix < added.length && old[prefix] === added[prefix]) prefix++;
  let suffix = 0;
  while (suffix < old.length - prefix - 1 && suffix < added.length - prefix && old[old.length - 1 - suffix] === added[added.length - 1 - suffix]) suffix++;
  return [
    ...old.slice(0, prefix).map((line) => ` ${line}`),
    ...old.slice(prefix, old.length - suffix).map((line) => `-${line}`),
    ...added.slice(prefix, added.length - suffix).map((line) => `+${line}`),
    ...old.slice(old.length - suffix).map((line) => ` ${line}`),
  ];
}

/** The tool call a model using `format` makes for this case; undefined when the format has no such request. */
export function requestFor(c: CorpusCase, format: Format): { name: string; arguments: Record<string, unknown> } | undefined {
  const path = casePath(c);
  const create = c.old === "" && c.name === "create-missing";
  switch (format) {
    case "replace":
      return { name: "edit", arguments: { path, edits: [{ oldText: c.old, newText: c.new, ...(c.replaceAll ? { replaceAll: true } : {}) }] } };
    case "patch":
      if (create) return { name: "edit", arguments: { path, op: "create", diff: c.new } };
      return { name: "edit", arguments: { path, diff: ["@@", ...hunk(c)].join("\n") } };
    case "apply_patch": {
      const body = create ? [`*** Add File: ${path}`, ...split(c.new).map((line) => `+${line}`)] : [`*** Update File: ${path}`, "@@", ...hunk(c)];
      return { name: "apply_patch", arguments: { input: ["*** Begin Patch", ...body, "*** End Patch"].join("\n") } };
    }
    case "hashline": {
      if (c.hashline === "n/a") return undefined;
      const region =
        c.expected === "refuse" ? { from: oldLine(c), to: oldLine(c), body: ["changed"] } : changedRegion(currentBefore(c), c.expected);
      // The same slip as in the old text: read's prefixes copied into the body rows.
      const prefixed = c.kind === "read prefixes";
      const body = region.body.map((line, i) => `+${prefixed ? `${String(region.from + i).padStart(6)}\t` : ""}${line}`);
      const op = region.to < region.from ? `INS.PRE ${region.from}:` : body.length === 0 ? `DEL ${region.from}.=${region.to}` : `SWAP ${region.from}.=${region.to}:`;
      return { name: "edit", arguments: { input: [`[${path}]`, op, ...body].join("\n") } };
    }
  }
}

/** What became of the case: `result` is the tool result's text, `isError` when the wire says so. */
export function judge(dir: string, c: CorpusCase, result: { text: string; isError?: boolean } | undefined): Outcome {
  const path = join(dir, casePath(c));
  const target = realFile(dir, c);
  const original = c.name === "create-missing" ? undefined : currentBefore(c);
  const actual = existsSync(target) ? readFileSync(target, "utf8") : undefined;
  const modeKept = c.mode === undefined || !existsSync(target) || (statSync(target).mode & 0o777) === c.mode;
  const linkKept = !c.linkTo || lstatSync(path).isSymbolicLink();
  const reportedFailure = result !== undefined && (result.isError === true || !/^(Edited|Created|Deleted) /.test(result.text));
  if (actual === original && modeKept && linkKept) return reportedFailure ? "refused" : "damaged";
  if (c.expected !== "refuse" && actual === c.expected && modeKept && linkKept && !reportedFailure) return "applied";
  return "damaged";
}

export interface Score {
  applied: number;
  refused: number;
  damaged: number;
  na: number;
  damagedCases: string[];
  refusedCases: string[];
}

export function score(outcomes: Map<string, Outcome>): Score {
  const s: Score = { applied: 0, refused: 0, damaged: 0, na: 0, damagedCases: [], refusedCases: [] };
  for (const [name, outcome] of outcomes) {
    if (outcome === "applied") s.applied++;
    else if (outcome === "refused") {
      s.refused++;
      s.refusedCases.push(name);
    } else if (outcome === "damaged") {
      s.damaged++;
      s.damagedCases.push(name);
    } else s.na++;
  }
  return s;
}
