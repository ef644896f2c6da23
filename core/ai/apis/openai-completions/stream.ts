import type { AssistantBuilder } from "../../assistant-builder.ts";
import { ProviderError, formatProviderError, isRetryableStatus, readErrorInfo } from "../../http/errors.ts";
import { type StreamDecoder, eventJson, requestHeaders, runProviderStream } from "../../http/provider-stream.ts";
import type { SseEvent } from "../../../http/sse.ts";
import type { StopReason } from "../../messages.ts";
import type { Model } from "../../model.ts";
import type { Context, StreamFunction, StreamOptions } from "../../stream.ts";
import { takesTemperature, thinkingRequest } from "../../thinking.ts";
import { applyCompletionsControls } from "./controls.ts";
import { completionsCompat, copilotBaseUrl, copilotHeaders } from "./compat.ts";
import { type Wired, bodyJson, keptWire, wired } from "../../http/wire-json.ts";
import { completionsMessages } from "./wire-messages.ts";
import { newToolCallId } from "../../tool-ids.ts";

type Json = Record<string, unknown>;

export function completionsRequestBody(model: Model, context: Context, options: StreamOptions = {}): Json {
  return completionsRequest(model, context, options).body;
}

/** The request body, and its JSON text put together from the texts kept with each message and the tool list (wire-json.ts). */
function completionsRequest(model: Model, context: Context, options: StreamOptions): { body: Json; json: string } {
  const compat = completionsCompat(model);
  const messages = completionsMessages(model, compat, context.systemPrompt, context.messages);
  const wiredParts: Record<string, Wired<unknown>> = { messages };

  // Local servers without stream_options support ignore the unknown field; usage is then just missing.
  const body: Json = { model: model.id, messages: messages.value, stream: true };
  if (compat.streamOptions) body.stream_options = { include_usage: true };
  if (!compat.maxTokensOnlyWhenAsked || options.maxTokens !== undefined) body[compat.maxTokensField] = options.maxTokens ?? model.maxTokens;
  if (options.temperature !== undefined && takesTemperature(model)) body.temperature = options.temperature;
  if (context.tools.length > 0) {
    const tools = keptWire(context.tools, "completions", () => wired(context.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }))));
    body.tools = tools.value;
    wiredParts.tools = tools;
  }

  const thinking = thinkingRequest(model, options.thinking ?? "off", compat.thinking);
  if (compat.thinkingFormat === "reasoning_effort") {
    if (thinking.mode === "effort") body.reasoning_effort = thinking.effort;
    else if (thinking.mode === "disable") body.reasoning_effort = "none";
  } else if (compat.thinkingFormat === "openrouter") {
    if (thinking.mode === "effort") body.reasoning = { effort: thinking.effort };
    else if (thinking.mode === "disable") body.reasoning = { enabled: false };
  }
  applyCompletionsControls(body, options);
  return { body, json: bodyJson(body, wiredParts) };
}

const FINISH_REASONS: Record<string, StopReason> = {
  stop: "stop",
  end_turn: "stop",
  length: "length",
  tool_calls: "toolUse",
  function_call: "toolUse",
};

class CompletionsDecoder implements StreamDecoder {
  complete = false;
  private text: number | undefined;
  private thinking: number | undefined;
  private readonly calls = new Map<number, number>();
  private details: Json[] = [];

  constructor(
    private readonly provider: string,
    private readonly out: AssistantBuilder,
  ) {}

  handle(event: SseEvent): "continue" | "end" {
    if (event.data.trim() === "[DONE]") {
      if (!this.complete) this.finish("stop");
      return "end";
    }
    const data = eventJson(this.provider, event);
    if (data.error !== undefined && data.error !== null) {
      const info = readErrorInfo(data) ?? { message: event.data };
      const code = (data.error as Json).code;
      throw new ProviderError(formatProviderError(this.provider, undefined, info), {
        retryable: typeof code === "number" ? isRetryableStatus(code, info.kind) : info.kind === "server_error",
        overloaded: code === 503 || code === 529 || /overloaded/i.test(info.kind ?? ""),
        kind: info.kind,
      });
    }
    if (data.usage) this.usage(data.usage as Json);

    const choice = (data.choices as Json[] | undefined)?.[0];
    if (!choice || this.complete) return "continue";
    const delta = (choice.delta ?? {}) as Json;

    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") {
      this.openThinking();
      this.out.appendThinking(this.thinking!, reasoning);
    }
    if (Array.isArray(delta.reasoning_details) && delta.reasoning_details.length > 0) {
      this.openThinking();
      this.addReasoningDetails(delta.reasoning_details as Json[]);
    }

