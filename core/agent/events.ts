import type { AssistantEvent } from "../ai/stream.ts";
import type { AssistantMessage, Message, ToolResultMessage, Usage } from "../ai/messages.ts";

/** A streaming delta as json/rpc clients receive it: the event without the growing partial message. */
export type AssistantDelta =
  | { type: "text_delta" | "thinking_delta" | "toolcall_delta"; contentIndex: number; delta: string }
  | { type: "text_start" | "text_end" | "thinking_start" | "thinking_end" | "toolcall_start"; contentIndex: number }
  | { type: "toolcall_end"; contentIndex: number; toolCall: { id: string; name: string; arguments: Record<string, unknown> } };

/**
 * What an agent run reports, in order: agent_start, then per turn turn_start, the assistant
 * message (start, updates, end), tool executions with their result messages, turn_end; finally
 * agent_end. The names follow omp's RPC protocol.
 */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; stopReason: AgentStopReason; error?: string; usage: Usage }
  | { type: "turn_start"; turn: number }
  | { type: "turn_end"; turn: number; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: Message }
  | { type: "message_update"; assistantMessageEvent: AssistantDelta }
  | { type: "message_end"; message: Message }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: Record<string, unknown> }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; output: string }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; isError: boolean; details?: unknown }
  /** `discarded`: the text shown so far is dropped and the reply starts again (a new message_start follows). */
  | { type: "auto_retry_start"; attempt: number; delayMs: number; reason: string; discarded?: boolean }
  /** Stream rules (TTSR) matched the reply: `interrupted` when it was cut there and is asked again with their text. */
  | { type: "ttsr_triggered"; rules: { name: string; path: string; description?: string }[]; interrupted: boolean }
  | { type: "auto_compaction_start"; reason: "threshold" | "overflow" | "manual" }
  | { type: "auto_compaction_end"; tokensBefore?: number; summary?: string; error?: string };

/** Why a run ended: the model finished, a limit or abort stopped it, or it failed. */
/** `hook`: a hook answered `continue: false`; agent_end's error carries its stopReason. `denied`: the user turned a call down without a word, and the model waits for them. */
export type AgentStopReason = "stop" | "aborted" | "error" | "max_turns" | "max_time" | "length" | "hook" | "denied";

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
