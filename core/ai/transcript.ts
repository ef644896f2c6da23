import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from "./messages.ts";
import type { Model } from "./model.ts";

/**
 * The history as every provider can accept it. Failed or aborted assistant turns are dropped
 * (their content may be half a tool call) together with the results answering them, and a tool
 * call left without a result gets an error result, because all four APIs reject unanswered calls.
 */
export function prepareTranscript(messages: Message[]): Message[] {
  const dropped = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant" && (m.stopReason === "error" || m.stopReason === "aborted")) {
      for (const c of m.content) if (c.type === "toolCall") dropped.add(c.id);
    }
  }

  const out: Message[] = [];
  let pending: ToolCall[] = [];
  let pendingAt = 0;
  const answerPending = () => {
    for (const call of pending) out.push(missingResult(call, pendingAt));
    pending = [];
  };

  for (const m of messages) {
    if (m.role === "assistant") {
      if (m.stopReason === "error" || m.stopReason === "aborted") continue;
      answerPending();
      out.push(m);
      pending = m.content.filter((c): c is ToolCall => c.type === "toolCall");
      pendingAt = m.timestamp;
    } else if (m.role === "toolResult") {
      if (dropped.has(m.toolCallId)) continue;
      const index = pending.findIndex((c) => c.id === m.toolCallId);
      if (index === -1) continue;
      pending.splice(index, 1);
      out.push(m);
    } else {
      answerPending();
      out.push(m);
    }
  }
  answerPending();
  return out;
}

function missingResult(call: ToolCall, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: "No result: the tool call was interrupted before it finished." }],
    isError: true,
    timestamp,
  };
}

/**
 * Provider-private data (thinking signatures, encrypted reasoning, thought signatures) is only
 * valid for the model that produced it; replaying it to another model is rejected or misleads.
 */
export function isSameModel(message: AssistantMessage, model: Model): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

/** Plain text of a user or tool-result content array, for wires that only take strings. */
export function textOf(content: Message["content"]): string {
  if (typeof content === "string") return content;
  return content
    .filter((c) => c.type === "text")
    .map((c) => (c as { text: string }).text)
    .join("\n");
}
