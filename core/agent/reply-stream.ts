import { stream } from "../ai/index.ts";
import type { AssistantMessage } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import type { Context, StreamFunction, StreamOptions } from "../ai/stream.ts";
import { type AgentEvent, toDelta } from "./events.ts";

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
): Promise<AssistantMessage> {
  let final: AssistantMessage | undefined;
  let started = false;
  for await (const event of streamFn(model, context, options)) {
    if (event.type === "start") {
      started = true;
      emit({ type: "message_start", message: event.partial });
    } else if (event.type === "retry") {
      emit({ type: "auto_retry_start", attempt: event.attempt, delayMs: event.delayMs, reason: redact(event.reason), ...(event.discarded ? { discarded: true } : {}) });
      // The next attempt's reply is a new message for the UIs; the discarded one stays as it was shown.
      if (event.discarded) started = false;
    } else if (!started && event.type !== "done" && event.type !== "error" && "partial" in event) {
      started = true;
      emit({ type: "message_start", message: event.partial });
      const delta = toDelta(event);
      if (delta) emit({ type: "message_update", assistantMessageEvent: delta });
    } else if (event.type === "done" || event.type === "error") {
      // A provider's error body can echo what it was sent (a key in a bad header, a config value).
      final = event.message.errorMessage === undefined ? event.message : { ...event.message, errorMessage: redact(event.message.errorMessage) };
    } else {
      const delta = toDelta(event);
      if (delta) emit({ type: "message_update", assistantMessageEvent: delta });
    }
  }
  if (!final) throw new Error(`the ${model.api} stream ended without a final message`);
  if (!started) emit({ type: "message_start", message: final });
  return final;
}
