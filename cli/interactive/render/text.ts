/**
 * Measuring, cutting and wrapping terminal text. Every width in the UI goes through here, so the
 * renderer, the editor and the wrappers agree on how many cells a string takes.
 */

/** A run of text in one style: SGR parameters such as `1;38;5;33`, or "" for the terminal default. */
export interface Span {
  text: string;
  style: string;
}

/** Adds `text` in `style` to `spans`, into the last span when it has that style already. */
export function appendSpan(spans: Span[], text: string, style: string): void {
  if (text === "") return;
  const last = spans[spans.length - 1];
  if (last && last.style === style) last.text += text;
  else spans.push({ text, style });
}

const ESCAPE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Made on first use: loading the ICU break rules costs milliseconds at start-up. */
let segmenter: Intl.Segmenter | undefined;

/** Cells `text` takes on screen; escape sequences take none. */
export function visibleWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  return Bun.stringWidth(text, { countAnsiEscapeCodes: false, ambiguousIsNarrow: true });
}

/** Characters that may join their neighbours into one cluster: marks, joiners, selectors, jamo, anything astral (emoji). */
const CLUSTERING = /[\p{M}\u200c\u200d\ufe00-\ufe0f\u1100-\u11ff\u{10000}-\u{10ffff}]/u;

/** User-perceived characters: what one cursor step or one backspace moves over. */
export function graphemes(text: string): string[] {
  if (!CLUSTERING.test(text)) return text.split("");
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** `text` in `style`, closed again, so every line stands on its own when redrawn alone. */
export function paint(text: string, style: string): string {
  return style === "" || text === "" ? text : `\x1b[${style}m${text}\x1b[0m`;
}

export function spansToString(spans: readonly Span[]): string {
  let out = "";
  for (const span of spans) out += paint(span.text, span.style);
  return out;
}

export function spansWidth(spans: readonly Span[]): number {
  let width = 0;
  for (const span of spans) width += visibleWidth(span.text);
  return width;
}

/**
 * A rendered line cut to `width` cells, escape sequences kept (and closed). The renderer's last
 * guard: components are expected to fit already.
 */
export function truncateLine(line: string, width: number, ellipsis = ""): string {
  if (visibleWidth(line) <= width) return line;
  const room = Math.max(0, width - visibleWidth(ellipsis));
  let out = "";
  let used = 0;
  let last = 0;
  let styled = false;
  const take = (text: string): boolean => {
    for (const g of graphemes(text)) {
      const w = visibleWidth(g);
      if (used + w > room) return false;
      out += g;
      used += w;
    }
    return true;
  };
  for (const match of line.matchAll(ESCAPE)) {
    if (!take(line.slice(last, match.index))) return `${out}${styled ? "\x1b[0m" : ""}${ellipsis}`;
    out += match[0];
    if (match[0].startsWith("\x1b[") && match[0].endsWith("m")) styled = match[0] !== "\x1b[0m" && match[0] !== "\x1b[m";
    last = match.index + match[0].length;
  }
  take(line.slice(last));
  return `${out}${styled ? "\x1b[0m" : ""}${ellipsis}`;
}

/** Plain text cut to `width` cells with an ellipsis when it does not fit. */
export function truncateText(text: string, width: number): string {
  if (visibleWidth(text) <= width) return text;
  if (width <= 0) return "";
  let out = "";
  let used = 0;
  for (const g of graphemes(text)) {
    const w = visibleWidth(g);
    if (used + w > width - 1) break;
    out += g;
    used += w;
  }
  return `${out}…`;
}

/** Styled spans cut to `width` cells, the last one with an ellipsis when something was cut. */
export function fitSpans(spans: readonly Span[], width: number): Span[] {
  const out: Span[] = [];
  let used = 0;
  for (const span of spans) {
    const room = width - used;
    if (room <= 0) break;
    const text = truncateText(span.text, room);
    out.push({ text, style: span.style });
    used += visibleWidth(text);
  }
  return out;
}

/** Pads with spaces to exactly `width` cells (after truncating). */
export function padText(text: string, width: number): string {
  const cut = truncateText(text, width);
  return cut + " ".repeat(Math.max(0, width - visibleWidth(cut)));
}

interface Piece {
  text: string;
  style: string;
  width: number;
}

/**
 * Greedy word wrap of styled text into lines of at most `width` cells. Words longer than a line
 * are broken by character; `\n` starts a new line; spaces at a wrap point are dropped. Greedy
 * wrapping never changes a line once text after it arrives, which is what lets a streaming reply
 * commit its finished lines.
 */
export function wrapSpans(spans: readonly Span[], width: number): Span[][] {
  const lines: Span[][] = [];
  let line: Piece[] = [];
  let lineWidth = 0;
  let word: Piece[] = [];
  let wordWidth = 0;
  let spaces: Piece[] = [];
  let spacesWidth = 0;
  const cells = Math.max(1, width);

  const endLine = () => {
    lines.push(merge(line));
    line = [];
    lineWidth = 0;
  };
  const flushWord = () => {
    if (word.length === 0) return;
    if (lineWidth + spacesWidth + wordWidth <= cells) {
      line.push(...spaces, ...word);
      lineWidth += spacesWidth + wordWidth;
    } else {
      if (lineWidth > 0) endLine();
      for (const piece of word) {
        if (lineWidth + piece.width > cells && lineWidth > 0) endLine();
        line.push(piece);
        lineWidth += piece.width;
      }
    }
    word = [];
    wordWidth = 0;
    spaces = [];
    spacesWidth = 0;
  };

  for (const span of spans) {
    for (const g of graphemes(span.text)) {
      if (g === "\n") {
        flushWord();
        spaces = [];
        spacesWidth = 0;
        endLine();
      } else if (g === " ") {
        flushWord();
        spaces.push({ text: " ", style: span.style, width: 1 });
        spacesWidth++;
      } else {
        const w = visibleWidth(g);
        word.push({ text: g, style: span.style, width: w });
        wordWidth += w;
      }
    }
  }
  flushWord();
  // Trailing spaces are kept when they fit: the editor's cursor sits after them.
  if (spaces.length > 0 && lineWidth + spacesWidth <= cells) line.push(...spaces);
  if (line.length > 0 || lines.length === 0) endLine();
  return lines;
}

function merge(pieces: Piece[]): Span[] {
  const out: Span[] = [];
  for (const piece of pieces) {
    const last = out[out.length - 1];
    if (last && last.style === piece.style) last.text += piece.text;
    else out.push({ text: piece.text, style: piece.style });
  }
  return out;
}

/** Wraps plain or styled text and gives every line a prefix (the first line its own). */
export function wrapWithPrefix(spans: readonly Span[], width: number, first: Span[], rest: Span[] = first): string[] {
  const prefixWidth = Math.max(spansWidth(first), spansWidth(rest));
  return wrapSpans(spans, Math.max(1, width - prefixWidth)).map((line, i) => spansToString([...(i === 0 ? first : rest), ...line]));
}
