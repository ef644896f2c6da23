import type { FileChange, LinesOp } from "./changes.ts";
import { stripReadPrefixes } from "./normalize.ts";

/**
 * The original omp's hashline language, by line number:
 *
 *   [src/a.ts#0A3B]        (the #TAG, from an earlier edit's result, is optional here)
 *   SWAP 4.=5:             replace lines 4-5 with the + rows below
 *   +const x = 1;
 *   DEL 9.=10              delete lines 9-10
 *   INS.PRE 2: / INS.POST 2: / INS.HEAD: / INS.TAIL:   insert the + rows
 *
 * Lenient where the original is: `SWAP N:`, `DEL N`, `N-M`/`N..M`/`N M` ranges, a missing colon,
 * bare body rows (auto-prefixed, with a warning), a Begin/End Patch envelope. Block ops need a
 * syntax tree omp does not have and are refused with the line-range form to use instead.
 */

export class HashlineSyntaxError extends Error {}

const SECTION = /^\[(.+?)(?:#([0-9A-Fa-f]{4}))?\]\s*$/;
const RANGE = String.raw`(\d+)(?:\s*(?:\.=|\.\.|-|…|\s)\s*(\d+))?`;
const SWAP = new RegExp(`^SWAP\\s+${RANGE}\\s*:?\\s*$`);
const DEL = new RegExp(`^DEL\\s+${RANGE}\\s*(:)?\\s*$`);
const INS = /^INS\.(PRE|POST)\s+(\d+)\s*:?\s*$/;
const INS_END = /^INS\.(HEAD|TAIL)\s*:?\s*$/;

export interface HashlineParse {
  changes: FileChange[];
  warnings: string[];
}

export function parseHashline(input: string): HashlineParse {
  const lines = input.replaceAll("\r\n", "\n").split("\n");
  const changes: (FileChange & { kind: "update" })[] = [];
  const warnings = new Set<string>();
  let current: (FileChange & { kind: "update" }) | undefined;
  let hunk: (LinesOp & { body: boolean; header: number }) | undefined;
  const fail = (n: number, message: string): never => {
    throw new HashlineSyntaxError(`line ${n}: ${message}`);
  };
  const finish = () => {
    if (!hunk) return;
    if (hunk.body && hunk.lines.length === 0 && hunk.to < hunk.from) fail(hunk.header, "`INS` needs at least one `+TEXT` body row.");
    const stripped = stripReadPrefixes(hunk.lines.join("\n"));
    if (stripped && hunk.lines.length > 0) {
      hunk.lines = stripped.text.split("\n");
      warnings.add("Removed read's line-number prefixes from the body rows; body rows are the new text only.");
    }
    const { body: _body, header: _header, ...op } = hunk;
    current!.ops.push(op);
    hunk = undefined;
  };
  for (const [index, raw] of lines.entries()) {
    const n = index + 1;
    const line = raw;
    const trimmed = line.trim();
    if (trimmed === "*** Begin Patch" || trimmed === "*** End Patch") continue;
    if (trimmed === "*** Abort") break;
    const section = SECTION.exec(trimmed);
    if (section && !(hunk?.body && line.startsWith("+"))) {
      finish();
      current = { kind: "update", path: section[1]!.trim(), ops: [], ...(section[2] ? { tag: section[2].toUpperCase() } : {}) };
      changes.push(current);
      continue;
    }
    if (/^\*\*\* (Update|Add|Delete) File:|^\*\*\* Move to:/.test(trimmed)) {
      fail(n, `apply_patch sentinel ${JSON.stringify(trimmed)} is not valid in hashline. File sections start with \`[path#HASH]\`; use \`SWAP N.=M:\`, \`DEL N.=M\`, or \`INS.PRE|POST|HEAD|TAIL:\` ops.`);
    }
    if (trimmed.startsWith("@@")) fail(n, "`@@` hunk headers are not valid in hashline. Write a verb header such as `SWAP N.=M:`.");
    const header = headerOp(trimmed, n, fail);
    if (header) {
      if (!current) fail(n, 'input must begin with "[PATH#HASH]" (or "[PATH]") before the first operation.');
      finish();
      hunk = { ...header.op, body: header.body, header: n };
      continue;
    }
    if (!hunk) {
      if (trimmed === "") continue;
      fail(n, `payload line has no preceding hunk header. Use \`SWAP N.=M:\`, \`DEL N.=M\`, or \`INS.PRE|POST|HEAD|TAIL:\` above the body. Got ${JSON.stringify(line)}.`);
    }
    const open = hunk!;
    if (!open.body) {
      if (trimmed === "") continue;
      fail(n, "`DEL N.=M` does not take body rows. Remove the body, or use `SWAP N.=M:`.");
    }
    if (line.startsWith("-")) fail(n, "`-` rows are not valid; the range already names the lines being changed. For a literal `-` line, write `+-…`.");
    if (line.startsWith("+")) open.lines.push(line.slice(1));
    else if (line === "" && index === lines.length - 1) continue;
    else {
      open.lines.push(line);
      warnings.add("Auto-prefixed bare body row(s) with +. Body rows must be +TEXT literal lines.");
    }
  }
  finish();
  if (changes.length === 0) throw new HashlineSyntaxError('input must begin with "[PATH#HASH]" on the first non-blank line.');
  for (const change of changes) if (change.ops.length === 0) throw new HashlineSyntaxError(`[${change.path}] has no operations.`);
  return { changes, warnings: [...warnings] };
}

function headerOp(line: string, n: number, fail: (n: number, message: string) => never): { op: LinesOp; body: boolean } | undefined {
  if (/^(SWAP|DEL|INS)\.BLK\b|^INS\.BLK\.POST\b/.test(line)) {
    fail(n, "block operations (`SWAP.BLK`, `DEL.BLK`, `INS.BLK.POST`) need a syntax tree this omp does not build; use `SWAP N.=M:` / `DEL N.=M` / `INS.POST N:` with explicit lines.");
  }
  let match = SWAP.exec(line);
  if (match) return { op: range(match, n, fail, "SWAP"), body: true };
  match = DEL.exec(line);
  if (match) {
    if (match[3]) fail(n, "`DEL N.=M` takes no colon and no body rows. Remove the colon, or use `SWAP N.=M:`.");
    return { op: range(match, n, fail, "DEL"), body: false };
  }
  match = INS.exec(line);
  if (match) {
    const at = Number(match[2]);
    return { op: match[1] === "PRE" ? { kind: "lines", from: at, to: at - 1, lines: [] } : { kind: "lines", from: at + 1, to: at, lines: [] }, body: true };
  }
  match = INS_END.exec(line);
  if (match) return { op: match[1] === "HEAD" ? { kind: "lines", from: 1, to: 0, lines: [] } : { kind: "lines", from: -1, to: -2, lines: [], tail: true }, body: true };
  if (/^\d+(\s*(\.=|\.\.|-|\s)\s*\d+)?\s*:?$/.test(line)) fail(n, "hunk headers need a verb. Use `SWAP N.=M:` to replace, or `DEL N.=M` to delete.");
  return undefined;
}

function range(match: RegExpExecArray, n: number, fail: (n: number, message: string) => never, verb: string): LinesOp {
  const from = Number(match[1]);
  const to = match[2] === undefined ? from : Number(match[2]);
  if (to < from) fail(n, `range ${from}.=${to} ends before it starts.`);
  if (from < 1) fail(n, `${verb} lines start at 1.`);
  return { kind: "lines", from, to, lines: [] };
}

/** Paths a hashline input writes, for the approval gate's scope check; no validation. */
export function hashlinePaths(input: string): string[] {
  const paths: string[] = [];
  for (const line of input.split("\n")) {
    const match = SECTION.exec(line.trim());
    if (match) paths.push(match[1]!.trim());
  }
  return paths;
}
