import { z } from "zod";
import { FAILURE_KINDS } from "./failure.ts";

/**
 * The conversation model every provider adapter speaks, and the shape messages have in session
 * files. One schema, so what is streamed, stored and resumed cannot drift apart. Its types are
 * in messages.ts, which the start-up path imports without loading zod.
 */

export const TextContent = z.object({ type: z.literal("text"), text: z.string() });

export const ThinkingContent = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  /**
   * Opaque provider data needed to send the thinking back on the next request: Anthropic's
   * `signature` (or `redacted_thinking` data), OpenAI Responses' reasoning item (id plus
   * `encrypted_content`) serialised as JSON.
   */
  signature: z.string().optional(),
  redacted: z.boolean().optional(),
});

export const ImageContent = z.object({
  type: z.literal("image"),
  /** Base64, no data: prefix. */
  data: z.string(),
  mimeType: z.string(),
});

export const ToolCall = z.object({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** Provider data to round-trip (e.g. Gemini's thoughtSignature, Responses' item id). */
  providerData: z.string().optional(),
});

export const Cost = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  total: z.number(),
});

export const Usage = z.object({
  /** Input tokens not served from or written to the prompt cache. */
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  totalTokens: z.number(),
  /** US dollars, from the model's prices. */
  cost: Cost,
});

export const StopReason = z.enum(["stop", "length", "toolUse", "error", "aborted"]);

export const ProviderFailure = z.object({
  kind: z.enum(FAILURE_KINDS),
  status: z.number().optional(),
  code: z.string().optional(),
  retryAfterMs: z.number().optional(),
  resetsAt: z.number().optional(),
  retryable: z.boolean(),
});

export const UserMessage = z.object({
  role: z.literal("user"),
  content: z.union([z.string(), z.array(z.union([TextContent, ImageContent]))]),
  timestamp: z.number(),
});

export const AssistantMessage = z.object({
  role: z.literal("assistant"),
  content: z.array(z.union([TextContent, ThinkingContent, ToolCall])),
  api: z.string(),
  provider: z.string(),
  model: z.string(),
  usage: Usage,
  stopReason: StopReason,
  /** The caller's stop sequence that ended the text, when the provider names it (Anthropic does). */
  stopSequence: z.string().optional(),
  errorMessage: z.string().optional(),
  /** Why the call failed, as its kind (core/ai/failure.ts): what the agent, rotation and gateway act on. */
  failure: ProviderFailure.optional(),
  timestamp: z.number(),
});

export const ToolResultMessage = z.object({
  role: z.literal("toolResult"),
  toolCallId: z.string(),
  toolName: z.string(),
  content: z.array(z.union([TextContent, ImageContent])),
  isError: z.boolean(),
  /** Tool-specific data for UIs (a diff, exit code); never sent to the model. */
  details: z.unknown().optional(),
  timestamp: z.number(),
});

export const Message = z.discriminatedUnion("role", [UserMessage, AssistantMessage, ToolResultMessage]);
