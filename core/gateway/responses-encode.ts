import type { AssistantMessage, ThinkingContent, ToolCall, Usage } from "../ai/messages.ts";
import type { EncodeContext, StreamEncoder } from "./codec.ts";
import { openaiErrorBody } from "./chat-encode.ts";
import { sealSignature } from "./signature.ts";
import { sseFrame } from "../http/sse.ts";
import { sameAsClient } from "../ai/apis/index.ts";

type Json = Record<string, unknown>;

export function responsesUsage(usage: Usage) {
  const input = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + usage.output,
  };
}

export function responseId(requestId: string): string {
  return `resp_${requestId}`;
}

function baseResponse(context: EncodeContext, createdAt: number, status: string): Json {
  return {
    id: responseId(context.requestId),
    object: "response",
    created_at: createdAt,
    status,
    model: context.modelName,
    output: [],
    usage: null,
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    parallel_tool_calls: true,
    previous_response_id: context.request.previousResponseId ?? null,
    reasoning: { effort: null, summary: null },
    store: context.request.keep === true,
    temperature: null,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: null,
    truncation: "disabled",
  };
}

function finalResponse(context: EncodeContext, createdAt: number, message: AssistantMessage, output: Json[]): Json {
  const response = baseResponse(context, createdAt, message.stopReason === "length" ? "incomplete" : "completed");
  response.output = output;
  response.usage = responsesUsage(message.usage);
  if (message.stopReason === "length") response.incomplete_details = { reason: "max_output_tokens" };
  return response;
}

/** The reasoning item the client gets: OpenAI's own item as it came, anything else sealed. */
function reasoningItem(context: EncodeContext, block: ThinkingContent, fallbackId: string): Json {
  const summary = block.thinking === "" ? [] : [{ type: "summary_text", text: block.thinking }];
  if (sameAsClient(context.upstream, "openai-responses") && block.signature) {
    try {
      const item = JSON.parse(block.signature) as Json;
      if (item.type === "reasoning" && typeof item.id === "string") {
        const out: Json = { id: item.id, type: "reasoning", summary };
        if (typeof item.encrypted_content === "string") out.encrypted_content = item.encrypted_content;
        return out;
      }
    } catch {
      // Not an item: sealed below like any other.
    }
  }
  return { id: fallbackId, type: "reasoning", summary, encrypted_content: sealSignature(context.upstream, block.signature, block.redacted) };
}

function callItem(context: EncodeContext, call: ToolCall, id: string, argumentsText: string): Json {
  if (context.request.customTools?.has(call.name)) {
    const input = typeof call.arguments.input === "string" ? call.arguments.input : JSON.stringify(call.arguments);
    return { id, type: "custom_tool_call", status: "completed", call_id: call.id, name: call.name, input };
  }
  return { id, type: "function_call", status: "completed", call_id: call.id, name: call.name, arguments: argumentsText };
}

function messageItem(id: string, text: string, status: string): Json {
  return { id, type: "message", status, role: "assistant", content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [], logprobs: [] }] };
}

export function responsesMessage(context: EncodeContext, message: AssistantMessage): unknown {
  const output = message.content.map((block, n): Json => {
    const id = `${context.requestId}_${n}`;
    if (block.type === "text") return messageItem(`msg_${id}`, block.text, "completed");
    if (block.type === "thinking") return reasoningItem(context, block, `rs_${id}`);
    return callItem(context, block, callId(context, block, `fc_${id}`), JSON.stringify(block.arguments));
  });
  return finalResponse(context, Math.floor(Date.now() / 1000), message, output);
}

/** Responses' own call items keep their `fc_` ids, which the client echoes back to the same model. */
function callId(context: EncodeContext, call: ToolCall, fallback: string): string {
  if (context.request.customTools?.has(call.name)) return fallback.replace(/^fc_/, "ctc_");
  return sameAsClient(context.upstream, "openai-responses") && call.providerData?.startsWith("fc") ? call.providerData : fallback;
}

interface Open {
  outputIndex: number;
  id: string;
  /** Argument text streamed so far (calls); frames held back until the item is whole (reasoning, freeform calls). */
  text: string;
}

/**
 * The Responses event sequence: response.created, then per item output_item.added → its deltas
 * → its .done events → output_item.done, and always a terminal response.completed (or
 * response.failed). Reasoning and freeform-tool items are sent whole when they end, since their
 * ids and inputs are only known then.
 */
