import type { z } from "zod";
import type { AssistantEvent } from "../ai/stream.ts";
import type * as schema from "../protocol/agent-events.ts";

/**
 * The agent's events, typed from their zod schemas (core/protocol/agent-events.ts); this module
 * stays free of zod so the start-up path can import it.
 */
export type AssistantDelta = z.output<typeof schema.AssistantDelta>;
export type AgentEvent = z.output<typeof schema.AgentEvent>;
export type AgentStopReason = z.output<typeof schema.AgentStopReason>;

export function toDelta(event: AssistantEvent): AssistantDelta | undefined {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return { type: event.type, contentIndex: event.contentIndex, delta: event.delta };
    case "text_start":
    case "text_end":
    case "thinking_start":
    case "thinking_end":
    case "toolcall_start":
      return { type: event.type, contentIndex: event.contentIndex };
    case "toolcall_end":
      return {
        type: "toolcall_end",
        contentIndex: event.contentIndex,
        toolCall: { id: event.toolCall.id, name: event.toolCall.name, arguments: event.toolCall.arguments },
      };
    default:
      return undefined;
  }
}
