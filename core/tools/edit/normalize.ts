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
