import type { Diagnostic } from "vscode-languageserver-protocol";

/** The most diagnostics one result lists; the rest are counted. */
export const MAX_LISTED = 20;
const MESSAGE_CHARS = 300;

const SEVERITY = ["", "error", "warning", "info", "hint"];

/** Errors and warnings only: hints and infos (unused imports greyed out) are noise to the model. */
export const isProblem = (diagnostic: Diagnostic) => (diagnostic.severity ?? 1) <= 2;

const keyOf = (d: Diagnostic) => `${d.severity ?? 1}\0${d.code ?? ""}\0${typeof d.message === "string" ? d.message : d.message.value}`;

/** The 0-based line range of `after` that differs from `before` (by common prefix and suffix of lines). */
export function changedLines(before: string, after: string): { from: number; to: number } {
  const a = before.split("\n");
  const b = after.split("\n");
  let from = 0;
  while (from < a.length && from < b.length && a[from] === b[from]) from++;
  let tail = 0;
  while (tail < a.length - from && tail < b.length - from && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { from, to: Math.max(from, b.length - 1 - tail) };
}

/**
 * The problems a change introduced or touched: those not among the file's problems before (same
 * severity, code and message, counted, so a second copy of an old error is new), plus those on the
 * changed lines. Without `before` (the server had not seen the file) every problem counts.
 */
export function introduced(before: Diagnostic[] | undefined, after: Diagnostic[], changed?: { from: number; to: number }): Diagnostic[] {
  const problems = after.filter(isProblem);
  if (!before) return problems;
  const old = new Map<string, number>();
  for (const d of before.filter(isProblem)) old.set(keyOf(d), (old.get(keyOf(d)) ?? 0) + 1);
  return problems.filter((d) => {
    const left = old.get(keyOf(d)) ?? 0;
    if (left > 0) old.set(keyOf(d), left - 1);
    const touched = changed !== undefined && d.range.end.line >= changed.from && d.range.start.line <= changed.to;
    return left === 0 || touched;
  });
}

/** `path:line:col severity [code] message`, 1-based as editors show it. */
export function formatDiagnostic(shownPath: string, d: Diagnostic): string {
  const code = d.code === undefined ? "" : ` ${typeof d.code === "number" && d.source === "typescript" ? `TS${d.code}` : d.code}`;
  const message = (typeof d.message === "string" ? d.message : d.message.value).replace(/\s*\n\s*/g, " ");
  const cut = message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message;
  return `${shownPath}:${d.range.start.line + 1}:${d.range.start.character + 1} ${SEVERITY[d.severity ?? 1] ?? "error"}${code}: ${cut}`;
}

/** Up to MAX_LISTED lines, errors first, then a count of the rest. */
export function listDiagnostics(entries: { path: string; diagnostic: Diagnostic }[], max = MAX_LISTED): string[] {
  const sorted = [...entries].sort((x, y) => (x.diagnostic.severity ?? 1) - (y.diagnostic.severity ?? 1) || x.path.localeCompare(y.path) || x.diagnostic.range.start.line - y.diagnostic.range.start.line);
  const lines = sorted.slice(0, max).map((entry) => `  ${formatDiagnostic(entry.path, entry.diagnostic)}`);
  if (sorted.length > max) lines.push(`  … and ${sorted.length - max} more`);
  return lines;
}

export function countProblems(diagnostics: Diagnostic[]): { errors: number; warnings: number } {
  return {
    errors: diagnostics.filter((d) => (d.severity ?? 1) === 1).length,
    warnings: diagnostics.filter((d) => d.severity === 2).length,
  };
}
