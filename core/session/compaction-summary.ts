import type { Message } from "../ai/messages.ts";

/** How a compaction's summary message opens; UIs and exports recognise the summary by it. */
export const COMPACTION_SUMMARY_PREFIX = "The conversation before this point was compacted into this summary:";

/**
 * The message that stands in for what a compaction replaced. The agent that compacts and the
 * loader that resumes both make it here, so a resumed session sends exactly what the live one did.
 */
export function compactionSummaryMessage(summary: string, timestamp: number): Message {
  return { role: "user", content: `${COMPACTION_SUMMARY_PREFIX}\n\n<summary>\n${summary}\n</summary>`, timestamp };
}
