import { z } from "zod";
import { AssistantMessage, Message, ToolResultMessage, Usage } from "../ai/messages-schema.ts";
import { ErrorInfo } from "./error.ts";

/**
 * The agent's events as zod schemas, the one definition of their shape: core/agent/events.ts
 * derives its types from here without loading zod, and the protocol (JSON Schema, generated
 * client) describes them from here.
 */

const contentIndex = { contentIndex: z.number().int() };

/** A streaming delta as json/rpc clients receive it: the event without the growing partial message. */
export const AssistantDelta = z.discriminatedUnion("type", [
  z.object({ type: z.enum(["text_delta", "thinking_delta", "toolcall_delta"]), ...contentIndex, delta: z.string() }),
  z.object({ type: z.enum(["text_start", "text_end", "thinking_start", "thinking_end", "toolcall_start"]), ...contentIndex }),
  z.object({ type: z.literal("toolcall_end"), ...contentIndex, toolCall: z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) }) }),
]);

/**
 * Why a run ended: the model finished, a limit or abort stopped it, or it failed. `hook`: a hook
 * answered `continue: false`; agent_end's error carries its stopReason. `denied`: the user turned
 * a call down without a word, and the model waits for them.
 */
export const AgentStopReason = z.enum(["stop", "aborted", "error", "max_turns", "max_time", "length", "hook", "denied"]);

const tool = { toolCallId: z.string(), toolName: z.string() };

/**
 * What an agent run reports, in order: agent_start, then per turn turn_start, the assistant
 * message (start, updates, end), tool executions with their result messages, turn_end; finally
 * agent_end. The names follow omp's RPC protocol.
 */
export const AgentEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("agent_start") }),
  /** A failed run (stopReason error) carries its failure typed in `errorInfo`, beside `error`'s words. */
  z.object({ type: z.literal("agent_end"), stopReason: AgentStopReason, error: z.string().optional(), errorInfo: ErrorInfo.optional(), usage: Usage }),
  z.object({ type: z.literal("turn_start"), turn: z.number().int() }),
  z.object({ type: z.literal("turn_end"), turn: z.number().int(), message: AssistantMessage, toolResults: z.array(ToolResultMessage) }),
  z.object({ type: z.literal("message_start"), message: Message }),
  z.object({ type: z.literal("message_update"), assistantMessageEvent: AssistantDelta }),
  z.object({ type: z.literal("message_end"), message: Message }),
  z.object({ type: z.literal("tool_execution_start"), ...tool, args: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal("tool_execution_update"), ...tool, output: z.string() }),
  z.object({ type: z.literal("tool_execution_end"), ...tool, isError: z.boolean(), details: z.unknown().optional() }),
  /** `discarded`: the text shown so far is dropped and the reply starts again (a new message_start follows). */
  z.object({ type: z.literal("auto_retry_start"), attempt: z.number().int(), delayMs: z.number(), reason: z.string(), discarded: z.boolean().optional() }),
  /** Stream rules (TTSR) matched the reply: `interrupted` when it was cut there and is asked again with their text. */
  z.object({
    type: z.literal("ttsr_triggered"),
    rules: z.array(z.object({ name: z.string(), path: z.string(), description: z.string().optional() })),
    interrupted: z.boolean(),
  }),
  z.object({ type: z.literal("auto_compaction_start"), reason: z.enum(["threshold", "overflow", "manual"]) }),
  /** A failed compaction says why in `error` and, typed, in `errorInfo` (the summary request's failure, say a rate limit). */
  z.object({ type: z.literal("auto_compaction_end"), tokensBefore: z.number().optional(), summary: z.string().optional(), error: z.string().optional(), errorInfo: ErrorInfo.optional() }),
]);
