import type { RenderContext, WireFormat } from "./format.ts";
import { type Reply, argumentsText, split, stopOf, usageOf } from "./script.ts";

const FINISH = { stop: "stop", length: "length", toolUse: "tool_calls" } as const;

function events(reply: Reply, context: RenderContext): string[] {
  const base = { id: `chatcmpl-standin-${context.serial}`, object: "chat.completion.chunk", created: 1_700_000_000, model: context.model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;

  const out = [chunk({ role: "assistant", content: "" })];
  // DeepSeek's field name; OpenRouter and llama.cpp send the same deltas as `reasoning`.
  if (reply.reasoningDetails && reply.thinking !== undefined) {
    // OpenRouter routing to Anthropic: the text as `reasoning`, and signed reasoning_details by index.
    const detail = { type: "reasoning.text", index: 0, format: "anthropic-claude-v1" };
    for (const piece of split(reply.thinking)) out.push(chunk({ reasoning: piece, reasoning_details: [{ ...detail, text: piece }] }));
    out.push(chunk({ reasoning_details: [{ ...detail, text: "", signature: `sig_or_${context.serial}` }] }));
  } else for (const piece of reply.thinking === undefined ? [] : split(reply.thinking)) out.push(chunk({ reasoning_content: piece }));
  for (const piece of reply.text === undefined ? [] : split(reply.text)) out.push(chunk({ content: piece }));
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id ?? `call_standin_${context.serial}_${index}`;
    out.push(chunk({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of split(argumentsText(call))) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  out.push(chunk({}, FINISH[stopOf(reply)]));

  const usage = usageOf(reply);
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  out.push(
    `data: ${JSON.stringify({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: usage.output,
        total_tokens: prompt + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cacheRead, ...(usage.cacheWrite ? { cache_write_tokens: usage.cacheWrite } : {}) },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    })}\n\n`,
  );
  out.push("data: [DONE]\n\n");
  return out;
}

const ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: "invalid_request_error", code: null, message: "Invalid request" },
  401: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided: sk-stand***in." },
  404: { type: "invalid_request_error", code: "model_not_found", message: "The model does not exist or you do not have access to it." },
  429: { type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests" },
  500: { type: "server_error", code: null, message: "The server had an error while processing your request." },
};

export const openaiCompletionsFormat: WireFormat = {
  name: "openai-completions",
  events,
  error: (status, message, kind) => {
    const known = ERRORS[status] ?? { type: status >= 500 ? "server_error" : "invalid_request_error", code: null, message: `error ${status}` };
    return { error: { message: message ?? known.message, type: known.type, param: null, code: kind ?? known.code } };
  },
  // OpenRouter and others report upstream failures inside the stream with an HTTP-like code.
  streamError: (message, kind) => `data: ${JSON.stringify({ error: { message, type: kind, code: 502 } })}\n\n`,
  overloaded: { status: 503, message: "The engine is currently overloaded, please try again later", kind: "server_is_overloaded" },
};
