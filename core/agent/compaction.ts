import { complete } from "../ai/index.ts";
import type { AssistantMessage, Message, Usage } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import { SessionError } from "../errors/session-error.ts";

/** Rough tokens of a message: about four characters a token is close enough to decide when to compact. */
export function estimateTokens(message: Message): number {
  let chars = 0;
  if (typeof message.content === "string") chars = message.content.length;
  else {
    for (const part of message.content) {
      if (part.type === "text") chars += part.text.length;
      else if (part.type === "thinking") chars += part.thinking.length;
      else if (part.type === "toolCall") chars += JSON.stringify(part.arguments).length + part.name.length;
      else chars += 4800; // an image costs roughly a fixed amount
    }
  }
  return Math.ceil(chars / 4);
}

/**
 * Tokens the next request will carry: what the provider counted for the last reply (exact), plus
 * an estimate for the messages after it.
 */
export function contextTokens(messages: Message[]): number {
  let lastIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.stopReason !== "error" && m.stopReason !== "aborted" && m.usage.totalTokens > 0) {
      lastIndex = i;
      break;
    }
  }
  const counted = lastIndex === -1 ? 0 : usageTokens((messages[lastIndex] as AssistantMessage).usage);
  return counted + messages.slice(lastIndex + 1).reduce((sum, m) => sum + estimateTokens(m), 0);
}

function usageTokens(usage: Usage): number {
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/**
 * Where the kept tail starts: the newest user message before which at least `keepRecentTokens`
 * lie behind it, so a tool call is never separated from its result. Returns 0 when nothing can be
 * cut (the whole conversation is recent).
 */
export function findCut(messages: Message[], keepRecentTokens: number): number {
  let kept = 0;
  for (let i = messages.length - 1; i > 0; i--) {
    kept += estimateTokens(messages[i]!);
    if (kept >= keepRecentTokens && messages[i]!.role === "user") return i;
  }
  // Less than the budget in all: keep only the last exchange when that still leaves something to summarise.
  for (let i = messages.length - 1; i > 0; i--) if (messages[i]!.role === "user") return i;
  return 0;
}

function transcript(messages: Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "user") {
      const text = typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
      lines.push(`USER:\n${text}`);
    } else if (m.role === "assistant") {
      for (const part of m.content) {
        if (part.type === "text") lines.push(`ASSISTANT:\n${part.text}`);
        else if (part.type === "toolCall") lines.push(`ASSISTANT CALLED ${part.name}(${JSON.stringify(part.arguments).slice(0, 2000)})`);
      }
    } else {
      const text = m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
      lines.push(`RESULT OF ${m.toolName}${m.isError ? " (error)" : ""}:\n${text.slice(0, 4000)}${text.length > 4000 ? "\n[...]" : ""}`);
    }
  }
  return lines.join("\n\n");
}

const SUMMARY_PROMPT = `Summarise the conversation above so that the work can continue without it. Keep:
- the user's goals and requirements, in their words where it matters;
- what was done: files read, created and changed (with paths), commands run and their outcomes;
- decisions made and why, and anything that did not work;
- the current state and the next steps.
Be specific and brief. Write only the summary.`;

/**
 * Asks the model for a summary of `messages`; throws with the provider's message if that fails.
 * `task` replaces the compaction's instructions (a handoff asks for its own shape).
 */
export async function summarize(
  model: Model,
  messages: Message[],
  options: { apiKey?: string; signal?: AbortSignal; instructions?: string; previousSummary?: string; task?: string },
): Promise<{ summary: string; usage: Usage }> {
  const prompt = [
    "<conversation>",
    transcript(messages),
    "</conversation>",
    "",
    options.task ?? SUMMARY_PROMPT,
    options.instructions ? `\nAlso: ${options.instructions}` : "",
  ].join("\n");
  const reply = await complete(
    model,
    { systemPrompt: "You write precise summaries of coding sessions.", messages: [{ role: "user", content: prompt, timestamp: Date.now() }], tools: [] },
    { apiKey: options.apiKey, signal: options.signal, maxTokens: Math.min(8192, model.maxTokens) },
  );
  if (reply.stopReason === "error" || reply.stopReason === "aborted") {
    const kind = reply.failure?.kind ?? (reply.stopReason === "aborted" ? "aborted" : "failed");
    throw new SessionError(kind, reply.errorMessage ?? `summary ${reply.stopReason}`, { retryable: reply.failure?.retryable });
  }
  const summary = reply.content
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("")
    .trim();
  if (!summary) throw new Error("the model returned an empty summary");
  return { summary, usage: reply.usage };
}
