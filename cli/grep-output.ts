import type { GrepResult } from "../core/natives/api.ts";

export interface GrepPrintOptions {
  withFilename: boolean;
  /** Context was asked for: groups are separated by `--`, as ripgrep does. */
  context: boolean;
  mode: "content" | "files_with_matches" | "count";
}

/** Renders a grep result exactly as `rg -n --no-heading` prints it when not on a terminal. */
export function formatGrepPlain(result: GrepResult, options: GrepPrintOptions): string {
  const out: string[] = [];
  if (options.mode === "files_with_matches") {
    for (const file of result.files) out.push(file.path);
  } else if (options.mode === "count") {
    for (const file of result.files) out.push(options.withFilename ? `${file.path}:${file.matchCount}` : `${file.matchCount}`);
  } else {
    let printedAny = false;
    for (const file of result.files) {
      let previousLine = -1;
      for (const line of file.lines) {
        if (options.context && printedAny && line.lineNumber !== previousLine + 1) out.push("--");
        const sep = line.kind === "match" ? ":" : "-";
        out.push(options.withFilename ? `${file.path}${sep}${line.lineNumber}${sep}${line.text}` : `${line.lineNumber}${sep}${line.text}`);
        previousLine = line.lineNumber;
        printedAny = true;
      }
    }
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

/** One JSON object per line: a record per line or file, then a summary. */
export function formatGrepJson(result: GrepResult, mode: GrepPrintOptions["mode"], elapsedMs: number): string {
  const out: string[] = [];
  for (const file of result.files) {
    if (mode === "content") {
      for (const line of file.lines) {
        out.push(JSON.stringify({ type: line.kind, path: file.path, line: line.lineNumber, text: line.text, truncated: line.truncated }));
      }
    } else {
      out.push(JSON.stringify({ type: "file", path: file.path, count: file.matchCount }));
    }
  }
  out.push(
    JSON.stringify({
      type: "summary",
      totalMatches: result.totalMatches,
      filesWithMatches: result.filesWithMatches,
      filesSearched: result.filesSearched,
      binarySkipped: result.binarySkipped,
      elapsedMs: Math.round(elapsedMs * 1000) / 1000,
    }),
  );
  return `${out.join("\n")}\n`;
}
