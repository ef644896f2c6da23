import type { z } from "zod";
import type * as schema from "./messages-schema.ts";

/**
 * The conversation's types, derived from the zod schemas in messages-schema.ts. This module stays
 * free of zod so that everything streaming or recording messages can import it at start-up.
 */

export type TextContent = z.output<typeof schema.TextContent>;
export type ThinkingContent = z.output<typeof schema.ThinkingContent>;
export type ImageContent = z.output<typeof schema.ImageContent>;
export type ToolCall = z.output<typeof schema.ToolCall>;
export type Cost = z.output<typeof schema.Cost>;
export type Usage = z.output<typeof schema.Usage>;
export type StopReason = z.output<typeof schema.StopReason>;
export type UserMessage = z.output<typeof schema.UserMessage>;
export type AssistantMessage = z.output<typeof schema.AssistantMessage>;
export type ToolResultMessage = z.output<typeof schema.ToolResultMessage>;
export type Message = z.output<typeof schema.Message>;

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}
