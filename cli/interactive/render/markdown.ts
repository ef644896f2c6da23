import { type HighlightState, highlighterFor } from "./highlight.ts";
import { type Span, appendSpan, spansToString, spansWidth, visibleWidth, wrapSpans } from "./text.ts";
import type { Theme } from "./theme.ts";
import { sanitize } from "../../shared/terminal-text.ts";

/**
 * Markdown for the terminal, rendered as it streams. The source is cut into chunks at blank lines
 * and code fences; a chunk followed by such a boundary can no longer change, so it is rendered
 * once per width and its rows are stable (the transcript commits them). Only the chunk still
 * being written is rendered again on each delta.
 */
export class MarkdownStream {
  private source = "";
  private finished = false;
  /** Chunks (source lines) that a boundary has closed. */
  private readonly closed: { lines: string[]; cache?: { width: number; rows: string[] } }[] = [];
  /** Where the unclosed part of the source starts. */
  private offset = 0;
  private cache: { width: number; length: number; rows: string[]; stable: number } | undefined;

  constructor(
    private readonly theme: Theme,
    private readonly baseStyle = "",
  ) {}

  get text(): string {
    return this.source;
  }

  append(delta: string): void {
    this.source += delta;
  }

  finish(): void {
    this.finished = true;
    this.cache = undefined;
  }

  render(width: number): { rows: string[]; stable: number } {
    if (this.cache && this.cache.width === width && this.cache.length === this.source.length) return this.cache;
    const open = this.scan();
    const rows: string[] = [];
    for (const chunk of this.closed) {
      if (!chunk.cache || chunk.cache.width !== width) chunk.cache = { width, rows: renderChunk(chunk.lines, width, this.theme, this.baseStyle) };
      if (rows.length > 0) rows.push("");
      rows.push(...chunk.cache.rows);
    }
    const stable = rows.length;
    if (open.length > 0) {
      if (rows.length > 0) rows.push("");
      rows.push(...renderChunk(open, width, this.theme, this.baseStyle));
    }
    this.cache = { width, length: this.source.length, rows, stable: this.finished ? rows.length : stable };
    return this.cache;
  }

  /** Moves newly closed chunks from the open tail to `closed`; returns the lines still open. */
  private scan(): string[] {
    const tail = this.source.slice(this.offset);
    const lines = tail.split("\n");
    const partial = this.finished ? undefined : lines.pop();
    let current: string[] = [];
    let fence: string | undefined;
    let position = this.offset;
    let consumed = this.offset;
    const close = () => {
      if (current.length > 0) this.closed.push({ lines: current });
      current = [];
      consumed = position;
    };
    for (const line of lines) {
      const next = position + line.length + 1;
      if (fence !== undefined) {
        current.push(line);
        position = next;
        if (isFenceClose(line, fence)) {
          fence = undefined;
          close();
        }
        continue;
      }
      const opening = fenceOf(line);
      if (opening) {
        close();
        fence = opening;
        current.push(line);
        position = next;
        continue;
      }
      if (line.trim() === "") {
        position = next;
        close();
        continue;
      }
      current.push(line);
      position = next;
    }
    if (this.finished) {
      close();
      this.offset = this.source.length;
      return [];
    }
    this.offset = consumed;
    const open = current;
    if (partial !== undefined && partial !== "") open.push(partial);
    return open;
  }
}

function fenceOf(line: string): string | undefined {
  const match = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
  return match ? match[1] : undefined;
}

function isFenceClose(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(fence) && trimmed.replaceAll(fence[0]!, "") === "";
}

const join = (...styles: string[]) => styles.filter(Boolean).join(";");

