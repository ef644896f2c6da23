import type { Message } from "../ai/messages.ts";
import type { AgentOptions } from "./agent-options.ts";
import { prependNotes, promptText } from "./prompt-hooks.ts";

/**
 * Long-term memory joins a new session's first prompt, recalled with its words (the original's
 * auto-recall): once per agent, never for a resumed session or a subagent, whose prompt is its
 * parent's words. Returns what puts the memory note in front of a prompt.
 */
export function firstPromptRecall(options: Pick<AgentOptions, "recallMemories" | "depth" | "messages">): (first: Message) => Promise<void> {
  let recall = !options.depth && !options.messages?.length ? options.recallMemories : undefined;
  return async (first) => {
    if (!recall) return;
    const memories = recall;
    recall = undefined;
    const block = await memories(promptText(first));
    if (block) prependNotes(first, [block]);
  };
}