    const content = contentText(delta.content);
    if (content !== "") {
      if (this.text === undefined) {
        this.closeThinking();
        this.text = this.out.startText();
      }
      this.out.appendText(this.text, content);
    }

    const toolCalls = delta.tool_calls as Json[] | undefined;
    if (Array.isArray(toolCalls)) {
      toolCalls.forEach((call, position) => this.toolCall(call, position));
    }

    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      const reason = choice.finish_reason;
      if (reason === "content_filter") this.finish("error", `${this.provider}: the reply was stopped by the provider's content filter`);
      else this.finish(FINISH_REASONS[reason] ?? "stop");
    }
    return "continue";
  }

  private toolCall(call: Json, position: number): void {
    const key = typeof call.index === "number" ? call.index : position;
    const fn = (call.function ?? {}) as Json;
    let index = this.calls.get(key);
    if (index === undefined) {
      this.closeText();
      this.closeThinking();
      index = this.out.startToolCall(typeof call.id === "string" && call.id !== "" ? call.id : newToolCallId(), (fn.name as string | undefined) ?? "");
      this.calls.set(key, index);
    }
    const args = fn.arguments;
    // A few servers send the arguments as an object instead of JSON text.
    if (typeof args === "string") this.out.appendToolArguments(index, args);
    else if (args !== null && typeof args === "object") this.out.appendToolArguments(index, JSON.stringify(args));
  }

  private openThinking(): void {
    if (this.thinking !== undefined) return;
    this.closeText();
    this.thinking = this.out.startThinking();
    this.details = [];
  }

  /**
   * OpenRouter streams reasoning_details in pieces, by index: their text is concatenated and the
   * signature kept, and the whole array is stored (as JSON) with the thinking block, to be sent
   * back exactly on the next turn.
   */
  private addReasoningDetails(pieces: Json[]): void {
    for (const piece of pieces) {
      const index = typeof piece.index === "number" ? piece.index : this.details.length;
      const current = this.details[index];
      if (!current) this.details[index] = { ...piece };
      else {
        for (const field of ["text", "summary", "data"] as const) {
          if (typeof piece[field] === "string") current[field] = `${typeof current[field] === "string" ? current[field] : ""}${piece[field]}`;
        }
        for (const [key, value] of Object.entries(piece)) if (!["text", "summary", "data"].includes(key) && value !== null && value !== undefined) current[key] = value;
      }
    }
    this.out.setThinkingSignature(this.thinking!, JSON.stringify(this.details.filter(Boolean)));
  }

  private closeText(): void {
    if (this.text !== undefined) this.out.end(this.text);
    this.text = undefined;
  }

  private closeThinking(): void {
    if (this.thinking !== undefined) this.out.end(this.thinking);
    this.thinking = undefined;
  }

  private finish(reason: StopReason, message?: string): void {
    this.complete = true;
    this.out.finish(reason, message);
  }

  /** prompt_tokens includes cached (and OpenRouter's cache-write) tokens; input is what remains. */
  private usage(u: Json): void {
    const num = (v: unknown) => (typeof v === "number" ? v : 0);
    const details = (u.prompt_tokens_details ?? {}) as Json;
    const cacheRead = num(details.cached_tokens) || num(u.prompt_cache_hit_tokens);
    const cacheWrite = num(details.cache_write_tokens);
    this.out.setUsage({
      input: Math.max(0, num(u.prompt_tokens) - cacheRead - cacheWrite),
      output: num(u.completion_tokens),
      cacheRead,
      cacheWrite,
    });
  }
}

/** Mistral may send content as an array of text parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (p && typeof p === "object" && typeof (p as Json).text === "string" ? ((p as Json).text as string) : "")).join("");
}

export const streamOpenAICompletions: StreamFunction = (model, context, options = {}) => {
  const auth: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const copilot = completionsCompat(model).copilot;
  if (copilot) Object.assign(auth, copilotHeaders(context));
  const base = copilot ? copilotBaseUrl(model, options.apiKey) : model.baseUrl;
  return runProviderStream(model, options, {
    request: { url: `${base}/chat/completions`, headers: requestHeaders(auth, model, options), ...completionsRequest(model, context, options) },
    decoder: (out) => new CompletionsDecoder(model.provider, out),
  });
};
