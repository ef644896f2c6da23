import type { Message, ToolResultMessage } from "../ai/messages.ts";

/**
 * A read-only tool's result that is, byte for byte, one the model already has in this
 * conversation (the same file read again unchanged, the same search) is sent as a one-line
 * reference instead: every later request would otherwise carry the text twice. Only the new
 * result changes, so the cached prefix of the conversation is untouched. Compaction may later
 * summarise the earlier result away; the reference then says where it was, and a repeated call
 * finds no copy in the conversation and gets the full text again.
 */

/** Shorter results cost less than the reference's bookkeeping is worth. */
const MIN_REPEATED_CHARS = 1024;

function lengthOf(message: ToolResultMessage): number {
  let length = 0;
  for (const part of message.content) if (part.type === "text") length += part.text.length;
  return length;
}

function textOf(message: ToolResultMessage): string | undefined {
  if (message.isError || message.content.length === 0) return undefined;
  let text = "";
  for (const part of message.content) {
    if (part.type !== "text") return undefined;
    text += part.text;
  }
  return text;
}

/** `result`, or a reference to the earlier result in `history` with the same tool and text. */
export function withoutRepeat(result: ToolResultMessage, history: readonly Message[]): ToolResultMessage {
  const text = textOf(result);
  if (text === undefined || text.length < MIN_REPEATED_CHARS) return result;
  for (let i = history.length - 1; i >= 0; i--) {
    const earlier = history[i]!;
    if (earlier.role !== "toolResult" || earlier.toolName !== result.toolName || lengthOf(earlier) !== text.length || textOf(earlier) !== text) continue;
    return {
      ...result,
      content: [{ type: "text", text: `[Unchanged: the same output as ${result.toolName} call ${earlier.toolCallId} above.]` }],
    };
  }
  return result;
}
