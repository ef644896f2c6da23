import type { AssistantMessage, StopReason, Usage } from "../ai/messages.ts";
import type { EncodeContext, StreamEncoder } from "./codec.ts";
import type { FailureKind, GatewayFailure } from "./errors.ts";
import { sealSignature } from "./signature.ts";
import { sseFrame } from "../http/sse.ts";
import { sameAsClient } from "../ai/apis/index.ts";

const STOP: Record<StopReason, string> = { stop: "end_turn", length: "max_tokens", toolUse: "tool_use", error: "end_turn", aborted: "end_turn" };

/** Only an upstream that names the stop sequence it met (Anthropic) yields `stop_sequence`; the others say only "stop". */
function stopFields(message: AssistantMessage): { stop_reason: string; stop_sequence: string | null } {
  if (message.stopSequence !== undefined && message.stopReason === "stop") return { stop_reason: "stop_sequence", stop_sequence: message.stopSequence };
  return { stop_reason: STOP[message.stopReason], stop_sequence: null };
}

const ERRORS: Record<FailureKind, [number, string]> = {
  invalid_request: [400, "invalid_request_error"],
  authentication: [401, "authentication_error"],
  permission: [403, "permission_error"],
  not_found: [404, "not_found_error"],
  too_large: [413, "request_too_large"],
  unsupported_media: [415, "invalid_request_error"],
  rate_limit: [429, "rate_limit_error"],
  api_error: [500, "api_error"],
  timeout: [504, "timeout_error"],
  overloaded: [529, "overloaded_error"],
};

export function anthropicError(failure: GatewayFailure, requestId: string): { status: number; body: unknown } {
  const [status, type] = ERRORS[failure.kind];
  return { status, body: { type: "error", error: { type, message: failure.message }, request_id: requestId } };
}

/** Anthropic accepts tool ids matching `^[a-zA-Z0-9_-]+$`; other providers' ids are mapped into that. */
export function anthropicToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return clean === "" ? "toolu_omp" : clean;
}

function usageFields(usage: Usage) {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: usage.output,
  };
}

/** Signed thinking from Anthropic goes to the client byte-exact; anything else is sealed (see signature.ts). */
function clientSignature(context: EncodeContext, signature: string | undefined): string {
  if (sameAsClient(context.upstream, "anthropic")) return signature ?? "";
  return sealSignature(context.upstream, signature);
}

export function anthropicMessage(context: EncodeContext, message: AssistantMessage): unknown {
  const content: unknown[] = [];
  for (const block of message.content) {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "toolCall") content.push({ type: "tool_use", id: anthropicToolId(block.id), name: block.name, input: block.arguments });
    else if (block.redacted) {
      if (sameAsClient(context.upstream, "anthropic")) content.push({ type: "redacted_thinking", data: block.signature ?? "" });
    } else content.push({ type: "thinking", thinking: block.thinking, signature: clientSignature(context, block.signature) });
  }
  return {
    id: `msg_${context.requestId}`,
    type: "message",
    role: "assistant",
    model: context.modelName,
    content,
    ...stopFields(message),
    usage: usageFields(message.usage),
  };
}

/**
 * Anthropic's stream in the order strict clients check: message_start with the real input usage,
 * each block's start before its deltas with contiguous indices, signature before the block's stop,
 * message_delta with the final usage, message_stop.
 */
export function anthropicEncoder(context: EncodeContext): StreamEncoder {
  const indices = new Map<number, number>();
  const argumentsSent = new Set<number>();
  let next = 0;
  const delta = (at: number, d: Record<string, unknown>) => sseFrame({ type: "content_block_delta", index: at, delta: d }, "content_block_delta");
  const start = (contentIndex: number, block: Record<string, unknown>) => {
    const at = next++;
    indices.set(contentIndex, at);
    return sseFrame({ type: "content_block_start", index: at, content_block: block }, "content_block_start");
  };
  const stop = (contentIndex: number) => {
    const at = indices.get(contentIndex);
    return at === undefined ? [] : [sseFrame({ type: "content_block_stop", index: at }, "content_block_stop")];
  };

  return {
    open(partial) {
      const usage = partial.usage;
      const known = usage.input + usage.cacheRead + usage.cacheWrite > 0;
      const message = {
        id: `msg_${context.requestId}`,
        type: "message",
        role: "assistant",
        model: context.modelName,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usageFields(usage), input_tokens: known ? usage.input : context.estimatedInput, output_tokens: Math.max(1, usage.output) },
      };
      return [sseFrame({ type: "message_start", message }, "message_start"), sseFrame({ type: "ping" }, "ping")];
    },
    event(event) {
      switch (event.type) {
        case "text_start":
          return [start(event.contentIndex, { type: "text", text: "" })];
        case "text_delta":
          return [delta(indices.get(event.contentIndex)!, { type: "text_delta", text: event.delta })];
        case "thinking_start": {
          const block = event.partial.content[event.contentIndex];
          if (block?.type === "thinking" && block.redacted) {
            // Redacted thinking only means something to the provider that encrypted it.
            if (!sameAsClient(context.upstream, "anthropic")) return [];
            return [start(event.contentIndex, { type: "redacted_thinking", data: block.signature ?? "" })];
          }
          return [start(event.contentIndex, { type: "thinking", thinking: "", signature: "" })];
        }
        case "thinking_delta": {
          const at = indices.get(event.contentIndex);
          return at === undefined ? [] : [delta(at, { type: "thinking_delta", thinking: event.delta })];
        }
        case "thinking_end": {
          const at = indices.get(event.contentIndex);
          const block = event.partial.content[event.contentIndex];
          if (at === undefined || block?.type !== "thinking") return [];
          if (block.redacted) return stop(event.contentIndex);
          const signature = clientSignature(context, block.signature);
          return [...(signature === "" ? [] : [delta(at, { type: "signature_delta", signature })]), ...stop(event.contentIndex)];
        }
        case "toolcall_start": {
          const call = event.partial.content[event.contentIndex];
          if (call?.type !== "toolCall") return [];
          return [start(event.contentIndex, { type: "tool_use", id: anthropicToolId(call.id), name: call.name, input: {} })];
        }
        case "toolcall_delta":
          argumentsSent.add(event.contentIndex);
          return [delta(indices.get(event.contentIndex)!, { type: "input_json_delta", partial_json: event.delta })];
        case "toolcall_end": {
          // Providers that only give the arguments at the end still deliver them.
          const late = argumentsSent.has(event.contentIndex) ? [] : [delta(indices.get(event.contentIndex)!, { type: "input_json_delta", partial_json: JSON.stringify(event.toolCall.arguments) })];
          return [...late, ...stop(event.contentIndex)];
        }
        case "text_end":
          return stop(event.contentIndex);
        default:
          return [];
      }
    },
    done(message) {
      return [
        sseFrame({ type: "message_delta", delta: stopFields(message), usage: usageFields(message.usage) }, "message_delta"),
        sseFrame({ type: "message_stop" }, "message_stop"),
      ];
    },
    fail(failure) {
      const type = failure.kind === "overloaded" ? "overloaded_error" : failure.kind === "rate_limit" ? "rate_limit_error" : "api_error";
      return [sseFrame({ type: "error", error: { type, message: failure.message }, request_id: context.requestId }, "error")];
    },
    ping: () => sseFrame({ type: "ping" }, "ping"),
  };
}
