import type { RenderContext, WireFormat } from "./format.ts";
import { openaiCompletionsFormat } from "./openai-completions.ts";
import { type Reply, argumentsText, split, stopOf, usageOf } from "./script.ts";

function events(reply: Reply, context: RenderContext): string[] {
  let sequence = 0;
  const out: string[] = [];
  const emit = (type: string, data: Record<string, unknown>) => {
    out.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  };
  const id = `resp_standin_${context.serial}`;
  const response = (status: string, output: unknown[], usage: unknown) => ({
    id,
    object: "response",
    created_at: 1_700_000_000,
    status,
    model: context.model,
    output,
    usage,
  });

  emit("response.created", { response: response("in_progress", [], null) });
  emit("response.in_progress", { response: response("in_progress", [], null) });
  const output: Record<string, unknown>[] = [];

  if (reply.thinking !== undefined) {
    const at = output.length;
    const item_id = `rs_standin_${context.serial}`;
    emit("response.output_item.added", { output_index: at, item: { id: item_id, type: "reasoning", summary: [] } });
    emit("response.reasoning_summary_part.added", { item_id, output_index: at, summary_index: 0, part: { type: "summary_text", text: "" } });
    for (const delta of split(reply.thinking)) emit("response.reasoning_summary_text.delta", { item_id, output_index: at, summary_index: 0, delta });
    emit("response.reasoning_summary_text.done", { item_id, output_index: at, summary_index: 0, text: reply.thinking });
    emit("response.reasoning_summary_part.done", { item_id, output_index: at, summary_index: 0, part: { type: "summary_text", text: reply.thinking } });
    const item = { id: item_id, type: "reasoning", summary: [{ type: "summary_text", text: reply.thinking }], encrypted_content: `enc_standin_${context.serial}` };
    emit("response.output_item.done", { output_index: at, item });
    output.push(item);
  }

  if (reply.webSearch) {
    const at = output.length;
    const item = { id: `ws_standin_${context.serial}`, type: "web_search_call", status: "completed", action: { type: "search", query: reply.webSearch.query } };
    emit("response.output_item.added", { output_index: at, item: { ...item, status: "in_progress" } });
    emit("response.web_search_call.completed", { output_index: at, item_id: item.id });
    emit("response.output_item.done", { output_index: at, item });
    output.push(item);
  }

  if (reply.text !== undefined) {
    const at = output.length;
    const item_id = `msg_standin_${context.serial}`;
    emit("response.output_item.added", { output_index: at, item: { id: item_id, type: "message", status: "in_progress", role: "assistant", content: [] } });
    emit("response.content_part.added", { item_id, output_index: at, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    for (const delta of split(reply.text)) emit("response.output_text.delta", { item_id, output_index: at, content_index: 0, delta, logprobs: [] });
    const annotations = (reply.webSearch?.results ?? []).map((r) => ({ type: "url_citation", url: r.url, title: r.title, start_index: 0, end_index: reply.text!.length }));
    for (const [annotation_index, annotation] of annotations.entries()) emit("response.output_text.annotation.added", { item_id, output_index: at, content_index: 0, annotation_index, annotation });
    emit("response.output_text.done", { item_id, output_index: at, content_index: 0, text: reply.text, logprobs: [] });
    const part = { type: "output_text", text: reply.text, annotations };
    emit("response.content_part.done", { item_id, output_index: at, content_index: 0, part });
    const item = { id: item_id, type: "message", status: "completed", role: "assistant", content: [part] };
    emit("response.output_item.done", { output_index: at, item });
    output.push(item);
  }

  for (const [n, call] of (reply.toolCalls ?? []).entries()) {
    const at = output.length;
    const item_id = `fc_standin_${context.serial}_${n}`;
    const call_id = call.id ?? `call_standin_${context.serial}_${n}`;
    const args = argumentsText(call);
    emit("response.output_item.added", { output_index: at, item: { id: item_id, type: "function_call", status: "in_progress", arguments: "", call_id, name: call.name } });
    for (const delta of split(args)) emit("response.function_call_arguments.delta", { item_id, output_index: at, delta });
    emit("response.function_call_arguments.done", { item_id, output_index: at, arguments: args });
    const item = { id: item_id, type: "function_call", status: "completed", arguments: args, call_id, name: call.name };
    emit("response.output_item.done", { output_index: at, item });
    output.push(item);
  }

  const usage = usageOf(reply);
  // Models that bill cache writes (GPT-6 on) count them in input_tokens and name them in the details.
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  const totals = {
    input_tokens: prompt,
    input_tokens_details: usage.cacheWrite > 0 ? { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite } : { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: prompt + usage.output,
  };
  if (stopOf(reply) === "length") {
    emit("response.incomplete", { response: { ...response("incomplete", output, totals), incomplete_details: { reason: "max_output_tokens" } } });
  } else {
    emit("response.completed", { response: response("completed", output, totals) });
  }
  return out;
}

export const openaiResponsesFormat: WireFormat = {
  name: "openai-responses",
  events,
  error: openaiCompletionsFormat.error,
  streamError: (message, kind) => `event: error\ndata: ${JSON.stringify({ type: "error", code: kind, message, param: null, sequence_number: 0 })}\n\n`,
  overloaded: openaiCompletionsFormat.overloaded,
};
