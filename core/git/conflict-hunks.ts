/**
 * Git's merge-conflict markers in a file's text: `<<<<<<< ours`, an optional `||||||| base`
 * section (merge.conflictStyle diff3 or zdiff3), `=======`, `>>>>>>> theirs`. A marker run that
 * does not close is not a conflict (a file that merely shows markers, like this comment).
 */

export interface ConflictHunk {
  /** 1-based lines of the `<<<<<<<` and `>>>>>>>` markers. */
  startLine: number;
  endLine: number;
  oursLabel: string;
  theirsLabel: string;
  /** Absent without a `|||||||` section. */
  baseLabel?: string;
  ours: string[];
  base?: string[];
  theirs: string[];
  /** The hunk's lines, markers included, as in the file (a `\r` of CRLF kept). */
  lines: string[];
}

export type ConflictSide = "ours" | "theirs" | "both" | "base";

const marker = (line: string, char: string): string | undefined => {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (!text.startsWith(char.repeat(7)) || text[7] === char) return undefined;
  if (text.length > 7 && text[7] !== " ") return undefined;
  return text.slice(8);
};

/** The file's lines as the hunks index them: split on \n, a trailing \r left on its line. */
export const fileLines = (text: string): string[] => text.split("\n");

export function parseConflicts(text: string): ConflictHunk[] {
  const lines = fileLines(text);
  const hunks: ConflictHunk[] = [];
  let i = 0;
  while (i < lines.length) {
    const oursLabel = marker(lines[i]!, "<");
    if (oursLabel === undefined) {
      i++;
      continue;
    }
    const hunk = readHunk(lines, i, oursLabel);
    if (!hunk) {
      i++;
      continue;
    }
    hunks.push(hunk);
    i = hunk.endLine;
  }
  return hunks;
}

function readHunk(lines: string[], start: number, oursLabel: string): ConflictHunk | undefined {
  const ours: string[] = [];
  let base: string[] | undefined;
  let baseLabel: string | undefined;
  const theirs: string[] = [];
  let section: "ours" | "base" | "theirs" = "ours";
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    const bare = line.endsWith("\r") ? line.slice(0, -1) : line;
    // Another opening before this one closed: the first was no conflict.
    if (marker(line, "<") !== undefined) return undefined;
    if (section === "ours" && marker(line, "|") !== undefined) {
      section = "base";
      baseLabel = marker(line, "|");
      base = [];
      continue;
    }
    if (section !== "theirs" && bare === "=======") {
      section = "theirs";
      continue;
    }
    if (section === "theirs") {
      const theirsLabel = marker(line, ">");
      if (theirsLabel !== undefined) {
        return {
          startLine: start + 1,
          endLine: i + 1,
          oursLabel,
          theirsLabel,
          ...(base ? { baseLabel: baseLabel ?? "", base } : {}),
          ours,
          theirs,
          lines: lines.slice(start, i + 1),
        };
      }
    }
    (section === "ours" ? ours : section === "base" ? base! : theirs).push(line);
  }
  return undefined;
}

/** The lines a side puts in the hunk's place; undefined for base when the hunk has none (no diff3). */
export function sideLines(hunk: ConflictHunk, side: ConflictSide): string[] | undefined {
  if (side === "both") return [...hunk.ours, ...hunk.theirs];
  return hunk[side];
}

/**
 * `text` with the hunk whose lines are `hunk.lines` (the occurrence nearest its recorded line, if
 * the file holds it more than once) replaced by `replacement`; undefined when the file no longer
 * holds it.
 */
export function replaceHunk(text: string, hunk: Pick<ConflictHunk, "lines" | "startLine">, replacement: string[]): string | undefined {
  const lines = fileLines(text);
  let best = -1;
  for (let i = 0; i + hunk.lines.length <= lines.length; i++) {
    if (lines[i] !== hunk.lines[0]) continue;
    if (!hunk.lines.every((line, j) => lines[i + j] === line)) continue;
    if (best === -1 || Math.abs(i + 1 - hunk.startLine) < Math.abs(best + 1 - hunk.startLine)) best = i;
  }
  if (best === -1) return undefined;
  return [...lines.slice(0, best), ...replacement, ...lines.slice(best + hunk.lines.length)].join("\n");
}

/** The model's own text for a hunk as lines: a final newline ends the last line, it adds none. */
export function editedLines(content: string, crlf: boolean): string[] {
  if (content === "") return [];
  const lines = content.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  return crlf ? lines.map((line) => `${line}\r`) : lines;
}
