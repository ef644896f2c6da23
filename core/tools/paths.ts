import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";
import { expandHome } from "../paths.ts";
import type { ToolContext } from "./types.ts";

/**
 * Resolves a path the model gave against the session cwd. Absolute paths are taken as they are:
 * the model works on the user's machine, and approval modes, not path checks, decide what it may touch.
 */
export function resolveToolPath(cwd: string, input: string | undefined): string {
  if (input === undefined || input === "") return resolve(cwd);
  return resolve(cwd, expandHome(input));
}

/** How a path is shown back to the model: relative when inside the cwd, so it can be reused as is. */
export function displayPath(cwd: string, absolute: string): string {
  const rel = relative(resolve(cwd), absolute);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return absolute;
  return rel;
}

/** A path for a sentence: "the working directory" reads better than "." at the end of one. */
export function describeLocation(cwd: string, absolute: string): string {
  const shown = displayPath(cwd, absolute);
  return shown === "." ? "the working directory" : shown;
}

/** Edit distance, bounded: names further apart than `max` are not worth suggesting. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return previous[b.length]!;
}

function stem(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/** Names in `dir` that look like a typo of `name`, best first. */
function similarNames(dir: string, name: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const lower = name.toLowerCase();
  const max = Math.max(2, Math.floor(name.length / 4));
  const scored: { entry: string; score: number }[] = [];
  for (const entry of entries) {
    const entryLower = entry.toLowerCase();
    let score: number;
    if (entryLower === lower) score = 0;
    else if (stem(entryLower) === stem(lower)) score = 1;
    else score = 1 + distance(entryLower, lower, max);
    if (score <= max + 1) scored.push({ entry, score });
  }
  return scored.sort((a, b) => a.score - b.score || a.entry.localeCompare(b.entry)).map((s) => s.entry);
}

/**
 * An existing path that the model probably meant when `missing` does not exist: a different case,
 * extension or a small typo in one component (`src/utils/x.ts` for `src/util/x.ts`).
 */
export function suggestSimilarPath(missing: string): string | undefined {
  const root = parse(missing).root;
  const parts = missing.slice(root.length).split(sep).filter(Boolean);
  let dir = root;
  for (let i = 0; i < parts.length; i++) {
    const next = join(dir, parts[i]!);
    if (existsSync(next)) {
      dir = next;
      continue;
    }
    const rest = parts.slice(i + 1);
    for (const candidate of similarNames(dir, parts[i]!)) {
      const full = join(dir, candidate, ...rest);
      if (existsSync(full)) return full;
    }
    return undefined;
  }
  return undefined;
}

/** "File not found" text for the model, with a nearby candidate when there is one. */
export function notFoundMessage(cwd: string, absolute: string, what = "File"): string {
  const parent = dirname(absolute);
  let message = `${what} not found: ${displayPath(cwd, absolute)}`;
  const suggestion = suggestSimilarPath(absolute);
  if (suggestion) message += `. Did you mean ${displayPath(cwd, suggestion)}?`;
  else if (!isDirectory(parent)) message += ` (directory ${displayPath(cwd, parent)} does not exist either)`;
  return message;
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Why the sandbox policy refuses reading `path` now (a denied file, or a link to one); undefined: it may be read. */
export function readRefusal(context: Pick<ToolContext, "paths">, path: string): string | undefined {
  const verdict = context.paths?.check(path, "read");
  return verdict?.kind === "denied" ? verdict.message : undefined;
}

/** `path` as a glob that matches only itself: the glob characters a name may hold, escaped. */
export function globLiteral(path: string): string {
  return path.replace(/[*?[\]{}!\\]/g, "\\$&");
}
