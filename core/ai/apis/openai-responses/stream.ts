import type { AssistantBuilder } from "../../assistant-builder.ts";
import { CitationLinks } from "../../citations.ts";
import { ProviderError, formatProviderError, readErrorInfo } from "../../http/errors.ts";
import { type StreamDecoder, eventJson, requestHeaders, runProviderStream } from "../../http/provider-stream.ts";
import type { SseEvent } from "../../../http/sse.ts";
import type { Model, ThinkingSpec } from "../../model.ts";
import type { Context, StreamFunction, StreamOptions } from "../../stream.ts";
import { thinkingRequest } from "../../thinking.ts";
import { applyResponsesControls } from "./controls.ts";
import { type Wired, bodyJson, keptWire, wired } from "../../http/wire-json.ts";
import { responsesInput } from "./wire-input.ts";

type Json = Record<string, unknown>;

/**
 * Models without a spec get the GPT-5 set, the widest the reasoning models before GPT-5.1 share;
 * "off" leaves effort out, so such a model reasons at its own default.
 */
const GPT5_EFFORTS: ThinkingSpec = { control: "effort", efforts: ["minimal", "low", "medium", "high"], off: "omit", fixedSampling: false };

export function responsesRequestBody(model: Model, context: Context, options: StreamOptions = {}): Json {
  return responsesRequest(model, context, options).body;
}

/** The request body, and its JSON text put together from the texts kept with each message and the tool list (wire-json.ts). */
function responsesRequest(model: Model, context: Context, options: StreamOptions): { body: Json; json: string } {
  const input = responsesInput(model, context.messages);
  // store:false keeps nothing server-side; encrypted reasoning makes the next turn whole anyway.
  const body: Json = { model: model.id, input: input.value, stream: true, store: false };
  const wiredParts: Record<string, Wired<unknown>> = { input };
  if (context.systemPrompt !== "") body.instructions = context.systemPrompt;
  body.max_output_tokens = options.maxTokens ?? model.maxTokens;
  // OpenAI's hosted search runs on their side; its sources come back as url_citation annotations.
  if (context.tools.length > 0 || options.nativeWebSearch) {
    const tools = keptWire(context.tools, options.nativeWebSearch ? "responses-search" : "responses", () =>
      wired([...(options.nativeWebSearch ? [{ type: "web_search" }] : []), ...context.tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: false }))]),
    );
    body.tools = tools.value;
    wiredParts.tools = tools;
  }
  if (model.reasoning) {
    body.include = ["reasoning.encrypted_content"];
    const thinking = thinkingRequest(model, options.thinking ?? "off", GPT5_EFFORTS);
    if (thinking.mode === "effort") body.reasoning = { effort: thinking.effort, summary: "auto" };
    else if (thinking.mode === "disable") body.reasoning = { effort: "none" };
  } else if (options.temperature !== undefined) {
    // Reasoning models reject sampling parameters.
    body.temperature = options.temperature;
  }
  if (options.sessionId) body.prompt_cache_key = options.sessionId;
  applyResponsesControls(body, options);
  return { body, json: bodyJson(body, wiredParts) };
}

interface Item {
  kind: "reasoning" | "message" | "function_call";
  index: number;
  summaryIndex?: number;
}

export class ResponsesDecoder implements StreamDecoder {
  complete = false;
  /** By output_index: parallel items interleave and are routed by it. */
  private readonly items = new Map<number, Item>();
  /** Sources of OpenAI's hosted web search (see citations.ts). */
  private readonly citations = new CitationLinks();

  constructor(
    private readonly provider: string,
    private readonly out: AssistantBuilder,
  ) {}

  handle(event: SseEvent): "continue" | "end" {
    const data = eventJson(this.provider, event);
    const type = (data.type as string | undefined) ?? event.event;
    const at = data.output_index as number;
    switch (type) {
      case "response.output_item.added":
        this.added(at, data.item as Json);
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const item = this.item(at, "reasoning");
        const summaryIndex = data.summary_index as number | undefined;
        // Summary parts are separate paragraphs.
        if (summaryIndex !== undefined && item.summaryIndex !== undefined && summaryIndex !== item.summaryIndex) this.out.appendThinking(item.index, "\n\n");
        if (summaryIndex !== undefined) item.summaryIndex = summaryIndex;
        this.out.appendThinking(item.index, data.delta as string);
        break;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.out.appendText(this.item(at, "message").index, data.delta as string);
        break;
      case "response.output_text.annotation.added": {
        const annotation = data.annotation as Json | undefined;
        if (annotation?.type === "url_citation") this.citations.add(this.item(at, "message").index, annotation.url);
        break;
      }
      case "response.function_call_arguments.delta":
        this.out.appendToolArguments(this.item(at, "function_call").index, data.delta as string);
        break;
      case "response.function_call_arguments.done":
        if (typeof data.arguments === "string") this.out.replaceToolArguments(this.item(at, "function_call").index, data.arguments);
        break;
      case "response.output_item.done":
        this.done(at, data.item as Json);
        break;
      case "response.completed":
      case "response.incomplete":
        this.finish(data.response as Json | undefined);
        return "end";
      case "response.failed": {
        const response = (data.response ?? {}) as Json;
        throw this.failure(readErrorInfo({ error: response.error }) ?? { message: "the response failed" });
      }
      case "error":
        throw this.failure(readErrorInfo(data) ?? { message: event.data });
    }
    return "continue";
  }

