import type { WireFormat } from "./format.ts";
import type { Reply } from "./script.ts";

/**
 * Stop sequences as each provider takes them: a reply's text ends before the first one it
 * contains, as the real model's would. Only the provider's own field counts, so a client whose
 * stop sequences were not forwarded (or forwarded under the wrong name) gets the whole text back.
 */
export function stopSequencesOf(format: WireFormat["name"], body: any): string[] {
  let stop: unknown;
  if (format === "anthropic") stop = body?.stop_sequences;
  else if (format === "openai-completions") stop = body?.stop;
  // Gemini's generationConfig; Code Assist wraps the same request in `request`.
  else if (format === "google") stop = (body?.request ?? body)?.generationConfig?.stopSequences;
  if (typeof stop === "string") return [stop];
  return Array.isArray(stop) ? stop.filter((s): s is string => typeof s === "string") : [];
}

export function applyStopSequences(reply: Reply, sequences: string[]): Reply {
  if (reply.text === undefined) return reply;
  let cut: { at: number; sequence: string } | undefined;
  for (const sequence of sequences) {
    const at = reply.text.indexOf(sequence);
    if (at >= 0 && (cut === undefined || at < cut.at)) cut = { at, sequence };
  }
  if (!cut) return reply;
  // The model stops writing there: no tool calls follow the cut.
  return { ...reply, text: reply.text.slice(0, cut.at), toolCalls: undefined, stop: "stop", stopSequence: cut.sequence };
}
