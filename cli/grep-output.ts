import type { GrepMode, GrepResult } from "../core/natives/api.ts";

/** One JSON object per line: a record per line or file, then a summary. */
export function formatGrepJson(result: GrepResult, mode: GrepMode, elapsedMs: number): string {
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
