import type { Message, ToolResultMessage } from "../ai/messages.ts";
import type { SessionWriter } from "../session/writer.ts";
import type { SessionRecorder } from "./session-recorder.ts";

/**
 * The conversation side of the model's checkpoint and rewind tools (core/tools/checkpoint.ts): a
 * successful checkpoint marks how long the conversation is once that reply's tool results are in
 * (cutting between a reply's results would orphan its other calls); a successful rewind hands
 * back its report, and the agent cuts the conversation back to the mark and keeps the report.
 */
export class ModelCheckpoint {
  private messageCount: number | undefined;

  /** After a reply's tool results are recorded (`messageCount` messages now): the report of a rewind to apply, with the length to cut back to. */
  observe(results: readonly ToolResultMessage[], messageCount: number): { report: string; messageCount: number } | undefined {
    let rewind: { report: string; messageCount: number } | undefined;
    for (const result of results) {
      if (result.isError) continue;
      if (result.toolName === "checkpoint") this.messageCount = messageCount;
      const report = (result.details as { report?: unknown } | undefined)?.report;
      if (result.toolName === "rewind" && typeof report === "string" && this.messageCount !== undefined) {
        rewind = { report, messageCount: this.messageCount };
        this.messageCount = undefined;
      }
    }
    return rewind;
  }
}

/** What the model reads after a rewind, in place of the abandoned attempt. */
export function rewindReportText(report: string): string {
  return `<rewind-report>\nYou rewound to your checkpoint: the files omp changed since are back as they were, and the attempt is gone from this conversation. Your report of it:\n${report}\n</rewind-report>`;
}

/** The conversation a rewind cuts back: its messages, the session entries parallel to them, and how a message joins it. */
export interface RewindableConversation {
  readonly messages: Message[];
  readonly session: SessionRecorder;
  readonly writer: SessionWriter | undefined;
  deliver(messages: Message[]): void;
}

/**
 * The model's rewind: the conversation back to its checkpoint (the session's leaf too, so a
 * resume sees the same), then its report, which the next request carries.
 */
export function rewindConversation(conversation: RewindableConversation, rewind: { report: string; messageCount: number }): void {
  const { messages, session, writer } = conversation;
  session.flush();
  const entryId = session.entryIds[rewind.messageCount - 1];
  messages.splice(rewind.messageCount);
  session.entryIds.splice(rewind.messageCount);
  if (entryId) writer?.branch(entryId);
  conversation.deliver([{ role: "user", content: rewindReportText(rewind.report), timestamp: Date.now() }]);
}