const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Renders one chunk: a fenced code block, or a run of headings, lists, quotes, tables and paragraphs. */
function renderChunk(source: string[], width: number, theme: Theme, base = ""): string[] {
  // The model's text cannot act on the terminal (OSC 52, titles, cursor games); omp's own styles come after.
  const lines = source.map(sanitize);
  const fence = fenceOf(lines[0] ?? "");
  if (fence) return renderCode(lines, fence, width, theme, base);
  const rows: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      const style = join(base, level === 1 ? theme.fg("heading", "bold", "underline") : level === 2 ? theme.fg("heading", "bold") : theme.fg(null, "bold"));
      rows.push(...wrapSpans(inline(heading[2]!, style, theme), width).map(spansToString));
      i++;
      continue;
    }
    if (RULE.test(line)) {
      rows.push(spansToString([{ text: "─".repeat(Math.min(width, 80)), style: join(base, theme.fg("border")) }]));
      i++;
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1]!) && lines[i + 1]!.includes("-")) {
      let end = i + 2;
      while (end < lines.length && lines[end]!.includes("|")) end++;
      rows.push(...renderTable(lines.slice(i, end), width, theme, base));
      i = end;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) inner.push(QUOTE.exec(lines[i++]!)![1]!);
      const bar = spansToString([{ text: "│ ", style: theme.fg("border") }]);
      for (const row of renderChunk(inner, Math.max(1, width - 2), theme, join(base, theme.fg("muted", "italic")))) rows.push(bar + row);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      let text = item[3]!;
      const indent = item[1]!.replace(/\t/g, "    ").length;
      i++;
      // Lazy continuation: indented lines that do not start another item belong to this one.
      while (i < lines.length && /^\s+\S/.test(lines[i]!) && !LIST_ITEM.test(lines[i]!)) text += ` ${lines[i++]!.trim()}`;
      rows.push(...renderListItem(item[2]!, text, Math.floor(indent / 2), width, theme, base));
      continue;
    }
    // A paragraph: lines join with spaces, except after a hard break (two spaces or a backslash).
    let text = "";
    while (i < lines.length) {
      const current = lines[i]!;
      if (text !== "" && (HEADING.test(current) || RULE.test(current) || LIST_ITEM.test(current) || QUOTE.test(current))) break;
      if (text === "") text = current.trim();
      else text += /( {2}|\\)$/.test(lines[i - 1]!) ? `\n${current.trim()}` : ` ${current.trim()}`;
      text = text.replace(/\\$/, "");
      i++;
    }
    rows.push(...wrapSpans(inline(text, base, theme), width).map(spansToString));
  }
  return rows;
}

function renderListItem(marker: string, text: string, level: number, width: number, theme: Theme, base: string): string[] {
  const bullets = ["•", "◦", "▪"];
  let bullet = /\d/.test(marker) ? marker : bullets[level % bullets.length]!;
  let body = text;
  const task = /^\[([ xX])\]\s+(.*)$/.exec(text);
  if (task) {
    bullet = task[1] === " " ? "☐" : "☑";
    body = task[2]!;
  }
  const indent = "  ".repeat(Math.min(level, 6));
  const head = `${indent}${bullet} `;
  const hang = " ".repeat(visibleWidth(head));
  const lines = wrapSpans(inline(body, base, theme), Math.max(1, width - visibleWidth(head)));
  return lines.map((line, n) => spansToString([n === 0 ? { text: head, style: join(base, theme.fg("accent")) } : { text: hang, style: "" }, ...line]));
}

function renderCode(lines: string[], fence: string, width: number, theme: Theme, base: string): string[] {
  const info = lines[0]!.trim().slice(fence.length);
  const closed = lines.length > 1 && isFenceClose(lines[lines.length - 1]!, fence);
  const body = lines.slice(1, closed ? -1 : undefined);
  const highlighter = highlighterFor(info, theme);
  const state: HighlightState = {};
  const plainStyle = join(base, theme.fg("code"));
  const rows: string[] = [];
  const label = info.trim().split(/\s/)[0];
  if (label) rows.push(spansToString([{ text: label, style: theme.fg("dim", "italic") }]));
  for (const raw of body) {
    const text = raw.replace(/\t/g, "    ");
    const spans = highlighter ? highlighter.line(text, state).map((s) => ({ text: s.text, style: s.style || base })) : [{ text, style: plainStyle }];
    for (const row of wrapCode(spans, Math.max(1, width - 2))) rows.push(`  ${spansToString(row)}`);
  }
  return rows;
}

/** Code wraps by character, not by word: its spaces matter. */
function wrapCode(spans: Span[], width: number): Span[][] {
  if (spansWidth(spans) <= width) return [spans];
  const rows: Span[][] = [[]];
  let used = 0;
  for (const span of spans) {
    for (const char of Array.from(span.text)) {
      const w = visibleWidth(char);
      if (used + w > width) {
        rows.push([]);
        used = 0;
      }
      const row = rows[rows.length - 1]!;
      const last = row[row.length - 1];
      if (last && last.style === span.style) last.text += char;
      else row.push({ text: char, style: span.style });
      used += w;
    }
  }
  return rows;
}

function splitRow(line: string): string[] {
  let trimmed = line.trim();
  if (trimmed.startsWith("|")) trimmed = trimmed.slice(1);
  if (trimmed.endsWith("|") && !trimmed.endsWith("\\|")) trimmed = trimmed.slice(0, -1);
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, "|"));
}

