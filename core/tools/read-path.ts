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
  /** `:raw`: the file as text, not converted. */
  raw?: boolean;
}

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
  let range: ReadRange | undefined;
  let raw = false;
  for (let i = 0; i < 2; i++) {
    const colon = rest.lastIndexOf(":");
    if (colon <= 0) break;
    const suffix = rest.slice(colon + 1);
    if (suffix.toLowerCase() === "raw") raw = true;
    else {
      const parsed = range ? undefined : parseLineSelector(suffix);
      if (!parsed) break;
      range = parsed;
    }
    rest = rest.slice(0, colon);
    if (existsSync(resolveToolPath(cwd, rest))) break;
  }
  const extra = { ...(range ? { range } : {}), ...(raw ? { raw } : {}) };
  const stripped = resolveToolPath(cwd, rest);
  if (rest !== input && existsSync(stripped)) return { path: stripped, ...extra };
  const archive = ARCHIVE.exec(rest);
  if (archive && archive[2] !== undefined && isFile(resolveToolPath(cwd, archive[1]))) {
    return { path: resolveToolPath(cwd, archive[1]), member: archive[2], ...extra };
  }
  return { path: whole };
}
