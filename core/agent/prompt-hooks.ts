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
  const text = typeof prompt.content === "string" ? prompt.content : prompt.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const submitted = await extensions.userPrompt?.(text);
  if (submitted?.block !== undefined) return `the prompt was blocked by a UserPromptSubmit hook: ${submitted.block}`;
  context.push(...(submitted?.context ?? []));
  if (context.length > 0 && prompt.role === "user") {
    const parts = typeof prompt.content === "string" ? [{ type: "text" as const, text: prompt.content }] : prompt.content;
    prompt.content = [...context.map((text) => ({ type: "text" as const, text: `<system-reminder>\n${text}\n</system-reminder>` })), ...parts];
  }
  return undefined;
}
