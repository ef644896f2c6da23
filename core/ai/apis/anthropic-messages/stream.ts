import type { AssistantBuilder } from "../../assistant-builder.ts";
import { CitationLinks } from "../../citations.ts";
import { ProviderError, formatProviderError, readErrorInfo } from "../../http/errors.ts";
import { type StreamDecoder, eventJson, requestHeaders, runProviderStream } from "../../http/provider-stream.ts";
import { type Wired, bodyJson, keptWire, wired } from "../../http/wire-json.ts";
import { type Block, CACHE, anthropicMessages } from "./wire-messages.ts";
import type { SseEvent } from "../../../http/sse.ts";
import type { StopReason } from "../../messages.ts";
import type { Model, ThinkingSpec } from "../../model.ts";
import type { Context, StreamFunction, StreamOptions } from "../../stream.ts";
import { takesTemperature, thinkingRequest } from "../../thinking.ts";
import { applyAnthropicControls } from "./controls.ts";

const CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude.";
/**
 * What Claude Code sends with a Claude Pro/Max token: the OAuth beta, its own betas (interleaved
 * thinking between tool calls, tool arguments streamed unbuffered) and its client identity.
 */
const OAUTH_HEADERS = {
  "anthropic-beta": "claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14",
  "user-agent": "claude-cli/2.1.75 (external, cli)",
  "x-app": "cli",
};

/** An access token of a Claude Pro/Max login (`omp auth login anthropic`, or ANTHROPIC_OAUTH_TOKEN): sent as a bearer, not as x-api-key. */
export function isOAuthToken(key: string | undefined): boolean {
  return key?.startsWith("sk-ant-oat") ?? false;
}

/** Models without a spec take manual extended thinking, which every thinking Claude up to 4.6 accepts. */
const EXTENDED_THINKING: ThinkingSpec = { control: "budget", off: "omit", fixedSampling: false };

export function anthropicRequestBody(model: Model, context: Context, options: StreamOptions = {}): Record<string, unknown> {
  return anthropicRequest(model, context, options).body;
}

/** The request body, and its JSON text put together from the texts kept with each message and the tool list (wire-json.ts). */
function anthropicRequest(model: Model, context: Context, options: StreamOptions): { body: Record<string, unknown>; json: string } {
  const body: Record<string, unknown> = { model: model.id, max_tokens: options.maxTokens ?? model.maxTokens, stream: true };
  const system: Block[] = [];
  // Subscription (Claude Pro/Max) tokens are accepted only for requests that introduce themselves as Claude Code.
  if (isOAuthToken(options.apiKey)) system.push({ type: "text", text: CLAUDE_CODE_IDENTITY });
  if (context.systemPrompt !== "") system.push({ type: "text", text: context.systemPrompt, cache_control: CACHE });
  if (system.length > 0) body.system = system;
  const messages = anthropicMessages(model, context.messages);
  body.messages = messages.value;
  const wiredParts: Record<string, Wired<unknown>> = { messages };

  // Anthropic's server-side search runs on their side; its results come back as citations.
  if (context.tools.length > 0 || options.nativeWebSearch) {
    const tools = keptWire(context.tools, options.nativeWebSearch ? "anthropic-search" : "anthropic", () => {
      const server: Block[] = options.nativeWebSearch ? [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }] : [];
      const all: Block[] = [...server, ...context.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }))];
      all[all.length - 1]!.cache_control = CACHE;
      return wired(all);
    });
    body.tools = tools.value;
    wiredParts.tools = tools;
  }

  const thinking = thinkingRequest(model, options.thinking ?? "off", EXTENDED_THINKING);
  if (thinking.mode === "budget") fitBudget(body, model, thinking.tokens);
  else if (thinking.mode === "effort") {
    // Adaptive thinking returns empty thinking blocks unless asked otherwise (Claude 4.7 and later
    // default to "omitted"), and those models put their words between tool calls there too.
    body.thinking = { type: "adaptive", display: "summarized" };
    body.output_config = { effort: thinking.effort };
  } else if (thinking.mode === "disable") body.thinking = { type: "disabled" };
  else if (thinking.mode === "between-tools") body.thinking = { type: "between_tools" };
  applyAnthropicControls(body, options);
  // Anthropic rejects a temperature other than 1 while thinking, and some models reject it always.
  if (options.temperature !== undefined && !isThinking(body) && takesTemperature(model)) body.temperature = options.temperature;
  return { body, json: bodyJson(body, wiredParts) };
}

/** budget_tokens must stay below max_tokens and at least 1024; grow the cap first, then the budget gives. */
function fitBudget(body: Record<string, unknown>, model: Model, budget: number): void {
  let maxTokens = body.max_tokens as number;
  if (maxTokens <= budget) maxTokens = Math.min(model.maxTokens, budget + 4096);
  const fitted = Math.min(budget, maxTokens - 1024);
  if (fitted < 1024) return;
  body.max_tokens = maxTokens;
  body.thinking = { type: "enabled", budget_tokens: fitted };
}

function isThinking(body: Record<string, unknown>): boolean {
  const type = (body.thinking as { type?: string } | undefined)?.type;
  return type !== undefined && type !== "disabled";
}

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "toolUse",
};

