import { type AssistantMessage, type UserMessage, emptyUsage } from "../../../core/ai/messages.ts";

export function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: 1_760_000_000_000 };
}

export function assistant(text: string, stopReason: AssistantMessage["stopReason"] = "stop"): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: emptyUsage(),
    stopReason,
    timestamp: 1_760_000_000_001,
  };
}

/** The text of each message, to compare contexts compactly. */
export function texts(messages: { content: unknown }[]): string[] {
  return messages.map((message) =>
    typeof message.content === "string" ? message.content : (message.content as { text?: string }[]).map((part) => part.text ?? "").join(""),
  );
}
