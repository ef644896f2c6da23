import { type Doc, hasMixedEols, lineRange, spliceLines } from "./doc.ts";
import { diagnoseMiss } from "./diagnose.ts";
import { applyTypographyStyle, foldTypography, hasEscapes, looseLine, stripReadPrefixes, typographyStyle, unescapeText } from "./normalize.ts";

/**
 * Finding a model's old text in a file. The exact text first; when it is not there, the copies a
 * model typically gets wrong, each accepted only when it picks out a single place and never across
 * a missing or extra line: trailing whitespace, a consistent indentation shift or tab/space swap,
 * escaped text, read's line-number prefixes, typographic characters and Unicode composition.
 */

export interface ReplaceRequest {
  old: string;
  new: string;
  /** Replace every exact occurrence instead of requiring one. */
  all?: boolean;
  /** Patch hunks: whole lines, searched from `from` (0-based) on, after an `@@` anchor line when given. */
  wholeLines?: boolean;
  from?: number;
  anchor?: string;
  /** `*** End of File`: the hunk ends at the file's last line. */
  atEnd?: boolean;
}

export interface Applied {
  /** 1-based lines of the file before the change that were replaced (an insertion: from = to + 1). */
  from: number;
  to: number;
  /** How the text was found when it was not verbatim, for the result ("matched ignoring indentation at lines 12–14"). */
  how?: string;
  count: number;
  /** 0-based line after the replacement in the changed file: where the next hunk is searched from. */
  end: number;
}

export type MatchOutcome = { ok: true; applied: Applied } | { ok: false; error: string };

interface Variant {
  old: string;
  new: string;
  note?: string;
}

/** The request as sent, then undone the ways a model's copy goes wrong, in the order tried. */
function variants(request: ReplaceRequest): Variant[] {
  const out: Variant[] = [{ old: request.old, new: request.new }];
  const escaped = hasEscapes(request.old);
  if (escaped) out.push({ old: unescapeText(request.old), new: unescapeText(request.new), note: "after unescaping \\n \\t \\\" \\' \\\\ in the old text" });
  const stripped = stripReadPrefixes(request.old);
  if (stripped) {
    const newText = request.new.replace(/^ *\d+\t/gm, "");
    const note = `after removing read's line-number prefixes (${stripped.first}–${stripped.last})`;
    out.push({ old: stripped.text, new: newText, note });
    if (escaped) out.push({ old: unescapeText(stripped.text), new: unescapeText(newText), note: `${note} and unescaping` });
  }
  return out;
}

export function lfText(doc: Doc): string {
  const last = doc.lines.length - 1;
  return doc.lines.join("\n") + (doc.eols[last] ? "\n" : "");
}

function splitRequestLines(text: string): { lines: string[]; endsWithNewline: boolean } {
  const endsWithNewline = text.endsWith("\n");
  const lines = (endsWithNewline ? text.slice(0, -1) : text).split("\n");
  return { lines, endsWithNewline };
}

/** Finds `request.old` in `doc` and replaces it with `request.new`, changing `doc` only on success. */
/**
 * The file's views the tiers search, made once per request (the file does not change until one
 * matches) rather than once per variant and tier: on a 5 MB file each costs milliseconds.
 */
class Views {
  private text?: string;
  private starts?: number[];
  private foldedText?: string;
  private readonly keys = new Map<LineTier, string[]>();

  constructor(readonly doc: Doc) {}

  lf(): string {
    this.text ??= lfText(this.doc);
    return this.text;
  }

  lineStarts(): number[] {
    this.starts ??= lineStarts(this.lf());
    return this.starts;
  }

  folded(): string {
    this.foldedText ??= foldTypography(this.lf());
    return this.foldedText;
  }

  /** Each file line's key under `tier`. */
  keysOf(tier: LineTier): string[] {
    let keys = this.keys.get(tier);
    if (!keys) {
      keys = this.doc.lines.map(tier.key);
      this.keys.set(tier, keys);
    }
    return keys;
  }
}

