import type { AssistantMessage, ImageContent, TextContent, ThinkingContent, ToolCall, ToolResultMessage } from "../ai/messages.ts";
import { emptyUsage } from "../ai/messages.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import { failure } from "./errors.ts";
import { RequestError } from "./codec.ts";
import { type Origin, originOf } from "./signature.ts";

/** Thinking as a client sent it back, with whose signature it carries (`null`: foreign, to be dropped). */
export interface ReturnedThinking {
  type: "thinking";
  thinking: string;
  signature?: string;
  redacted?: boolean;
  origin: Origin | null;
}

export type ReturnedPart = TextContent | ToolCall | ReturnedThinking;

const sameOrigin = (a: Origin, b: Origin) => a.provider === b.provider && a.api === b.api && a.model === b.model;

/**
 * An earlier assistant turn as core/ai keeps it. The message is attributed to the model whose
 * signed thinking it carries, so core/ai's adapters replay that thinking only to that model;
 * thinking of any other origin in it is dropped here.
 */
export function assistantTurn(parts: ReturnedPart[], target: Model): AssistantMessage {
  const origin = parts.find((p): p is ReturnedThinking => p.type === "thinking" && p.origin !== null)?.origin ?? originOf(target);
  const content: AssistantMessage["content"] = [];
  for (const part of parts) {
    if (part.type !== "thinking") content.push(part);
    else if (part.origin !== null && sameOrigin(part.origin, origin)) {
      const block: ThinkingContent = { type: "thinking", thinking: part.thinking };
      if (part.signature !== undefined) block.signature = part.signature;
      if (part.redacted) block.redacted = true;
      content.push(block);
    }
  }
  return {
    role: "assistant",
    content,
    api: origin.api,
    provider: origin.provider,
    model: origin.model,
    usage: emptyUsage(),
    stopReason: content.some((c) => c.type === "toolCall") ? "toolUse" : "stop",
    timestamp: Date.now(),
  };
}

export function toolResult(toolCallId: string, toolName: string, content: (TextContent | ImageContent)[], isError: boolean): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName, content, isError, timestamp: Date.now() };
}

/** `data:image/png;base64,...` as an image block; other URLs cannot be passed on and become a note. */
export function imageFromUrl(url: string): ImageContent | TextContent {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match) return { type: "image", mimeType: match[1]!, data: match[2]! };
  return { type: "text", text: `[image at ${url}: only inline (base64) images are passed on]` };
}

/** The arguments of a call a client returned: JSON text in the OpenAI formats. */
export function parseArguments(text: string | undefined, where: string): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new RequestError(failure("invalid_request", `${where}: the tool call arguments are not a JSON object`));
}

const EFFORTS: Record<string, ThinkingLevel> = { none: "off", minimal: "minimal", low: "low", medium: "medium", high: "high", xhigh: "xhigh", max: "xhigh" };

/** A named effort (OpenAI's, Anthropic's output_config) as omp's level; unknown names mean medium. */
export function effortLevel(effort: string | null | undefined): ThinkingLevel {
  if (effort === undefined || effort === null) return "medium";
  return EFFORTS[effort] ?? "medium";
}

/** Anthropic's budget_tokens as the nearest level (omp's budgets: 1024, 4096, 10240, 24576, 32768). */
export function budgetLevel(tokens: number | undefined): ThinkingLevel {
  if (tokens === undefined) return "medium";
  if (tokens <= 2048) return "minimal";
  if (tokens <= 6144) return "low";
  if (tokens <= 16384) return "medium";
  if (tokens <= 28672) return "high";
  return "xhigh";
}

/** A client's output cap, no higher than the model allows. */
export function capTokens(asked: number | null | undefined, model: Model): number | undefined {
  return typeof asked === "number" && asked > 0 ? Math.min(asked, model.maxTokens) : undefined;
}
