import { complete } from "../ai/index.ts";
import type { Message, Usage } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import { textOf } from "../ai/transcript.ts";
import type { AgentOptions } from "./agent-options.ts";

const TITLE_PROMPT = "You name coding sessions. Reply with a title of at most six words for the session that starts with the user's message below: no quotes, no trailing period, nothing else.";

/** The longest prompt text sent for a title: the start says what the session is about. */
const MAX_PROMPT_CHARS = 4000;
const MAX_TITLE_CHARS = 80;
/** A title is a nicety: a slow smol model never holds the end of a run for long. */
const TIMEOUT_MS = 20_000;

export interface SessionTitle {
  title: string;
  model: Model;
  usage: Usage;
}

/**
 * A title for a new session from its first prompt, written by the smol role's model: only when
 * one is configured (the session's own model is too costly to spend on it; without one, listings
 * show the first line of the prompt as before). Undefined when there is none or it failed.
 */
export async function sessionTitle(options: AgentOptions, first: Message): Promise<SessionTitle | undefined> {
  if (!options.writer || options.depth || first.role !== "user") return undefined;
  const text = textOf(first.content).trim().slice(0, MAX_PROMPT_CHARS);
  if (text === "") return undefined;
  const smol = await options.roleModel?.("smol").catch(() => undefined);
  if (!smol) return undefined;
  try {
    const reply = await complete(
      smol.model,
      { systemPrompt: TITLE_PROMPT, messages: [{ role: "user", content: text, timestamp: Date.now() }], tools: [] },
      { apiKey: smol.apiKey, maxTokens: Math.min(64, smol.model.maxTokens), signal: AbortSignal.timeout(TIMEOUT_MS) },
    );
    if (reply.stopReason === "error" || reply.stopReason === "aborted") return undefined;
    const title = cleanTitle(reply.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""));
    return title ? { title, model: smol.model, usage: reply.usage } : undefined;
  } catch {
    return undefined;
  }
}

function cleanTitle(raw: string): string {
  const line = raw.trim().split("\n")[0] ?? "";
  const bare = line.replace(/^(title:\s*)/i, "").replace(/^["'`*]+|["'`*.]+$/g, "").trim();
  return bare.length > MAX_TITLE_CHARS ? `${bare.slice(0, MAX_TITLE_CHARS - 1)}…` : bare;
}