function renderTable(lines: string[], width: number, theme: Theme, base: string): string[] {
  const header = splitRow(lines[0]!);
  const aligns = splitRow(lines[1]!).map((cell) => (cell.startsWith(":") && cell.endsWith(":") ? "center" : cell.endsWith(":") ? "right" : "left"));
  const body = lines.slice(2).map(splitRow);
  const columns = header.length;
  const cells = [header, ...body].map((row) => Array.from({ length: columns }, (_, c) => inline(row[c] ?? "", base, theme)));
  cells[0] = cells[0]!.map((spans) => spans.map((s) => ({ text: s.text, style: join(s.style, theme.fg(null, "bold")) })));
  const natural = Array.from({ length: columns }, (_, c) => Math.max(3, ...cells.map((row) => spansWidth(row[c]!))));
  // Borders: "│ " before each column, " │" after the last, " │ " between.
  const room = width - (3 * columns + 1);
  if (room < columns * 3) return lines.map((line) => spansToString(wrapSpans([{ text: line, style: base }], width)[0] ?? []));
  const widths = [...natural];
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    widths[widest]!--;
  }
  const border = theme.fg("border");
  const rule = (left: string, mid: string, right: string) => spansToString([{ text: left + widths.map((w) => "─".repeat(w + 2)).join(mid) + right, style: border }]);
  const rows = [rule("┌", "┬", "┐")];
  cells.forEach((row, r) => {
    const wrapped = row.map((spans, c) => wrapSpans(spans, widths[c]!));
    const height = Math.max(...wrapped.map((w) => w.length));
    for (let line = 0; line < height; line++) {
      let out = spansToString([{ text: "│", style: border }]);
      wrapped.forEach((cell, c) => {
        const content = cell[line] ?? [];
        const gap = widths[c]! - spansWidth(content);
        const align = aligns[c] ?? "left";
        const left = align === "right" ? gap : align === "center" ? Math.floor(gap / 2) : 0;
        out += ` ${" ".repeat(left)}${spansToString(content)}${" ".repeat(gap - left)} ${spansToString([{ text: "│", style: border }])}`;
      });
      rows.push(out);
    }
    if (r === 0) rows.push(rule("├", "┼", "┤"));
  });
  rows.push(rule("└", "┴", "┘"));
  return rows;
}

/** Inline markdown (code, bold, italic, strike, links) as styled spans. */
export function inline(text: string, base: string, theme: Theme): Span[] {
  const spans: Span[] = [];
  const push = (piece: string, style: string) => appendSpan(spans, piece, style);
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const ch = text[i]!;
    if (ch === "\\" && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1]!)) {
      push(text[i + 1]!, base);
      i += 2;
      continue;
    }
    if (ch === "`") {
      const ticks = /^`+/.exec(rest)![0];
      const end = text.indexOf(ticks, i + ticks.length);
      if (end !== -1) {
        push(text.slice(i + ticks.length, end).replace(/^ (.*) $/, "$1"), join(base, theme.fg("code")));
        i = end + ticks.length;
        continue;
      }
    }
    const strong = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest);
    if (strong && (strong[1] === "**" || i === 0 || !/\w/.test(text[i - 1]!))) {
      for (const span of inline(strong[2]!, join(base, theme.fg(null, "bold")), theme)) push(span.text, span.style);
      i += strong[0].length;
      continue;
    }
    const strike = /^~~(?=\S)([\s\S]*?\S)~~/.exec(rest);
    if (strike) {
      for (const span of inline(strike[1]!, join(base, theme.fg(null, "strike")), theme)) push(span.text, span.style);
      i += strike[0].length;
      continue;
    }
    const emphasis = /^([*_])(?=\S)([\s\S]*?[^\s*_])\1(?![*_\w])/.exec(rest);
    if (emphasis && (emphasis[1] === "*" || i === 0 || !/\w/.test(text[i - 1]!))) {
      for (const span of inline(emphasis[2]!, join(base, theme.fg(null, "italic")), theme)) push(span.text, span.style);
      i += emphasis[0].length;
      continue;
    }
    const link = /^\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/.exec(rest);
    if (link) {
      for (const span of inline(link[1]!, join(base, theme.fg("link", "underline")), theme)) push(span.text, span.style);
      if (link[2] !== link[1]) push(` (${link[2]})`, join(base, theme.fg("dim")));
      i += link[0].length;
      continue;
    }
    const autolink = /^<(https?:\/\/[^>\s]+)>/.exec(rest);
    if (autolink) {
      push(autolink[1]!, join(base, theme.fg("link", "underline")));
      i += autolink[0].length;
      continue;
    }
    push(ch, base);
    i++;
  }
  return spans;
}
