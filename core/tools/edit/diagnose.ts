import { closestRegion } from "../edit-hints.ts";
import { type Doc, numbered } from "./doc.ts";
import { firstSpecialChar, hasEscapes, hasReadPrefixes, stripReadPrefixes } from "./normalize.ts";

/**
 * Why the old text is not in the file, in terms the model can act on: the concrete difference on
 * the closest lines (an invisible \r, escapes, a curly quote and its code point, tabs against
 * spaces, read's prefixes, a line that is not there) and the file's current lines there.
 */
export function diagnoseMiss(doc: Doc, old: string, tried: string[]): string {
  const causes: string[] = [];
  if (hasReadPrefixes(old) && !stripReadPrefixes(old)) {
    causes.push("The old text carries read's line-number prefixes (`N<TAB>`) but they are not consecutive; copy the lines without the prefixes.");
  }
  const text = doc.lines.join("\n");
  let best: { from: number; to: number; score: number; needle: string } | undefined;
  for (const needle of tried) {
    const region = closestRegion(text, needle.replace(/\n$/, ""));
    if (region && (!best || region.score > best.score)) best = { ...region, needle };
  }
  // An escape sequence the file never contains was escaped by the model, not by the code.
  const escapes = hasEscapes(old) ? [...new Set(old.match(/\\["'nt]/g) ?? [])].filter((sequence) => !text.includes(sequence)) : [];
  if (escapes.length > 0) {
    causes.push(`The old text contains the escape sequence${escapes.length > 1 ? "s" : ""} ${escapes.join(" ")}, which the file does not have: send the text itself, not an escaped copy.`);
  }
  if (!best) {
    causes.push("Nothing like it is in the file; read the file again to see its current content.");
    return `the old text was not found. ${causes.join(" ")}`;
  }
  const wanted = best.needle.replace(/\n$/, "").split("\n");
  const difference = firstDifference(doc, best.from, wanted);
  if (difference) causes.push(difference);
  const from = Math.max(1, best.from - 2);
  const to = Math.min(doc.lines.length, best.to + 2);
  return `the old text was not found. ${causes.join(" ")}\nThe closest lines in the file now (${from}–${to}):\n${numbered(doc.lines, from, to)}\nCopy the old text exactly from these lines (without the line-number prefixes), or read the file again.`;
}

const show = (line: string) => JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);

/** The first line of the region that differs from the wanted text, and how. */
function firstDifference(doc: Doc, from: number, wanted: string[]): string | undefined {
  for (let k = 0; k < wanted.length; k++) {
    const n = from + k;
    const line = doc.lines[n - 1];
    const want = wanted[k]!;
    if (line === undefined) return `The old text runs past the end of the file (it has ${doc.lines.length} lines).`;
    if (line === want) continue;
    if (line.includes("\r") || want.includes("\r")) {
      return `Line ${n} ${line.includes("\r") ? "has an invisible \\r (carriage return) inside it" : "has no \\r where the old text has one"}; ${show(line)} against ${show(want)}.`;
    }
    if (line.trim() === want.trim()) {
      const fileIndent = line.slice(0, line.length - line.trimStart().length);
      const wantIndent = want.slice(0, want.length - want.trimStart().length);
      if (fileIndent.includes("\t") !== wantIndent.includes("\t")) {
        return `Line ${n} is indented with ${fileIndent.includes("\t") ? "tabs" : "spaces"} in the file and with ${wantIndent.includes("\t") ? "tabs" : "spaces"} in the old text, and the other lines do not shift consistently.`;
      }
      return `Line ${n} has other indentation or spacing in the file (${show(line)}) than in the old text (${show(want)}), and the other lines do not shift consistently.`;
    }
    const special = firstSpecialChar(line);
    const specialWant = firstSpecialChar(want);
    if (special && !specialWant) return `Line ${n} has the character ${special} where the old text has plain ASCII; the rest of the line differs too: ${show(line)} against ${show(want)}.`;
    if (specialWant && !special) return `The old text has the character ${specialWant} on its line ${k + 1}, which the file's line ${n} does not: ${show(line)} against ${show(want)}.`;
    if (k > 0 && doc.lines[n] === want) return `The file has an extra line ${n} (${show(line)}) that the old text does not; lines are never skipped when matching.`;
    if (k + 1 < wanted.length && wanted[k + 1] === line) return `The old text has a line (${show(want)}) that the file does not have before its line ${n}; lines are never skipped when matching.`;
    return `Line ${n} differs: the file has ${show(line)}, the old text has ${show(want)}.`;
  }
  return undefined;
}
