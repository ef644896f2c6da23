import { type UnifiedDiff, unifiedDiff } from "../diff.ts";
import type { LinesOp, TextOp } from "./changes.ts";

/**
 * The common case without building a line model of the whole file: an LF file and requests whose
 * text is there verbatim (or line numbers in range). A 5 MB file is then a few indexOf calls and
 * one splice; anything else (CR in the file, a miss, an ambiguity, a range to check) returns
 * undefined and takes the full engine, which also words the errors.
 */

export interface FastResult {
  text: string;
  /** 1-based line ranges changed, for the stale-read check. */
  touched: [number, number][];
}

function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

export function fastApply(body: string, ops: TextOp[]): FastResult | undefined {
  if (body.includes("\r")) return undefined;
  const lineOps = ops.filter((op): op is LinesOp => op.kind === "lines");
  if (lineOps.length > 0) return lineOps.length === ops.length ? fastLines(body, lineOps) : undefined;
  let text = body;
  let cursor = 0;
  const touched: [number, number][] = [];
  for (const op of ops) {
    if (op.kind !== "replace" || op.old === "" || op.old === op.new || op.anchor !== undefined || op.atEnd || op.from !== undefined) return undefined;
    if (op.wholeLines) {
      // The first occurrence from the cursor on that starts a line, as the full engine takes it.
      let at = text.indexOf(op.old, cursor);
      while (at > 0 && text.charCodeAt(at - 1) !== 10) at = text.indexOf(op.old, at + 1);
      if (at === -1) return undefined;
      const line = lineNumberAt(text, at);
      touched.push([line, line + op.old.split("\n").length - 2]);
      text = text.slice(0, at) + op.new + text.slice(at + op.old.length);
      cursor = at + op.new.length;
      continue;
    }
    const first = text.indexOf(op.old);
    if (first === -1) return undefined;
    const second = text.indexOf(op.old, first + op.old.length);
    if (second !== -1 && !op.all) return undefined;
    const line = lineNumberAt(text, first);
    touched.push([line, line + op.old.split("\n").length - 1]);
    text = op.all ? text.split(op.old).join(op.new) : text.slice(0, first) + op.new + text.slice(first + op.old.length);
  }
  return { text, touched };
}

/** Hashline ranges on a file that ends with a newline; overlaps and bad ranges go to the full engine. */
function fastLines(body: string, ops: LinesOp[]): FastResult | undefined {
  if (!body.endsWith("\n")) return undefined;
  // Line starts as far as the ranges reach (the whole file only for INS.TAIL).
  const tail = ops.some((op) => op.tail);
  const reach = Math.max(...ops.map((op) => op.to + 1));
  const starts = [0];
  for (let i = body.indexOf("\n"); i !== -1 && (tail || starts.length <= reach); i = body.indexOf("\n", i + 1)) starts.push(i + 1);
  const complete = starts[starts.length - 1] === body.length;
  const count = complete ? starts.length - 1 : Number.POSITIVE_INFINITY;
  const resolved = ops.map((op) => (op.tail ? { ...op, from: count + 1, to: count } : op)).sort((a, b) => a.from - b.from || a.to - b.to);
  for (const [i, op] of resolved.entries()) {
    if (op.from < 1 || op.to > count || op.to < op.from - 1) return undefined;
    const next = resolved[i + 1];
    if (next && next.from <= op.to) return undefined;
  }
  let text = body;
  for (const op of [...resolved].reverse()) {
    text = text.slice(0, starts[op.from - 1]) + op.lines.map((line) => `${line}\n`).join("") + text.slice(starts[op.to]);
  }
  return { text, touched: resolved.map((op) => [op.from, Math.max(op.from, op.to)]) };
}

const CONTEXT = 3;
/** Compared a chunk at a time (a native compare) before the character loop: a 5 MB file in a few ms. */
const CHUNK = 4096;

function commonPrefix(a: string, b: string, max: number): number {
  let at = 0;
  while (at + CHUNK <= max && a.slice(at, at + CHUNK) === b.slice(at, at + CHUNK)) at += CHUNK;
  while (at < max && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}

function commonSuffix(a: string, b: string, max: number): number {
  let n = 0;
  while (n + CHUNK <= max && a.slice(a.length - n - CHUNK, a.length - n) === b.slice(b.length - n - CHUNK, b.length - n)) n += CHUNK;
  while (n < max && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

/**
 * A unified diff of two versions of a big text that differ in one stretch: only that stretch and
 * its context are diffed, and the hunk headers are moved to the real line numbers.
 */
export function windowedDiff(before: string, after: string, path: string): UnifiedDiff {
  const max = Math.min(before.length, after.length);
  const prefix = commonPrefix(before, after, max);
  if (prefix === before.length && prefix === after.length) return { text: "", added: 0, removed: 0 };
  const suffix = commonSuffix(before, after, max - prefix);
  // Back to the start of the first changed line and CONTEXT lines more; forward likewise after the last.
  let start = before.lastIndexOf("\n", prefix - 1) + 1;
  for (let lines = 0; lines < CONTEXT && start > 0; lines++) start = start === 1 ? 0 : before.lastIndexOf("\n", start - 2) + 1;
  let endBefore = before.length - suffix;
  let endAfter = after.length - suffix;
  for (let lines = 0; lines <= CONTEXT && endBefore < before.length; lines++) {
    const next = before.indexOf("\n", endBefore);
    if (next === -1) {
      endAfter += before.length - endBefore;
      endBefore = before.length;
      break;
    }
    endAfter += next + 1 - endBefore;
    endBefore = next + 1;
  }
  const offset = lineNumberAt(before, start) - 1;
  const diff = unifiedDiff(before.slice(start, endBefore), after.slice(start, endAfter), path);
  if (offset === 0) return diff;
  const text = diff.text.replace(/^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@/gm, (_, a: string, b = "", c: string, d = "") => `@@ -${Number(a) + offset}${b} +${Number(c) + offset}${d} @@`);
  return { ...diff, text, ...(diff.firstChangedLine === undefined ? {} : { firstChangedLine: diff.firstChangedLine + offset }) };
}
