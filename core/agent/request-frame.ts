import type { ToolSpec } from "../ai/stream.ts";
import type { SessionEntry } from "../session/schema.ts";

/**
 * What a session sends ahead of its messages, kept stable for the session's whole life: Anthropic's
 * preserved thinking rejects (or silently drops) thinking whose prefix (system prompt, tools,
 * earlier messages) changed, and prompt caches miss on any change. The first request stores the
 * frame in the session; a resume sends the stored one again instead of a rebuilt one. Facts that
 * change (the date, the repository's state) go into a message at the end instead.
 */
export interface Facts {
  /** YYYY-MM-DD. */
  date: string;
  /** The repository summary (git-summary.ts); "" outside git. */
  git: string;
}

export interface RequestFrame {
  systemPrompt: string;
  tools: ToolSpec[];
  facts: Facts;
}

/** Custom entries (never sent to the model) carrying the frame and the facts told later. */
export const FRAME_ENTRY = "omp.request_frame";
export const FACTS_ENTRY = "omp.facts";
export { DROP_THINKING_ENTRY } from "../ai/preserved-thinking.ts";

export function currentFacts(git: string, now: Date = new Date()): Facts {
  return { date: now.toISOString().slice(0, 10), git };
}

/** The frame stored on a branch and the facts the model was last told, if the session has one. */
export function frameOf(branch: readonly SessionEntry[]): { frame?: RequestFrame; facts?: Facts } {
  let frame: RequestFrame | undefined;
  let facts: Facts | undefined;
  for (const entry of branch) {
    if (entry.type !== "custom") continue;
    if (entry.customType === FRAME_ENTRY && isFrame(entry.data)) {
      frame = entry.data;
      facts = entry.data.facts;
    } else if (entry.customType === FACTS_ENTRY && isFacts(entry.data)) facts = entry.data;
  }
  return frame ? { frame, facts } : {};
}

function isFacts(value: unknown): value is Facts {
  const v = value as Partial<Facts> | null;
  return typeof v?.date === "string" && typeof v.git === "string";
}

function isFrame(value: unknown): value is RequestFrame {
  const v = value as Partial<RequestFrame> | null;
  return typeof v?.systemPrompt === "string" && Array.isArray(v.tools) && isFacts(v.facts);
}

/** What changed since the model was last told, as a note for the next message; undefined when nothing did. */
export function factsNote(before: Facts, now: Facts): string | undefined {
  const lines: string[] = [];
  if (before.date !== now.date) lines.push(`Today's date is now ${now.date}.`);
  if (before.git !== now.git) lines.push(now.git ? `The repository has changed since the start of this session. Its state now:\n${now.git}` : "The working directory is no longer a git repository.");
  if (lines.length === 0) return undefined;
  return `<context-update>\n${lines.join("\n")}\n</context-update>`;
}