class AnthropicDecoder implements StreamDecoder {
  complete = false;
  private readonly blocks = new Map<number, number>();
  /** Sources of Anthropic's server-side web search (see citations.ts). */
  private readonly citations = new CitationLinks();
  private stopReason: string | undefined;
  private stopSequence: string | undefined;

  constructor(
    private readonly provider: string,
    private readonly out: AssistantBuilder,
  ) {}

  handle(event: SseEvent): "continue" | "end" {
    const data = eventJson(this.provider, event);
    switch (data.type) {
      case "message_start":
        this.usage(((data.message as Block | undefined)?.usage ?? {}) as Block);
        break;
      case "content_block_start":
        this.startBlock(data.index as number, data.content_block as Block);
        break;
      case "content_block_delta":
        this.delta(data.index as number, data.delta as Block);
        break;
      case "content_block_stop": {
        const index = this.blocks.get(data.index as number);
        if (index !== undefined) this.endBlock(index);
        break;
      }
      case "message_delta":
        this.stopReason = ((data.delta as Block | undefined)?.stop_reason as string | null | undefined) ?? this.stopReason;
        this.stopSequence = ((data.delta as Block | undefined)?.stop_sequence as string | null | undefined) ?? this.stopSequence;
        if (data.usage) this.usage(data.usage as Block);
        break;
      case "message_stop":
        this.complete = true;
        this.finish();
        return "end";
      case "error": {
        const info = readErrorInfo(data) ?? { message: event.data };
        const retryable = info.kind === "overloaded_error" || info.kind === "api_error";
        throw new ProviderError(formatProviderError(this.provider, undefined, info), { retryable, overloaded: info.kind === "overloaded_error", kind: info.kind });
      }
    }
    return "continue";
  }

  private startBlock(anthropicIndex: number, block: Block): void {
    let index: number;
    if (block.type === "text") {
      index = this.out.startText();
      this.out.appendText(index, (block.text as string | undefined) ?? "");
    } else if (block.type === "thinking") {
      index = this.out.startThinking(typeof block.signature === "string" && block.signature !== "" ? { signature: block.signature } : {});
      this.out.appendThinking(index, (block.thinking as string | undefined) ?? "");
    } else if (block.type === "redacted_thinking") {
      index = this.out.startThinking({ signature: block.data as string, redacted: true });
    } else if (block.type === "tool_use") {
      index = this.out.startToolCall(block.id as string, block.name as string);
      const input = block.input as Block | undefined;
      if (input && Object.keys(input).length > 0) this.out.appendToolArguments(index, JSON.stringify(input));
    } else return;
    this.blocks.set(anthropicIndex, index);
  }

  private delta(anthropicIndex: number, delta: Block): void {
    const index = this.blocks.get(anthropicIndex);
    if (index === undefined) return;
    if (delta.type === "text_delta") this.out.appendText(index, delta.text as string);
    else if (delta.type === "thinking_delta") this.out.appendThinking(index, delta.thinking as string);
    else if (delta.type === "signature_delta") this.out.setThinkingSignature(index, delta.signature as string, true);
    else if (delta.type === "input_json_delta") this.out.appendToolArguments(index, delta.partial_json as string);
    else if (delta.type === "citations_delta") this.citations.add(index, (delta.citation as Block | undefined)?.url);
  }

  private endBlock(index: number): void {
    const links = this.citations.take(index);
    if (links) this.out.appendText(index, links);
    this.out.end(index);
  }

  /** Counts are cumulative; message_delta may repeat input counts, or carry only output_tokens. */
  private usage(u: Block): void {
    const prev = this.out.tokens;
    const n = (v: unknown, fallback: number) => (typeof v === "number" ? v : fallback);
    this.out.setUsage({
      input: n(u.input_tokens, prev.input),
      output: n(u.output_tokens, prev.output),
      cacheRead: n(u.cache_read_input_tokens, prev.cacheRead),
      cacheWrite: n(u.cache_creation_input_tokens, prev.cacheWrite),
    });
  }

  private finish(): void {
    if (this.stopReason === "refusal") {
      this.out.finish("error", `${this.provider}: the model declined to continue (refusal)`);
      return;
    }
    if (this.stopReason === "stop_sequence" && this.stopSequence !== undefined) this.out.stoppedAt(this.stopSequence);
    this.out.finish(STOP_REASONS[this.stopReason ?? "end_turn"] ?? "stop");
  }
}

export const streamAnthropic: StreamFunction = (model, context, options = {}) => {
  const auth: Record<string, string> = { "anthropic-version": "2023-06-01" };
  if (isOAuthToken(options.apiKey)) Object.assign(auth, OAUTH_HEADERS, { authorization: `Bearer ${options.apiKey}` });
  else if (options.apiKey) auth["x-api-key"] = options.apiKey;
  return runProviderStream(model, options, {
    request: { url: `${model.baseUrl}/v1/messages`, headers: requestHeaders(auth, model, options), ...anthropicRequest(model, context, options) },
    decoder: (out) => new AnthropicDecoder(model.provider, out),
  });
};