export function responsesEncoder(context: EncodeContext): StreamEncoder {
  const createdAt = Math.floor(Date.now() / 1000);
  const open = new Map<number, Open>();
  const output: Json[] = [];
  let sequence = 0;
  const send = (type: string, fields: Json) => sseFrame({ type, sequence_number: sequence++, ...fields }, type);
  const begin = (contentIndex: number, id: string): Open => {
    const item = { outputIndex: output.length, id, text: "" };
    output.push({});
    open.set(contentIndex, item);
    return item;
  };
  const isCustom = (call: unknown) => (call as ToolCall | undefined)?.type === "toolCall" && context.request.customTools?.has((call as ToolCall).name) === true;

  return {
    open: () => [send("response.created", { response: baseResponse(context, createdAt, "in_progress") }), send("response.in_progress", { response: baseResponse(context, createdAt, "in_progress") })],
    event(event) {
      const at = "contentIndex" in event ? open.get(event.contentIndex) : undefined;
      switch (event.type) {
        case "text_start": {
          const item = begin(event.contentIndex, `msg_${context.requestId}_${event.contentIndex}`);
          return [
            send("response.output_item.added", { output_index: item.outputIndex, item: messageItem(item.id, "", "in_progress") }),
            send("response.content_part.added", { item_id: item.id, output_index: item.outputIndex, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }),
          ];
        }
        case "text_delta":
          return at ? [send("response.output_text.delta", { item_id: at.id, output_index: at.outputIndex, content_index: 0, delta: event.delta, logprobs: [] })] : [];
        case "text_end": {
          if (!at) return [];
          const text = event.content.text;
          const done = messageItem(at.id, text, "completed");
          output[at.outputIndex] = done;
          return [
            send("response.output_text.done", { item_id: at.id, output_index: at.outputIndex, content_index: 0, text, logprobs: [] }),
            send("response.content_part.done", { item_id: at.id, output_index: at.outputIndex, content_index: 0, part: { type: "output_text", text, annotations: [] } }),
            send("response.output_item.done", { output_index: at.outputIndex, item: done }),
          ];
        }
        case "thinking_start":
          begin(event.contentIndex, `rs_${context.requestId}_${event.contentIndex}`);
          return [];
        case "thinking_end": {
          const block = event.partial.content[event.contentIndex];
          if (!at || block?.type !== "thinking") return [];
          const item = reasoningItem(context, block, at.id);
          output[at.outputIndex] = item;
          const frames = [send("response.output_item.added", { output_index: at.outputIndex, item: { ...item, summary: [] } })];
          if (block.thinking !== "") {
            const ids = { item_id: item.id, output_index: at.outputIndex, summary_index: 0 };
            frames.push(
              send("response.reasoning_summary_part.added", { ...ids, part: { type: "summary_text", text: "" } }),
              send("response.reasoning_summary_text.delta", { ...ids, delta: block.thinking }),
              send("response.reasoning_summary_text.done", { ...ids, text: block.thinking }),
              send("response.reasoning_summary_part.done", { ...ids, part: { type: "summary_text", text: block.thinking } }),
            );
          }
          frames.push(send("response.output_item.done", { output_index: at.outputIndex, item }));
          return frames;
        }
        case "toolcall_start": {
          const call = event.partial.content[event.contentIndex] as ToolCall;
          const item = begin(event.contentIndex, callId(context, call, `fc_${context.requestId}_${event.contentIndex}`));
          if (isCustom(call)) return [];
          const added = { id: item.id, type: "function_call", status: "in_progress", call_id: call.id, name: call.name, arguments: "" };
          return [send("response.output_item.added", { output_index: item.outputIndex, item: added })];
        }
        case "toolcall_delta": {
          if (!at || isCustom(event.partial.content[event.contentIndex])) return [];
          at.text += event.delta;
          return [send("response.function_call_arguments.delta", { item_id: at.id, output_index: at.outputIndex, delta: event.delta })];
        }
        case "toolcall_end": {
          if (!at) return [];
          const call = event.toolCall;
          if (isCustom(call)) {
            const item = callItem(context, call, at.id, "");
            output[at.outputIndex] = item;
            const ids = { item_id: at.id, output_index: at.outputIndex };
            return [
              send("response.output_item.added", { output_index: at.outputIndex, item: { ...item, status: "in_progress", input: "" } }),
              send("response.custom_tool_call_input.delta", { ...ids, delta: item.input }),
              send("response.custom_tool_call_input.done", { ...ids, input: item.input }),
              send("response.output_item.done", { output_index: at.outputIndex, item }),
            ];
          }
          const frames: string[] = [];
          // Arguments that only arrive at the end are still delivered as a delta.
          if (at.text === "") {
            at.text = JSON.stringify(call.arguments);
            frames.push(send("response.function_call_arguments.delta", { item_id: at.id, output_index: at.outputIndex, delta: at.text }));
          }
          const item = callItem(context, call, at.id, at.text);
          output[at.outputIndex] = item;
          frames.push(
            send("response.function_call_arguments.done", { item_id: at.id, output_index: at.outputIndex, name: call.name, arguments: at.text }),
            send("response.output_item.done", { output_index: at.outputIndex, item }),
          );
          return frames;
        }
        default:
          return [];
      }
    },
    done(message) {
      return [send("response.completed", { response: finalResponse(context, createdAt, message, output.filter((o) => Object.keys(o).length > 0)) })];
    },
    fail(failure) {
      const { error } = openaiErrorBody(failure);
      const response = baseResponse(context, createdAt, "failed");
      response.error = { code: error.code ?? "server_error", message: failure.message };
      return [send("response.failed", { response })];
    },
    ping: () => ": ping\n\n",
  };
}
