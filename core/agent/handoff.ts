import type { UserMessage } from "../ai/messages.ts";
import type { Agent } from "./agent.ts";
import { summarize } from "./compaction.ts";

/**
 * `/handoff [goal]`: the model writes a focused brief of the session, and a fresh session starts
 * from it. For long sessions where a compaction would keep too much noise or lose the thread.
 */

const HANDOFF_TASK = `Write a handoff brief from the conversation above, for another engineer (or a fresh session of you) who will carry on the work without seeing it. Use these sections, in this order, and leave out any that would be empty:

## Goal
What the user wants in the end, and the constraints they set, in their words where it matters.

## Decisions
What was settled and why; approaches that were tried and dropped, and what was wrong with them.

## Files
Every file read, created or changed that still matters, by path, with one line on its part in the work.

## State
What works now, what is half done, and the exact errors or test failures still open.

## Next
The open tasks as a short ordered list, the first one concrete enough to start on at once.

Be specific (names, paths, commands, numbers) and brief. Write only the brief.`;

/** Why a handoff was refused: a session this short has nothing worth handing over. */
export const NOTHING_TO_HAND_OFF = "nothing to hand off yet: the session has no exchange with the model";

/**
 * The brief for `goal` (what the next session should focus on; may be empty), written by the
 * smol role's model when one is configured and the conversation fits it, else the session's.
 */
export async function writeHandoff(agent: Agent, goal: string | undefined, signal?: AbortSignal): Promise<string> {
  const messages = agent.messages;
  if (!messages.some((m) => m.role === "user") || !messages.some((m) => m.role === "assistant")) throw new Error(NOTHING_TO_HAND_OFF);
  const smol = await agent.options.roleModel?.("smol").catch(() => undefined);
  const writer = smol && smol.model.contextWindow > agent.contextTokens() ? smol : { model: agent.model, apiKey: agent.apiKey };
  const { summary } = await summarize(writer.model, messages, {
    apiKey: writer.apiKey,
    signal,
    task: HANDOFF_TASK,
    ...(goal?.trim() ? { instructions: `the next session's focus is: ${goal.trim()}` } : {}),
  });
  return summary;
}

/** The first message of the new session: the brief, marked as one, so the model reads it as context and not as a request. */
export function handoffMessage(brief: string, from: string): UserMessage {
  const text = `<handoff-context from="${from}">\n${brief}\n</handoff-context>\n\nThis is a handoff brief from an earlier session. Take it as the state of the work and continue from it.`;
  return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
}
