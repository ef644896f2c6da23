import { existsSync, statSync } from "node:fs";
import { OmpError } from "../errors/omp-error.ts";
import type { ReadRange } from "./internal-urls.ts";
import { resolveToolPath } from "./paths.ts";

/** What a `read` path names once its trailing selectors are taken off. */
export interface ReadTarget {
  /** The file on disk. */
  path: string;
  /** `a.zip:inner/path`: the archive member (or folder, ending in / or empty). */
  member?: string;
  /** `db.sqlite:table` and `db.sqlite?q=…` / `?limit=…&offset=…`. */
  sqlite?: { table?: string; params: URLSearchParams };
  /** `:N`, `:A-B`, `:A+C` (pages of a PDF, lines of anything else). */
  range?: ReadRange;
  /** `:A-B,C-D`: several line ranges, sorted and merged (a single one is `range`). */
  ranges?: LineSpan[];
  /** `:raw`: the file as text, not converted, without line numbers. */
  raw?: boolean;
  /** `:conflicts`: the file's git merge-conflict hunks. */
  conflicts?: boolean;
}

/** Lines `start` to `end` (1-based, inclusive; no end: to the end of the file). */
export interface LineSpan {
  start: number;
  end?: number;
}

/** Ranges a list may hold: each is a pass over the file. */
export const MAX_RANGES = 64;

export class SelectorError extends OmpError {}

const SELECTOR = /^L?(\d+)(?:(-|\.\.)L?(\d+)?|\+L?(\d+))?$/i;

/** `N`, `N-`, `A-B`, `A..B`, `A+C` (1-based, as the original omp takes them) as offset and limit. */
export function parseLineSelector(text: string): ReadRange | undefined {
  const match = SELECTOR.exec(text);
  if (!match) return undefined;
  const start = Number(match[1]);
  if (start < 1) throw new SelectorError(`Line selector :${text} is invalid: lines are numbered from 1.`);
  if (match[4] !== undefined) {
    const count = Number(match[4]);
    if (count < 1) throw new SelectorError(`Line selector :${text} is invalid: the count after + must be at least 1.`);
    return { offset: start, limit: count };
  }
  if (match[3] !== undefined) {
    const end = Number(match[3]);
    if (end < start) throw new SelectorError(`Line selector :${text} is invalid: the end (${end}) is before the start (${start}).`);
    return { offset: start, limit: end - start + 1 };
  }
  return { offset: start };
}

/**
 * `A-B,C-D,…` (each part as {@link parseLineSelector} takes it), sorted and merged where they
 * overlap or touch; undefined when a part is no line selector.
 */
export function parseRangeList(text: string): LineSpan[] | undefined {
  const parts = text.split(",");
  const spans: LineSpan[] = [];
  for (const part of parts) {
    const range = parseLineSelector(part.trim());
    if (!range) return undefined;
    spans.push({ start: range.offset!, ...(range.limit !== undefined ? { end: range.offset! + range.limit - 1 } : {}) });
  }
  if (spans.length > MAX_RANGES) throw new SelectorError(`Line selector :${text} has ${spans.length} ranges; at most ${MAX_RANGES} are read at once.`);
  spans.sort((a, b) => a.start - b.start);
  const merged: LineSpan[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && (last.end === undefined || span.start <= last.end + 1)) {
      if (last.end !== undefined) last.end = span.end === undefined ? undefined : Math.max(last.end, span.end);
      if (last.end === undefined) delete last.end;
    } else merged.push({ ...span });
  }
  return merged;
}

const spanRange = (span: LineSpan): ReadRange => ({ offset: span.start, ...(span.end !== undefined ? { limit: span.end - span.start + 1 } : {}) });

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const ARCHIVE = /^(.*?\.(?:zip|tar|tar\.gz|tgz))(?::(.*))?$/i;
const SQLITE = /^(.*?\.(?:sqlite|sqlite3|db|db3))(?::([^?]*))?(?:\?(.*))?$/i;

/**
 * Splits `input` into the file and its selectors. A path that exists as given always wins, so a
 * real file whose name holds a colon (or a Windows-like `C:` prefix) is read as that file.
 */
export function resolveReadTarget(cwd: string, input: string): ReadTarget {
  const whole = resolveToolPath(cwd, input);
  if (existsSync(whole)) return { path: whole };
  const sqlite = SQLITE.exec(input);
  if (sqlite && (sqlite[2] !== undefined || sqlite[3] !== undefined) && isFile(resolveToolPath(cwd, sqlite[1]))) {
    return { path: resolveToolPath(cwd, sqlite[1]), sqlite: { ...(sqlite[2] ? { table: sqlite[2] } : {}), params: new URLSearchParams(sqlite[3] ?? "") } };
  }
  let rest = input;
  let spans: LineSpan[] | undefined;
  let raw = false;
  let conflicts = false;
  for (let i = 0; i < 2; i++) {
    const colon = rest.lastIndexOf(":");
    if (colon <= 0) break;
    const suffix = rest.slice(colon + 1).toLowerCase();
    if (suffix === "raw" && !raw) raw = true;
    else if (suffix === "conflicts" && !conflicts && !spans) conflicts = true;
    else {
      const parsed = spans || conflicts ? undefined : parseRangeList(suffix);
      if (!parsed) break;
      spans = parsed;
    }
    rest = rest.slice(0, colon);
    if (existsSync(resolveToolPath(cwd, rest))) break;
  }
  const range = spans?.length === 1 ? spanRange(spans[0]!) : undefined;
  const extra = { ...(range ? { range } : {}), ...(spans && spans.length > 1 ? { ranges: spans } : {}), ...(raw ? { raw } : {}), ...(conflicts ? { conflicts } : {}) };
  const stripped = resolveToolPath(cwd, rest);
  if (rest !== input && existsSync(stripped)) return { path: stripped, ...extra };
  const archive = ARCHIVE.exec(rest);
  if (archive && archive[2] !== undefined && isFile(resolveToolPath(cwd, archive[1]))) {
    return { path: resolveToolPath(cwd, archive[1]), member: archive[2], ...extra };
  }
  return { path: whole };
}
