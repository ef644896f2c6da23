import type { AssistantMessage, Message } from "../ai/messages.ts";
import { withoutSignedThinking } from "../ai/preserved-thinking.ts";
import type { NewSessionEntry } from "../session/schema.ts";
import type { AgentEvent } from "./events.ts";
import { DROP_THINKING_ENTRY } from "./request-frame.ts";
import type { RunState, RunStop } from "./run-state.ts";

/** What getting over a refusal needs of the agent. */
export interface RecoveringAgent {
  readonly messages: Message[];
  readonly autoCompaction: boolean;
  emit(event: AgentEvent): void;
  persist(entry: NewSessionEntry): void;
  /** Compacts the conversation because the provider found it too long; false when that could not be done. */
  compact(): Promise<boolean>;
}

/**
 * Refusals a run gets over once each: "retry" to ask again, a stop when it cannot, undefined for
 * a reply that is not one of them. The refusal is shown but kept out of the context and the session.
 */
export async function recoverRefusal(agent: RecoveringAgent, run: RunState, reply: AssistantMessage, turn: number): Promise<"retry" | RunStop | undefined> {
  if (thinkingRejected(agent.messages, reply) && !run.thinkingDropped && !run.signal.aborted) {
    // Signed thinking failed the provider's prefix check (something before it changed in a
    // way omp did not foresee): ask once more without it rather than end the session on a 400.
    run.thinkingDropped = true;
    agent.emit({ type: "message_end", message: reply });
    agent.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
    agent.emit({ type: "auto_retry_start", attempt: 1, delayMs: 0, reason: "the provider refused the earlier thinking blocks; sending the conversation again without them" });
    agent.messages.splice(0, agent.messages.length, ...withoutSignedThinking(agent.messages));
    agent.persist({ type: "custom", customType: DROP_THINKING_ENTRY, data: { reason: reply.errorMessage ?? "" } });
    return "retry";
  }
  if (agent.autoCompaction && overflowed(reply) && !run.overflowCompacted && !run.signal.aborted) {
    // The estimate missed (tokenisers differ, images): the provider refused the request as
    // too long. Compact once and ask again rather than end the run on a 400.
    run.overflowCompacted = true;
    agent.emit({ type: "message_end", message: reply });
    agent.emit({ type: "turn_end", turn, message: reply, toolResults: [] });
    if (await agent.compact()) return "retry";
    return { reason: "error", error: `${reply.errorMessage} (compacting the conversation did not make it fit: start a new session or use a model with a larger context window)`, failure: reply.failure };
  }
  return undefined;
}

/** A 400 before any output because signed thinking failed the provider's checks, while some was sent. */
function thinkingRejected(messages: readonly Message[], reply: AssistantMessage): boolean {
  return reply.stopReason === "error" && reply.content.length === 0 && reply.failure?.kind === "thinking-signature" && messages.some((m) => m.role === "assistant" && m.content.some((c) => c.type === "thinking" && c.signature));
}

/** A reply that failed because the request no longer fits the context window, before any output. */
function overflowed(reply: AssistantMessage): boolean {
  return reply.stopReason === "error" && reply.content.length === 0 && reply.failure?.kind === "context-overflow";
}