  private added(at: number, item: Json): void {
    if (item.type === "reasoning") this.items.set(at, { kind: "reasoning", index: this.out.startThinking() });
    else if (item.type === "message") this.items.set(at, { kind: "message", index: this.out.startText() });
    else if (item.type === "function_call") {
      const index = this.out.startToolCall(item.call_id as string, item.name as string, item.id as string | undefined);
      if (typeof item.arguments === "string") this.out.appendToolArguments(index, item.arguments);
      this.items.set(at, { kind: "function_call", index });
    }
  }

  /** Some compatible servers skip `output_item.added`; the first delta then opens the block. */
  private item(at: number, kind: Item["kind"]): Item {
    const known = this.items.get(at);
    if (known && known.kind === kind) return known;
    const index = kind === "reasoning" ? this.out.startThinking() : kind === "message" ? this.out.startText() : this.out.startToolCall(`call_${at}`, "");
    const item: Item = { kind, index };
    this.items.set(at, item);
    return item;
  }

  private done(at: number, item: Json): void {
    if (item.type !== "reasoning" && item.type !== "message" && item.type !== "function_call") return;
    const known = this.items.get(at) ?? (this.added(at, item), this.items.get(at));
    if (!known) return;
    if (item.type === "reasoning") {
      const summary = Array.isArray(item.summary) ? (item.summary as Json[]) : [];
      const block = this.out.message.content[known.index];
      if (block?.type === "thinking" && block.thinking === "") {
        this.out.appendThinking(known.index, summary.map((s) => s.text as string).join("\n\n"));
      }
      const kept: Json = { type: "reasoning", id: item.id, summary };
      if (typeof item.encrypted_content === "string") kept.encrypted_content = item.encrypted_content;
      this.out.setThinkingSignature(known.index, JSON.stringify(kept));
    } else if (item.type === "function_call") {
      if (typeof item.arguments === "string") this.out.replaceToolArguments(known.index, item.arguments);
      if (typeof item.id === "string") this.out.setToolProviderData(known.index, item.id);
    } else {
      const links = this.citations.take(known.index);
      if (links) this.out.appendText(known.index, links);
    }
    this.out.end(known.index);
  }

  private finish(response: Json | undefined): void {
    this.complete = true;
    const usage = (response?.usage ?? {}) as Json;
    const num = (v: unknown) => (typeof v === "number" ? v : 0);
    const details = (usage.input_tokens_details ?? {}) as Json;
    // input_tokens counts cached reads and, on models that bill them, cache writes.
    const cached = num(details.cached_tokens);
    const written = num(details.cache_write_tokens);
    this.out.setUsage({ input: Math.max(0, num(usage.input_tokens) - cached - written), output: num(usage.output_tokens), cacheRead: cached, cacheWrite: written });
    if (response?.status === "incomplete") {
      const reason = ((response.incomplete_details ?? {}) as Json).reason;
      if (reason === "content_filter") this.out.finish("error", `${this.provider}: the reply was stopped by the provider's content filter`);
      else this.out.finish("length");
    } else this.out.finish("stop");
  }

  private failure(info: { message: string; kind?: string }): ProviderError {
    const retryable = info.kind === "server_error" || info.kind === "rate_limit_exceeded" || info.kind === "server_is_overloaded";
    return new ProviderError(formatProviderError(this.provider, undefined, info), { retryable, overloaded: info.kind === "server_is_overloaded", kind: info.kind });
  }
}

export const streamOpenAIResponses: StreamFunction = (model, context, options = {}) => {
  const auth: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  return runProviderStream(model, options, {
    request: { url: `${model.baseUrl}/responses`, headers: requestHeaders(auth, model, options), ...responsesRequest(model, context, options) },
    decoder: (out) => new ResponsesDecoder(model.provider, out),
  });
};
