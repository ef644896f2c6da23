import { wireApi } from "./apis/index.ts";
import type { AssistantMessage, Message } from "./messages.ts";

/**
 * Anthropic's preserved thinking: a signed thinking block is only valid while everything before
 * it (system, tools, earlier messages) is exactly what was sent when it was produced. When that
 * prefix changes (a compaction rewrote the turns before it, a session older than stored prompts
 * is resumed with a rebuilt system prompt), the block must go, and with it every thinking block
 * before it, since a block left out between others fails the check too. The text stays for the
 * transcript; only the signature, which is what the API checks, is removed (an unsigned block is
 * never sent back), and a redacted block, which is nothing but its signature, is dropped.
 */
/** The session entry (custom) after which a resume no longer sends the thinking before it. */
export const DROP_THINKING_ENTRY = "omp.thinking_dropped";

export function withoutSignedThinking(messages: readonly Message[]): Message[] {
  return messages.map((message) => (message.role === "assistant" && hasSignedThinking(message) ? unsign(message) : message));
}

/** APIs whose signed thinking is bound to its prefix (each says so in its folder under core/ai/apis/). */
function hasSignedThinking(message: AssistantMessage): boolean {
  return (wireApi(message.api)?.prefixBoundThinking ?? false) && message.content.some((c) => c.type === "thinking" && c.signature);
}

function unsign(message: AssistantMessage): AssistantMessage {
  const content = message.content.flatMap((c) => {
    if (c.type !== "thinking" || !c.signature) return [c];
    if (c.redacted) return [];
    const { signature: _signature, ...rest } = c;
    return [rest];
  });
  return { ...message, content };
}
