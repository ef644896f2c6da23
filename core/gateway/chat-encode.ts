import type { AssistantMessage, StopReason, Usage } from "../ai/messages.ts";
import type { EncodeContext, StreamEncoder } from "./codec.ts";
import type { FailureKind, GatewayFailure } from "./errors.ts";
import { sseFrame } from "../http/sse.ts";

const FINISH: Record<StopReason, string> = { stop: "stop", length: "length", toolUse: "tool_calls", error: "stop", aborted: "stop" };

const ERRORS: Record<FailureKind, [number, string, string | null]> = {
  invalid_request: [400, "invalid_request_error", null],
  authentication: [401, "authentication_error", "invalid_api_key"],
  permission: [403, "permission_error", null],
  not_found: [404, "invalid_request_error", "model_not_found"],
  too_large: [413, "invalid_request_error", "request_too_large"],
  unsupported_media: [415, "invalid_request_error", "unsupported_media_type"],
  rate_limit: [429, "rate_limit_error", "rate_limit_exceeded"],
  api_error: [500, "server_error", "server_error"],
  timeout: [504, "server_error", "timeout"],
  overloaded: [503, "server_error", "server_is_overloaded"],
};

/** OpenAI's error envelope, used by both OpenAI formats. */
export function openaiErrorBody(failure: GatewayFailure): { status: number; error: { message: string; type: string; param: null; code: string | null } } {
  const [status, type, code] = ERRORS[failure.kind];
  return { status, error: { message: failure.message, type, param: null, code } };
}

export function openaiError(failure: GatewayFailure): { status: number; body: unknown } {
  const { status, error } = openaiErrorBody(failure);
  return { status, body: { error } };
}

/** OpenAI counts cached tokens inside prompt_tokens. */
export function chatUsage(usage: Usage) {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

export function chatMessage(context: EncodeContext, message: AssistantMessage): unknown {
  const text = message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
  const reasoning = message.content.flatMap((c) => (c.type === "thinking" ? [c.thinking] : [])).join("");
  const calls = message.content.flatMap((c) => (c.type === "toolCall" ? [{ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } }] : []));
  const reply: Record<string, unknown> = { role: "assistant", content: text === "" && calls.length > 0 ? null : text, refusal: null };
  if (reasoning !== "") reply.reasoning_content = reasoning;
  if (calls.length > 0) reply.tool_calls = calls;
  return {
    id: `chatcmpl-${context.requestId}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: context.modelName,
    choices: [{ index: 0, message: reply, logprobs: null, finish_reason: FINISH[message.stopReason] }],
    usage: chatUsage(message.usage),
  };
}

/**
 * Chat Completions chunks: every tool_calls delta has its index, the first for a call carries id,
 * type and name; reasoning goes in `reasoning_content`; with include_usage a last chunk has empty
 * `choices` and the usage, then `[DONE]`.
 */
export function chatEncoder(context: EncodeContext): StreamEncoder {
  const created = Math.floor(Date.now() / 1000);
  const toolIndex = new Map<number, number>();
  const argumentsSent = new Set<number>();
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseFrame({
      id: `chatcmpl-${context.requestId}`,
      object: "chat.completion.chunk",
      created,
      model: context.modelName,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const args = (contentIndex: number, text: string) => chunk({ tool_calls: [{ index: toolIndex.get(contentIndex)!, function: { arguments: text } }] });

  return {
    open: () => [chunk({ role: "assistant", content: "" })],
    event(event) {
      switch (event.type) {
        case "text_delta":
          return [chunk({ content: event.delta })];
        case "thinking_delta":
          return [chunk({ reasoning_content: event.delta })];
        case "toolcall_start": {
          const call = event.partial.content[event.contentIndex];
          if (call?.type !== "toolCall") return [];
          const index = toolIndex.size;
          toolIndex.set(event.contentIndex, index);
          return [chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] })];
        }
        case "toolcall_delta":
          argumentsSent.add(event.contentIndex);
          return [args(event.contentIndex, event.delta)];
        case "toolcall_end":
          return argumentsSent.has(event.contentIndex) ? [] : [args(event.contentIndex, JSON.stringify(event.toolCall.arguments))];
        default:
          return [];
      }
    },
    done(message) {
      const out = [chunk({}, FINISH[message.stopReason])];
      if (context.request.includeUsage) {
        out.push(
          sseFrame({ id: `chatcmpl-${context.requestId}`, object: "chat.completion.chunk", created, model: context.modelName, choices: [], usage: chatUsage(message.usage) }),
        );
      }
      out.push("data: [DONE]\n\n");
      return out;
    },
    fail(failure) {
      // The SDKs raise an APIError for a data line carrying `error`.
      return [sseFrame({ error: openaiErrorBody(failure).error })];
    },
    ping: () => ": ping\n\n",
  };
}
