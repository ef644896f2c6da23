import type { ChangeSummary } from "../../../core/tools/change-preview.ts";
import { paint, wrapWithPrefix } from "./text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "./theme.ts";

/**
 * A file change as an approval shows it (as Claude Code does): a heading per file, then each
 * hunk's lines numbered as in the file (the old number for a removed line, the new one for the
 * others), removed lines red with −, added green with +. Long lines wrap: nothing that would be
 * written is cut off.
 */
export function numberedChangeRows(changes: readonly ChangeSummary[], width: number, theme: Theme): string[] {
  const rows: string[] = [];
  for (const change of changes) {
    const counts = `+${change.added} −${change.removed}`;
    rows.push(...wrapWithPrefix([{ text: `${change.op} ${sanitize(change.shown)} `, style: theme.fg(null, "bold") }, { text: counts, style: theme.fg("muted") }], width, []));
    rows.push(...numberedDiffRows(change.diff, width, theme));
  }
  return rows;
}

function numberedDiffRows(diff: string, width: number, theme: Theme): string[] {
  const lines = diff.split("\n");
  const digits = String(largestLineNumber(lines)).length;
  const rows: string[] = [];
  let oldLine = 0;
  let newLine = 0;
  let hunks = 0;
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      // A gap between hunks, as an editor folds unchanged lines.
      if (hunks++ > 0) rows.push(paint(`${" ".repeat(digits)} ⋮`, theme.fg("dim")));
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      continue;
    }
    if (line.startsWith("---") || line.startsWith("+++") || line === "" || line.startsWith("\\")) continue;
    const sign = line[0];
    const text = sanitize(line.slice(1));
    let number: number;
    let mark: string;
    let style: string;
    if (sign === "-") {
      number = oldLine++;
      mark = "−";
      style = theme.fg("diffRemoved");
    } else if (sign === "+") {
      number = newLine++;
      mark = "+";
      style = theme.fg("diffAdded");
    } else {
      number = newLine++;
      oldLine++;
      mark = " ";
      style = theme.fg("muted");
    }
    const gutter = `${String(number).padStart(digits)} ${mark} `;
    rows.push(...wrapWithPrefix([{ text: text === "" ? " " : text, style }], width, [{ text: gutter, style }], [{ text: " ".repeat(gutter.length), style }]));
  }
  return rows;
}

function largestLineNumber(lines: readonly string[]): number {
  let largest = 1;
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk) largest = Math.max(largest, Number(hunk[1]) + Number(hunk[2] ?? 1), Number(hunk[3]) + Number(hunk[4] ?? 1));
  }
  return largest;
}