export function applyReplace(doc: Doc, request: ReplaceRequest): MatchOutcome {
  const normalized = { ...request, old: request.old.replaceAll("\r\n", "\n"), new: request.new.replaceAll("\r\n", "\n") };
  const all = variants(normalized);
  const views = new Views(doc);
  for (const variant of all) {
    const outcome = tryVariant(views, normalized, variant);
    if (outcome) return outcome;
  }
  return { ok: false, error: diagnoseMiss(doc, normalized.old, all.map((v) => v.old)) };
}

function tryVariant(views: Views, request: ReplaceRequest, variant: Variant): MatchOutcome | undefined {
  const substring = !request.wholeLines && variant.old !== "";
  return (substring ? exactSubstring(views, request, variant, false) : undefined) ?? lineTiers(views, request, variant) ?? (substring ? exactSubstring(views, request, variant, true) : undefined);
}

/** Offsets of the non-overlapping occurrences of `needle` in `text` from `start`. */
function occurrences(text: string, needle: string, start = 0): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle, start); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function withNote(how: string | undefined, extra: string | undefined): string | undefined {
  if (!extra) return how;
  return how ? `${how} ${extra}` : `matched ${extra}`;
}

/**
 * The old text verbatim, allowed to start and end mid-line; or, `folded`, with typographic
 * characters read as their ASCII stand-ins (the last resort).
 */
function exactSubstring(views: Views, request: ReplaceRequest, variant: Variant, folded: boolean): MatchOutcome | undefined {
  const { doc } = views;
  const text = views.lf();
  const from = request.from === undefined ? 0 : (views.lineStarts()[request.from] ?? text.length);
  const found = folded ? occurrences(views.folded(), foldTypography(variant.old), from) : occurrences(text, variant.old, from);
  if (found.length === 0) return undefined;
  const starts = views.lineStarts();
  let how: string | undefined;
  if (folded) how = "matched ignoring typographic quotes, dashes and spaces";
  else if (hasMixedEols(doc) && !variant.note) how = "matched ignoring the \\r of CRLF line endings (each line keeps its own ending)";
  if (found.length > 1 && !request.all) return ambiguous(found.map((at) => lineOf(starts, at) + 1), how ?? "exactly");
  // Last to first, so earlier offsets stay valid. What the model kept of its old text is written as the file has it.
  let out = text;
  for (const at of [...found].reverse()) {
    const own = text.slice(at, at + variant.old.length);
    out = out.slice(0, at) + (folded ? inFileStyle(own, variant.old, variant.new) : variant.new) + out.slice(at + variant.old.length);
  }
  const first = lineOf(starts, found[0]!);
  const lastAt = found[found.length - 1]!;
  const last = lineOf(starts, Math.max(lastAt, lastAt + variant.old.length - 1));
  const changed = relineFromLf(doc, out);
  how = withNote(how, variant.note);
  return {
    ok: true,
    applied: { from: first + 1, to: last + 1, count: found.length, end: changed, ...(how ? { how: `${how} at ${lineRange(first + 1, last + 1)}` } : {}) },
  };
}

/**
 * Makes `doc` hold `lf` (its "\n"-joined view after a change): lines that stayed at the start and
 * the end keep their endings, the changed lines between take the ending of the lines they replace.
 * Returns the 0-based line after the changed ones.
 */
