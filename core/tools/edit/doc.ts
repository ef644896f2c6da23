/**
 * A text file as the edit engine sees it: its lines without their endings, each line's own ending
 * (so a mixed CRLF/LF file keeps every untouched line's bytes), and its byte-order mark. Matching
 * works on the lines joined with "\n"; writing puts each line's ending back.
 */
export interface Doc {
  bom: boolean;
  lines: string[];
  /** The ending after each line: "\n", "\r\n", or "" for a last line without one. */
  eols: string[];
}

export function parseDoc(text: string): Doc {
  const bom = text.startsWith("\uFEFF");
  const body = bom ? text.slice(1) : text;
  const lines: string[] = [];
  const eols: string[] = [];
  let start = 0;
  for (let nl = body.indexOf("\n"); nl !== -1; nl = body.indexOf("\n", start)) {
    const crlf = nl > start && body.charCodeAt(nl - 1) === 13;
    lines.push(body.slice(start, crlf ? nl - 1 : nl));
    eols.push(crlf ? "\r\n" : "\n");
    start = nl + 1;
  }
  // The text after the last newline is a line only when there is some: "a\n" is one line.
  if (start < body.length || lines.length === 0) {
    lines.push(body.slice(start));
    eols.push("");
  }
  return { bom, lines, eols };
}

export function renderDoc(doc: Doc): string {
  let out = doc.bom ? "\uFEFF" : "";
  for (let i = 0; i < doc.lines.length; i++) out += doc.lines[i] + doc.eols[i]!;
  return out;
}

/** The ending most lines use, for lines added where no neighbour says otherwise. */
export function dominantEol(doc: Doc): string {
  let crlf = 0;
  let lf = 0;
  for (const eol of doc.eols) {
    if (eol === "\r\n") crlf++;
    else if (eol === "\n") lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

export function hasMixedEols(doc: Doc): boolean {
  let crlf = false;
  let lf = false;
  for (const eol of doc.eols) {
    if (eol === "\r\n") crlf = true;
    else if (eol === "\n") lf = true;
  }
  return crlf && lf;
}

/**
 * Replaces lines `from`..`to` (0-based, `to` exclusive) with `lines`. New lines take the ending
 * of the lines they replace (the last keeps the region's last ending, so a missing final newline
 * stays missing); an insertion takes its neighbours'.
 */
export function spliceLines(doc: Doc, from: number, to: number, lines: string[]): void {
  const replaced = doc.eols.slice(from, to);
  const inner = replaced.slice(0, -1).find((eol) => eol !== "") ?? replaced[0] ?? neighbourEol(doc, from);
  const eols = lines.map((_, i) => (i < lines.length - 1 ? inner || dominantEol(doc) : ""));
  if (lines.length > 0) {
    const last = to > from ? replaced[replaced.length - 1]! : neighbourEol(doc, from);
    eols[lines.length - 1] = last;
    if (to === from && from === doc.lines.length && from > 0 && doc.eols[from - 1] === "") {
      // Appending after a last line that has no newline: that line needs one now, the new last line does not.
      doc.eols[from - 1] = dominantEol(doc);
      eols[lines.length - 1] = "";
    }
  } else if (to === doc.lines.length && from > 0) {
    // Deleting the last lines: the new last line keeps the file's missing or present final newline.
    doc.eols[from - 1] = replaced[replaced.length - 1] ?? doc.eols[from - 1]!;
  }
  for (let i = 0; i < eols.length; i++) if (eols[i] === "" && i < eols.length - 1) eols[i] = dominantEol(doc);
  doc.lines.splice(from, to - from, ...lines);
  doc.eols.splice(from, to - from, ...eols);
}

function neighbourEol(doc: Doc, at: number): string {
  const before = doc.eols[at - 1];
  if (before) return before;
  return doc.eols[at] || dominantEol(doc);
}

/** Lines `from`..`to` (1-based, inclusive) numbered as read prints them. */
export function numbered(lines: readonly string[], from: number, to: number): string {
  const last = Math.min(to, lines.length);
  const out: string[] = [];
  for (let n = Math.max(1, from); n <= last; n++) out.push(`${n}\t${lines[n - 1]}`);
  return out.join("\n");
}

export function lineRange(from: number, to: number): string {
  return from === to ? `line ${from}` : `lines ${from}–${to}`;
}
