import type { StreamSummary } from "../../core/natives/api.ts";

/**
 * The last line of `omp grep --json`, after the records the addon streamed (one per line, or per
 * file with -l/-c): the totals, known once the search is over.
 */
export function formatJsonSummary(summary: StreamSummary, elapsedMs: number): string {
  return `${JSON.stringify({
    type: "summary",
    totalMatches: summary.totalMatches,
    filesWithMatches: summary.filesWithMatches,
    filesSearched: summary.filesSearched,
    binarySkipped: summary.binarySkipped,
    elapsedMs: Math.round(elapsedMs * 1000) / 1000,
  })}\n`;
}