function relineFromLf(doc: Doc, lf: string): number {
  const { lines, endsWithNewline } = splitRequestLines(lf);
  let prefix = 0;
  const max = Math.min(lines.length, doc.lines.length);
  while (prefix < max && lines[prefix] === doc.lines[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && lines[lines.length - 1 - suffix] === doc.lines[doc.lines.length - 1 - suffix]) suffix++;
  const lastEolBefore = doc.eols[doc.eols.length - 1]!;
  spliceLines(doc, prefix, doc.lines.length - suffix, lines.slice(prefix, lines.length - suffix));
  // The final newline follows the text: the model may add or remove it at the very end.
  const lastEol = doc.eols.length - 1;
  if (!endsWithNewline) doc.eols[lastEol] = "";
  else if (doc.eols[lastEol] === "") doc.eols[lastEol] = lastEolBefore || "\n";
  return lines.length - suffix;
}

/** A replacement for `own`, found by folding typography: written in the file's quote style, its unchanged ends as the file has them. */
function inFileStyle(own: string, old: string, replacement: string): string {
  const style = typographyStyle([[own, old]]);
  return keepOwnCharacters(own, applyTypographyStyle(old, style), applyTypographyStyle(replacement, style));
}

/** `replacement` with its unchanged start and end (relative to `old`) taken from the file's `own` text. */
function keepOwnCharacters(own: string, old: string, replacement: string): string {
  let prefix = 0;
  const max = Math.min(old.length, replacement.length);
  while (prefix < max && old[prefix] === replacement[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && old[old.length - 1 - suffix] === replacement[replacement.length - 1 - suffix]) suffix++;
  return own.slice(0, prefix) + replacement.slice(prefix, replacement.length - suffix) + own.slice(own.length - suffix);
}

function ambiguous(lines: number[], how: string): MatchOutcome {
  const shown = lines.slice(0, 10).join(", ") + (lines.length > 10 ? ", …" : "");
  const tolerant = how === "exactly" ? "" : ` (${how})`;
  return {
    ok: false,
    error: `the old text matches ${lines.length} times${tolerant} (at lines ${shown}). Include more surrounding lines to pick one, or set replaceAll: true to replace all of them.`,
  };
}

type LineTier = {
  name: string;
  /** What must be equal for a file line and an old line to be compared at all: a cheap first filter. */
  key(line: string): string;
  /** Compares the window at `start`; returns the replacement lines, or undefined when it does not match. */
  compare(fileLines: readonly string[], start: number, oldLines: string[], newLines: string[]): string[] | undefined;
};

const exactLines: LineTier = {
  name: "exactly",
  key: (line) => line,
  compare: (file, start, old, replacement) => (old.every((line, k) => file[start + k] === line) ? replacement : undefined),
};

const trailingWhitespace: LineTier = {
  name: "ignoring trailing whitespace",
  key: (line) => line.trimEnd(),
  compare: (file, start, old, replacement) =>
    old.every((line, k) => file[start + k]!.trimEnd() === line.trimEnd()) ? keepFileLines(file, start, old, replacement) : undefined,
};

const indentation: LineTier = {
  name: "ignoring indentation",
  key: (line) => loose(line).trim(),
  compare: (file, start, asSent, sentReplacement) => {
    const window = file.slice(start, start + asSent.length);
    const shift = indentShift(window, asSent);
    if (!shift) return undefined;
    const { old, replacement } = inFileQuotes(window, asSent, sentReplacement);
    const reindented = reindent(replacement, shift);
    return reindented && keepFileLines(file, start, old, replacement, reindented);
  },
};

const typography: LineTier = {
  name: "ignoring typographic quotes, dashes, spaces and Unicode composition",
  key: (line) => loose(line),
  compare: (file, start, asSent, sentReplacement) => {
    if (!asSent.every((line, k) => loose(file[start + k]!) === loose(line))) return undefined;
    const window = file.slice(start, start + asSent.length);
    const form = fileForm(window);
    const { old, replacement } = inFileQuotes(window, asSent, sentReplacement);
    // A changed line keeps the file's characters where it kept the old text's (start and end).
    const own = replacement.map((line, j) => {
      const fileLine = file[start + j];
      return j < old.length && fileLine !== undefined && foldTypography(fileLine) === old[j] ? keepOwnCharacters(fileLine, old[j]!, line) : line.normalize(form);
    });
    return keepFileLines(file, start, old, replacement, own);
  },
};

/** The old and new lines in the quote style of the file's `window` they matched (loosely, so quotes may differ). */
function inFileQuotes(window: string[], old: string[], replacement: string[]): { old: string[]; replacement: string[] } {
  const style = typographyStyle(window.map((line, k) => [line.normalize("NFC").trim(), old[k]!.normalize("NFC").trim()]));
  if (style.size === 0) return { old, replacement };
  const restyle = (line: string) => applyTypographyStyle(line, style);
  return { old: old.map(restyle), replacement: replacement.map(restyle) };
}

const LINE_TIERS = [exactLines, trailingWhitespace, indentation, typography];

/** looseLine, without its Unicode work for the ASCII lines that are most of any source file. */
function loose(line: string): string {
  return /[^\x00-\x7f]/.test(line) ? looseLine(line) : line.trimEnd();
}

/** Whole-line matching: the line count of the old text must match the file's exactly. */
function lineTiers(views: Views, request: ReplaceRequest, variant: Variant): MatchOutcome | undefined {
  const { doc } = views;
  const { lines: oldLines, endsWithNewline } = splitRequestLines(variant.old);
  const replacement = variant.new === "" ? (endsWithNewline || request.wholeLines ? [] : [""]) : splitRequestLines(variant.new).lines;
  const file = doc.lines;
  // A final newline is an empty last "line" in no file.
  const fileLength = doc.eols[file.length - 1] === "" && file[file.length - 1] === "" ? file.length - 1 : file.length;
  let from = request.from ?? 0;
  if (request.anchor !== undefined && request.anchor.trim() !== "") {
    const anchor = loose(request.anchor).trim();
    for (let i = from; i < fileLength; i++) {
      if (loose(file[i]!).trim() === anchor) {
        from = i + 1;
        break;
      }
    }
  }
  if (variant.old === "" || (oldLines.length === 1 && oldLines[0] === "")) {
    if (!request.wholeLines) return undefined;
    // A hunk of added lines only: they go at the end of the file (or after its anchor).
    const at = request.anchor ? from : fileLength;
    spliceLines(doc, at, at, replacement);
    return { ok: true, applied: { from: at + 1, to: at, count: 1, end: at + replacement.length } };
  }
  if (oldLines.every((line) => line.trim() === "")) return undefined;
  for (const tier of LINE_TIERS) {
    if (tier === exactLines && !request.wholeLines) continue;
    const candidates: { start: number; lines: string[] }[] = [];
    const last = fileLength - oldLines.length;
    // Only windows whose line at `probe` has the old text's key there are compared in full.
    const probe = Math.max(0, oldLines.findIndex((line) => line.trim() !== ""));
    const wanted = tier.key(oldLines[probe]!);
    const keys = views.keysOf(tier);
    for (let start = request.atEnd ? last : from; start <= last; start++) {
      if (keys[start + probe] !== wanted) continue;
      const lines = tier.compare(file, start, oldLines, replacement);
      if (lines) {
        candidates.push({ start, lines });
        if (request.wholeLines && tier === exactLines) break;
        if (candidates.length > 10) break;
      }
    }
    if (candidates.length === 0) continue;
    const how = tier === exactLines ? undefined : `matched ${tier.name}`;
    if (candidates.length > 1) return ambiguous(candidates.map((c) => c.start + 1), withNote(how, variant.note) ?? "exactly");
    const { start, lines } = candidates[0]!;
    spliceLines(doc, start, start + oldLines.length, lines);
    const note = withNote(how, variant.note);
    return {
      ok: true,
      applied: { from: start + 1, to: start + oldLines.length, count: 1, end: start + lines.length, ...(note ? { how: `${note} at ${lineRange(start + 1, start + oldLines.length)}` } : {}) },
    };
  }
  return undefined;
}

/**
 * The replacement with every line the model left as it was in its old text written as the file
 * has it (its indentation, trailing spaces and characters), so only the lines it changed change.
 */
function keepFileLines(file: readonly string[], start: number, old: string[], replacement: string[], adjusted = replacement): string[] {
  const out = [...adjusted];
  let k = 0;
  for (let j = 0; j < replacement.length; j++) {
    for (let probe = k; probe < old.length; probe++) {
      if (old[probe] === replacement[j]) {
        out[j] = file[start + probe]!;
        k = probe + 1;
        break;
      }
    }
  }
  return out;
}

interface IndentShift {
  /** Columns the file's indentation is deeper than the old text's. */
  delta: number;
  tabWidth: number;
  tabs: boolean;
  /**
   * The old text written at another indent width (4 → 2 spaces): the file's columns are `scale`
   * times the old text's columns past `from`, plus `delta` (the block's indent in the file).
   */
  scale?: number;
  from?: number;
}

function leading(line: string): string {
  return line.slice(0, line.length - line.trimStart().length);
}

function columns(indent: string, tabWidth: number): number {
  let cols = 0;
  for (const c of indent) cols += c === "\t" ? tabWidth : 1;
  return cols;
}

/** The one shift that turns every old line's indentation into the file's, or undefined. */
function indentShift(window: string[], old: string[]): IndentShift | undefined {
  for (let k = 0; k < old.length; k++) {
    const o = old[k]!;
    const f = window[k]!;
    if (o.trim() === "" ? f.trim() !== "" : loose(f).trim() !== loose(o).trim()) return undefined;
  }
  // Same indentation throughout: whatever differs, it is not the indentation.
  if (old.every((line, k) => line.trim() === "" || leading(line) === leading(window[k]!))) return undefined;
  const tabs = window.some((line) => line.trim() !== "" && leading(line).includes("\t"));
  const anyTabs = tabs || old.some((line) => leading(line).includes("\t"));
  for (const tabWidth of anyTabs ? [4, 2, 8] : [1]) {
    let delta: number | undefined;
    let consistent = true;
    for (let k = 0; k < old.length && consistent; k++) {
      if (old[k]!.trim() === "") continue;
      const d = columns(leading(window[k]!), tabWidth) - columns(leading(old[k]!), tabWidth);
      if (delta === undefined) delta = d;
      else if (d !== delta) consistent = false;
    }
    if (consistent && delta !== undefined) return { delta, tabWidth, tabs };
  }
  return anyTabs ? undefined : rescaled(window, old);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The width one indent level has in `indents` (their common divisor), or undefined when all are 0. */
function indentUnit(indents: number[]): number | undefined {
  const unit = indents.reduce(gcd, 0);
  return unit === 0 ? undefined : unit;
}

/**
 * The old text as the file's block re-indented at another width: every level scaled alike, the
 * block either where it is in the file or moved to column 0 (as a model quotes a nested block).
 * A base indent that is neither stays a mismatch (the old text says another nesting).
 */
function rescaled(window: string[], old: string[]): IndentShift | undefined {
  const rows = old.flatMap((line, k) => (line.trim() === "" ? [] : [{ old: leading(line).length, file: leading(window[k]!).length }]));
  const oldUnit = indentUnit(rows.map((r) => r.old));
  const fileUnit = indentUnit(rows.map((r) => r.file));
  if (!oldUnit || !fileUnit || oldUnit === fileUnit || oldUnit > 8 || fileUnit > 8) return undefined;
  const scale = fileUnit / oldUnit;
  const from = Math.min(...rows.map((r) => r.old));
  const base = Math.min(...rows.map((r) => r.file));
  if (from !== 0 && from * scale !== base) return undefined;
  if (!rows.every((r) => (r.old - from) * scale + base === r.file)) return undefined;
  return { delta: base, tabWidth: 1, tabs: false, scale, from };
}

/** New lines moved by the shift and written in the file's indentation style; undefined if one would go below column 0. */
function reindent(lines: string[], shift: IndentShift): string[] | undefined {
  const out: string[] = [];
  for (const line of lines) {
    if (line.trim() === "") {
      out.push("");
      continue;
    }
    const own = columns(leading(line), shift.tabWidth);
    const cols = shift.scale === undefined ? own + shift.delta : (own - shift.from!) * shift.scale + shift.delta;
    if (cols < 0 || !Number.isInteger(cols)) return undefined;
    const indent = shift.tabs ? "\t".repeat(Math.floor(cols / shift.tabWidth)) + " ".repeat(cols % shift.tabWidth) : " ".repeat(cols);
    out.push(indent + line.trimStart());
  }
  return out;
}

/** The Unicode form the file's lines are written in, so new text uses the same. */
function fileForm(lines: string[]): "NFC" | "NFD" {
  const text = lines.join("\n");
  return text !== text.normalize("NFC") && text === text.normalize("NFD") ? "NFD" : "NFC";
}
