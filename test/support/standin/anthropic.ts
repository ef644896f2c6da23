import type { RenderContext, WireFormat } from "./format.ts";
import { type Reply, argumentsText, split, stopOf, usageOf } from "./script.ts";

const KINDS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const MESSAGES: Record<number, string> = { 401: "invalid x-api-key", 429: "Number of request tokens has exceeded your per-minute rate limit", 500: "Internal server error" };

const STOP = { stop: "end_turn", length: "max_tokens", toolUse: "tool_use" } as const;

function frame(data: { type: string } & Record<string, unknown>): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The signature of the thinking block answering request number `serial`. */
const signature = (context: RenderContext) => `sig_standin_${context.serial}`;

function events(reply: Reply, context: RenderContext): string[] {
  const usage = usageOf(reply);
  const out = [
    frame({
      type: "message_start",
      message: {
        id: `msg_standin_${context.serial}`,
        type: "message",
        role: "assistant",
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, cache_creation_input_tokens: usage.cacheWrite, cache_read_input_tokens: usage.cacheRead, output_tokens: 1 },
      },
    }),
    frame({ type: "ping" }),
  ];
  let index = 0;
  if (reply.thinking !== undefined) {
    out.push(frame({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const piece of split(reply.thinking)) out.push(frame({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } }));
    out.push(frame({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: signature(context) } }));
    out.push(frame({ type: "content_block_stop", index }));
    index++;
  }
  if (reply.webSearch) {
    const id = `srvtoolu_standin_${context.serial}`;
    out.push(frame({ type: "content_block_start", index, content_block: { type: "server_tool_use", id, name: "web_search", input: {} } }));
    out.push(frame({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify({ query: reply.webSearch.query }) } }));
    out.push(frame({ type: "content_block_stop", index }));
    index++;
    const content = reply.webSearch.results.map((r) => ({ type: "web_search_result", url: r.url, title: r.title, encrypted_content: "enc", page_age: null }));
    out.push(frame({ type: "content_block_start", index, content_block: { type: "web_search_tool_result", tool_use_id: id, content } }));
    out.push(frame({ type: "content_block_stop", index }));
    index++;
  }
  if (reply.text !== undefined) {
    out.push(frame({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    for (const result of reply.webSearch?.results ?? []) {
      out.push(frame({ type: "content_block_delta", index, delta: { type: "citations_delta", citation: { type: "web_search_result_location", cited_text: reply.text, url: result.url, title: result.title, encrypted_index: "idx" } } }));
    }
    for (const piece of split(reply.text)) out.push(frame({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }));
    out.push(frame({ type: "content_block_stop", index }));
    index++;
  }
  for (const [n, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id ?? `toolu_standin_${context.serial}_${n}`;
    out.push(frame({ type: "content_block_start", index, content_block: { type: "tool_use", id, name: call.name, input: {} } }));
    // Anthropic opens every tool input with an empty partial_json.
    for (const piece of ["", ...split(argumentsText(call))]) {
      out.push(frame({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    out.push(frame({ type: "content_block_stop", index }));
    index++;
  }
  out.push(frame({ type: "message_delta", delta: reply.stopSequence !== undefined ? { stop_reason: "stop_sequence", stop_sequence: reply.stopSequence } : { stop_reason: STOP[stopOf(reply)], stop_sequence: null }, usage: { output_tokens: usage.output } }));
  out.push(frame({ type: "message_stop" }));
  return out;
}

export const anthropicFormat: WireFormat = {
  name: "anthropic",
  events,
  signature,
  error: (status, message, kind) => ({
    type: "error",
    error: { type: kind ?? KINDS[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message: message ?? MESSAGES[status] ?? `error ${status}` },
  }),
  streamError: (message, kind) => frame({ type: "error", error: { type: kind, message } }),
  overloaded: { status: 529, message: "Overloaded", kind: "overloaded_error" },
};
