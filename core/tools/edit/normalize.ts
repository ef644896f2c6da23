/**
 * The ways a model's copy of file text differs from the file without being a different text:
 * typographic characters, JSON-style escapes, and read's line-number prefixes. Each is undone only
 * when the whole request shows it, and the matcher says which one it undid.
 */

/** Typographic characters and the ASCII a model writes for them; one UTF-16 unit each, so offsets survive folding. */
const TYPOGRAPHIC: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2212": "-",
  "\u00A0": " ",
  "\u2007": " ",
  "\u2009": " ",
  "\u202F": " ",
  "\u3000": " ",
};
const TYPOGRAPHIC_RE = /[\u2018\u2019\u201A\u201B\u2032\u201C-\u201F\u2033\u2010-\u2014\u2212\u00A0\u2007\u2009\u202F\u3000]/g;

/** Same length as `text`: each typographic character replaced by its ASCII stand-in. */
export function foldTypography(text: string): string {
  return text.replace(TYPOGRAPHIC_RE, (c) => TYPOGRAPHIC[c]!);
}

/** The first typographic or non-NFC character of `text`, named with its code point. */
export function firstSpecialChar(text: string): string | undefined {
  for (const c of text) {
    if (TYPOGRAPHIC[c] !== undefined) return `${c} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`;
  }
  if (text !== text.normalize("NFC")) return "a decomposed accent (Unicode NFD)";
  return undefined;
}

/** A line compared with typography, Unicode composition and trailing whitespace set aside. */
export function looseLine(line: string): string {
  return foldTypography(line.normalize("NFC")).trimEnd();
}

const ESCAPE_RE = /\\(["'\\nt])/g;
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", '"': '"', "'": "'", "\\": "\\" };

/** `\n \t \" \' \\` as a model writes them when it escaped its text once too often. */
export function hasEscapes(text: string): boolean {
  return /\\["'nt]/.test(text);
}

export function unescapeText(text: string): string {
  return text.replace(ESCAPE_RE, (_, c: string) => ESCAPES[c]!);
}

const PREFIX_RE = /^ *(\d+)\t/;

/**
 * `text` without read's `N<TAB>` prefixes, when every line carries one and the numbers run
 * consecutively (a blank trailing line aside); otherwise undefined. `first` is the first number.
 */
export function stripReadPrefixes(text: string): { text: string; first: number; last: number } | undefined {
  const lines = text.split("\n");
  const trailing = lines.length > 1 && lines[lines.length - 1] === "";
  const body = trailing ? lines.slice(0, -1) : lines;
  const out: string[] = [];
  let first = -1;
  for (const [i, line] of body.entries()) {
    const match = PREFIX_RE.exec(line);
    if (!match) return undefined;
    const n = Number(match[1]);
    if (i === 0) first = n;
    else if (n !== first + i) return undefined;
    out.push(line.slice(match[0].length));
  }
  if (body.length === 0) return undefined;
  return { text: out.join("\n") + (trailing ? "\n" : ""), first, last: first + body.length - 1 };
}

/** Whether the lines carry read's prefixes at all (consecutive or not), for explaining a miss. */
export function hasReadPrefixes(text: string): boolean {
  const lines = text.split("\n").filter((line) => line !== "");
  return lines.length > 0 && lines.every((line) => PREFIX_RE.test(line));
}

/** Per ASCII stand-in (`"`, `'`, `-`, space): whether the file writes it plain where the model typed it typographically, or the reverse. */
export type TypographyStyle = Map<string, "plain" | "typographic">;

/**
 * How the file writes the characters its text and the model's copy of it (equal once folded, and
 * of equal length) disagree on. A model that matched only by folding quotes must not bring its
 * curly quotes into code, nor its straight quotes into prose set with curly ones.
 */
export function typographyStyle(pairs: Iterable<[file: string, model: string]>): TypographyStyle {
  const style: TypographyStyle = new Map();
  for (const [file, model] of pairs) {
    if (file.length !== model.length) continue;
    for (let i = 0; i < file.length; i++) {
      const f = file[i]!;
      const m = model[i]!;
      if (f === m) continue;
      const plain = TYPOGRAPHIC[m] !== undefined && TYPOGRAPHIC[f] === undefined;
      style.set(foldTypography(f), plain ? "plain" : "typographic");
    }
  }
  // Single and double quotes go together: a file that writes one kind straight writes both so.
  const single = style.get("'");
  const double = style.get('"');
  if (single && !double) style.set('"', single);
  if (double && !single) style.set("'", double);
  return style;
}

const OPENS_QUOTE = /[\s([{<\u2014\u2013-]/;

/**
 * `text` written in the file's style: typographic characters the file writes plain are folded,
 * and straight quotes the file sets curly become opening or closing ones by what precedes them.
 */
export function applyTypographyStyle(text: string, style: TypographyStyle): string {
  if (style.size === 0) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const folded = TYPOGRAPHIC[c];
    if (folded !== undefined && style.get(folded) === "plain") out += folded;
    else if ((c === '"' || c === "'") && style.get(c) === "typographic") {
      const opening = i === 0 || OPENS_QUOTE.test(text[i - 1]!);
      out += c === '"' ? (opening ? "\u201C" : "\u201D") : opening ? "\u2018" : "\u2019";
    } else out += c;
  }
  return out;
}
