import type { Message } from "../ai/messages.ts";

/**
 * Responses the gateway keeps for `previous_response_id`: each stored reply's whole conversation
 * (the earlier turns, the request's input and the reply), in memory, the most recently used
 * `limit` of them. Kept only when the client lets it store (`store`, the Responses default);
 * a restart forgets them, and the client is told so when it names one.
 */
export class ResponseStore {
  private readonly kept = new Map<string, Message[]>();

  constructor(private readonly limit = 500) {}

  put(id: string, conversation: Message[]): void {
    this.kept.delete(id);
    this.kept.set(id, conversation);
    while (this.kept.size > this.limit) this.kept.delete(this.kept.keys().next().value!);
  }

  get(id: string): Message[] | undefined {
    const conversation = this.kept.get(id);
    if (conversation) this.put(id, conversation);
    return conversation;
  }
}

/**
 * The stored conversation followed by the new input. Tool results in the input answer calls the
 * stored reply made, which the decoder could not name (Gemini needs the name back).
 */
export function continueConversation(earlier: Message[], input: Message[]): Message[] {
  const names = new Map<string, string>();
  for (const m of earlier) if (m.role === "assistant") for (const c of m.content) if (c.type === "toolCall") names.set(c.id, c.name);
  const named = input.map((m) => (m.role === "toolResult" && names.has(m.toolCallId) ? { ...m, toolName: names.get(m.toolCallId)! } : m));
  return [...earlier, ...named];
}
