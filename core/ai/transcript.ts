import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from "./messages.ts";
import type { Model } from "./model.ts";

/**
 * The history as every provider can accept it. Failed or aborted assistant turns are dropped
 * (their content may be half a tool call) together with the results answering them, and a tool
 * call left without a result gets an error result, because all four APIs reject unanswered calls.
 */
export function prepareTranscript(messages: Message[]): Message[] {
  const out: Message[] = [];
  const fold = new TranscriptFold((m) => out.push(m), failedCalls(messages));
  for (const m of messages) fold.add(m);
  out.push(...fold.unanswered());
  return out;
}

/** The calls of failed or aborted assistant turns: their results are dropped wherever they are. */
export function failedCalls(messages: readonly Message[]): Set<string> {
  const dropped = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant" && (m.stopReason === "error" || m.stopReason === "aborted")) {
      for (const c of m.content) if (c.type === "toolCall") dropped.add(c.id);
    }
  }
  return dropped;
}

/**
 * prepareTranscript's pass one message at a time, so that a conversation's next request carries
 * on from where its last one stopped instead of going over every message again.
 */
export class TranscriptFold {
  private pending: ToolCall[] = [];
  private pendingAt = 0;
  /** Results passed on, by call: a failed turn naming one of them later means the fold must start again. */
  private readonly answered = new Set<string>();

  constructor(
    private readonly emit: (m: Message) => void,
    /** The failed turns' calls (failedCalls); those met later are added as they come. */
    private readonly dropped: Set<string>,
  ) {}

  /** Passes `m` on as prepareTranscript would; false when it drops a result already passed on (the fold is then void). */
  add(m: Message): boolean {
    if (m.role === "assistant") {
      if (m.stopReason === "error" || m.stopReason === "aborted") {
        for (const c of m.content) {
          if (c.type !== "toolCall") continue;
          if (this.answered.has(c.id)) return false;
          this.dropped.add(c.id);
        }
        return true;
      }
      this.answerPending();
      this.emit(m);
      this.pending = m.content.filter((c): c is ToolCall => c.type === "toolCall");
      this.pendingAt = m.timestamp;
    } else if (m.role === "toolResult") {
      if (this.dropped.has(m.toolCallId)) return true;
      const index = this.pending.findIndex((c) => c.id === m.toolCallId);
      if (index === -1) return true;
      this.pending.splice(index, 1);
      this.answered.add(m.toolCallId);
      this.emit(m);
    } else {
      this.answerPending();
      this.emit(m);
    }
    return true;
  }

  /** Error results for the calls still unanswered, which end the transcript; the fold goes on as it was. */
  unanswered(): ToolResultMessage[] {
    return this.pending.map((call) => missingResult(call, this.pendingAt));
  }

  private answerPending(): void {
    for (const call of this.pending) this.emit(missingResult(call, this.pendingAt));
    this.pending = [];
  }
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
