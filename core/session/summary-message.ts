import type { Message } from "../ai/messages.ts";

/** How a compaction's summary opens; the UIs recognise summary messages by it. */
export const COMPACTION_SUMMARY_PREFIX = "The conversation before this point was compacted into this summary:";

/**
 * The message that stands in for the turns a compaction replaced. One wording for the agent that
 * compacts and the loader that resumes, so a resumed session sees exactly what was sent.
 */
export function summaryMessage(summary: string, timestamp: number): Message {
  return { role: "user", content: `${COMPACTION_SUMMARY_PREFIX}\n\n<summary>\n${summary}\n</summary>`, timestamp };
}
