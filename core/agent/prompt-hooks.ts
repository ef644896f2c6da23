import type { Message } from "../ai/messages.ts";
import type { AgentExtensions, SessionStartSource } from "../extensions/agent-extensions.ts";

/**
 * SessionStart (`sessionStart`: the session's first prompt) and UserPromptSubmit hooks for a
 * prompt: their context goes in front of the prompt's text, so the model reads it with the prompt
 * and the session keeps it. Returns why the prompt was blocked, if it was.
 */
export async function applyPromptHooks(extensions: AgentExtensions, prompt: Message, sessionStart: SessionStartSource | undefined): Promise<string | undefined> {
  const context: string[] = [];
  if (sessionStart !== undefined) context.push(...((await extensions.sessionStart?.(sessionStart)) ?? []));
  const submitted = await extensions.userPrompt?.(promptText(prompt));
  if (submitted?.block !== undefined) return `the prompt was blocked by a UserPromptSubmit hook: ${submitted.block}`;
  context.push(...(submitted?.context ?? []));
  prependNotes(prompt, context);
  return undefined;
}

/** A prompt's text, its parts' joined. */
export function promptText(prompt: Message): string {
  return typeof prompt.content === "string" ? prompt.content : prompt.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

/** Puts `notes` in front of a user prompt's text, each as a note for the model only (UIs leave them out, see modes.ts). */
export function prependNotes(prompt: Message, notes: readonly string[]): void {
  if (notes.length === 0 || prompt.role !== "user") return;
  const parts = typeof prompt.content === "string" ? [{ type: "text" as const, text: prompt.content }] : prompt.content;
  prompt.content = [...notes.map((text) => ({ type: "text" as const, text: `<system-reminder>\n${text}\n</system-reminder>` })), ...parts];
}
