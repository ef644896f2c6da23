import { stream } from "../ai/index.ts";
import type { AssistantMessage } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import type { AssistantEvent, Context, StreamFunction, StreamOptions } from "../ai/stream.ts";
import { type AgentEvent, type AssistantDelta, toDelta } from "./events.ts";
import { ResentReply } from "./resent-reply.ts";

/**
 * Streams one model reply, turning the provider's events into the agent's message events, and
 * returns the final message (a failure is in its stopReason and errorMessage).
 */
export async function streamReply(
  model: Model,
  context: Context,
  options: StreamOptions,
  emit: (event: AgentEvent) => void,
  redact: (text: string) => string,
  streamFn: StreamFunction = stream,
  /** Sees each event first; true keeps it from the front ends (a stream rule cut the reply there). */
  withhold?: (event: AssistantEvent) => boolean,
): Promise<AssistantMessage> {
  let final: AssistantMessage | undefined;
  let started = false;
  // A reply broken off before any tool call is asked for again: its repeat is joined to what was shown.
  let resent = new ResentReply();
  let retry: { attempt: number; delayMs: number } = { attempt: 0, delayMs: 0 };
  const pass = (delta: AssistantDelta, partial: AssistantMessage) => {
    const out = resent.filter(delta);
    if (out === undefined) return;
    if (out !== "diverged") return emit({ type: "message_update", assistantMessageEvent: out });
    // The repeat says something else: it is shown as a reply of its own, the one before it dropped.
    emit({ type: "auto_retry_start", ...retry, reason: "the provider's new answer differs from the one it broke off", discarded: true });
    emit({ type: "message_start", message: partial });
    const replay = resent.replay();
    resent = new ResentReply();
    for (const again of replay) {
      resent.record(again);
      emit({ type: "message_update", assistantMessageEvent: again });
    }
  };
  for await (const event of streamFn(model, context, options)) {
    if (withhold?.(event)) continue;
    if (event.type === "start") {
      started = true;
      emit({ type: "message_start", message: event.partial });
    } else if (event.type === "retry") {
      retry = { attempt: event.attempt, delayMs: event.delayMs };
      emit({ type: "auto_retry_start", attempt: event.attempt, delayMs: event.delayMs, reason: redact(event.reason) });
      if (event.discarded) resent.restart();
    } else if (!started && event.type !== "done" && event.type !== "error" && "partial" in event) {
      started = true;
      emit({ type: "message_start", message: event.partial });
      const delta = toDelta(event);
      if (delta) pass(delta, event.partial);
    } else if (event.type === "done" || event.type === "error") {
      // A provider's error body can echo what it was sent (a key in a bad header, a config value).
      final = event.message.errorMessage === undefined ? event.message : { ...event.message, errorMessage: redact(event.message.errorMessage) };
    } else {
      const delta = toDelta(event);
      if (delta && "partial" in event) pass(delta, event.partial);
    }
  }
  if (!final) throw new Error(`the ${model.api} stream ended without a final message`);
  if (!started) emit({ type: "message_start", message: final });
  return final;
}
