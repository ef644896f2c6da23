import type { AssistantBuilder } from "../../assistant-builder.ts";
import { ProviderError } from "../../http/errors.ts";
import { type StreamDecoder, eventJson, requestHeaders, runProviderStream } from "../../http/provider-stream.ts";
import type { SseEvent } from "../../../http/sse.ts";
import type { ImageContent, Message, StopReason, TextContent } from "../../messages.ts";
import type { Model } from "../../model.ts";
import type { Context, StreamFunction, StreamOptions } from "../../stream.ts";
import { takesTemperature, thinkingRequest } from "../../thinking.ts";
import { isSameModel, prepareTranscript, textOf } from "../../transcript.ts";
import { applyConverseToolChoice } from "./controls.ts";

type Json = Record<string, unknown>;

/**
 * Amazon Bedrock's Converse API: one message shape for every model Bedrock hosts (Nova, Llama,
 * Mistral, DeepSeek, Qwen, …), tools as `toolSpec`s, results as `toolResult` blocks. Its stream
 * arrives in the event-stream framing the Bedrock transport decodes into named events.
 */
export function converseRequestBody(model: Model, context: Context, options: StreamOptions = {}): Json {
  const body: Json = { messages: convertMessages(model, context.messages) };
  if (context.systemPrompt !== "") body.system = [{ text: context.systemPrompt }];
  const inference: Json = { maxTokens: options.maxTokens ?? model.maxTokens };
  if (options.temperature !== undefined && takesTemperature(model)) inference.temperature = options.temperature;
  if (options.stop && options.stop.length > 0) inference.stopSequences = options.stop;
  body.inferenceConfig = inference;
  if (context.tools.length > 0) {
    const toolConfig: Json = { tools: context.tools.map((t) => ({ toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters } } })) };
    applyConverseToolChoice(toolConfig, body, options);
  }
  // Reasoning models on Converse take a token budget through the model's own fields.
  const thinking = thinkingRequest(model, options.thinking ?? "off", { control: "budget", off: "omit", fixedSampling: false });
  if (thinking.mode === "budget") body.additionalModelRequestFields = { reasoning_config: { type: "enabled", budget_tokens: thinking.tokens } };
  return body;
}

function imageBlock(c: ImageContent): Json {
  return { image: { format: c.mimeType.replace("image/", "").replace("jpg", "jpeg"), source: { bytes: c.data } } };
}

function userBlocks(content: string | (TextContent | ImageContent)[], images: boolean): Json[] {
  if (typeof content === "string") return [{ text: content }];
  return content.map((c) => (c.type === "text" ? { text: c.text } : images ? imageBlock(c) : { text: "(image omitted: this model does not accept images)" }));
}

function convertMessages(model: Model, history: Message[]): Json[] {
  const images = model.input.includes("image");
  const out: { role: "user" | "assistant"; content: Json[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Json[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    // Converse wants turns to alternate: tool results and the next words join the user turn before them.
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of prepareTranscript(history)) {
    if (m.role === "user") push("user", userBlocks(m.content, images));
    else if (m.role === "assistant") {
      const native = isSameModel(m, model);
      const blocks: Json[] = [];
      for (const c of m.content) {
        if (c.type === "text") {
          if (c.text !== "") blocks.push({ text: c.text });
        } else if (c.type === "thinking") {
          if (native && c.signature && c.thinking !== "") blocks.push({ reasoningContent: { reasoningText: { text: c.thinking, signature: c.signature } } });
        } else blocks.push({ toolUse: { toolUseId: c.id, name: c.name, input: c.arguments } });
      }
      push("assistant", blocks);
    } else {
      const attached = m.content.filter((c): c is ImageContent => c.type === "image");
      const content: Json[] = [{ text: textOf(m.content) || "(no output)" }, ...(images ? attached.map(imageBlock) : [])];
      push("user", [{ toolResult: { toolUseId: m.toolCallId, content, ...(m.isError && { status: "error" }) } }]);
    }
  }
  return out;
}

const STOP_REASONS: Record<string, StopReason> = { end_turn: "stop", tool_use: "toolUse", max_tokens: "length", stop_sequence: "stop" };

export class ConverseDecoder implements StreamDecoder {
  complete = false;
  private readonly blocks = new Map<number, number>();

  constructor(
    private readonly provider: string,
    private readonly out: AssistantBuilder,
  ) {}

  handle(event: SseEvent): "continue" | "end" {
    if (event.event === "error") {
      const data = eventJson(this.provider, event);
      const error = (data.error ?? {}) as Json;
      const kind = typeof error.type === "string" ? error.type : undefined;
      throw new ProviderError(`${this.provider}: ${String(error.message ?? event.data)}`, { retryable: kind === "overloaded_error" || kind === "api_error", overloaded: kind === "overloaded_error", kind });
    }
    const data = eventJson(this.provider, event);
    switch (event.event) {
      case "contentBlockStart": {
        const toolUse = ((data.start ?? {}) as Json).toolUse as Json | undefined;
        if (toolUse) this.blocks.set(data.contentBlockIndex as number, this.out.startToolCall(String(toolUse.toolUseId), String(toolUse.name)));
        break;
      }
      case "contentBlockDelta":
        this.delta(data.contentBlockIndex as number, (data.delta ?? {}) as Json);
        break;
      case "contentBlockStop": {
        const index = this.blocks.get(data.contentBlockIndex as number);
        if (index !== undefined) this.out.end(index);
        break;
      }
      case "messageStop": {
        const reason = String(data.stopReason ?? "end_turn");
        this.complete = true;
        if (reason === "guardrail_intervened" || reason === "content_filtered") this.out.finish("error", `${this.provider}: the reply was stopped (${reason})`);
        else this.out.finish(STOP_REASONS[reason] ?? "stop");
        break;
      }
      case "metadata": {
        const usage = (data.usage ?? {}) as Json;
        const n = (v: unknown) => (typeof v === "number" ? v : 0);
        this.out.setUsage({ input: n(usage.inputTokens), output: n(usage.outputTokens), cacheRead: n(usage.cacheReadInputTokens), cacheWrite: n(usage.cacheWriteInputTokens) });
        return "end";
      }
    }
    return "continue";
  }

  private delta(converseIndex: number, delta: Json): void {
    let index = this.blocks.get(converseIndex);
    if (typeof delta.text === "string") {
      if (index === undefined) this.blocks.set(converseIndex, (index = this.out.startText()));
      this.out.appendText(index, delta.text);
    } else if (delta.toolUse && index !== undefined) {
      this.out.appendToolArguments(index, String(((delta.toolUse as Json).input as string | undefined) ?? ""));
    } else if (delta.reasoningContent) {
      const reasoning = delta.reasoningContent as Json;
      if (index === undefined) this.blocks.set(converseIndex, (index = this.out.startThinking()));
      if (typeof reasoning.text === "string") this.out.appendThinking(index, reasoning.text);
      if (typeof reasoning.signature === "string") this.out.setThinkingSignature(index, reasoning.signature, true);
    }
  }
}

export const streamBedrockConverse: StreamFunction = (model, context, options = {}) =>
  runProviderStream(model, options, {
    request: { url: `${model.baseUrl}/model/${encodeURIComponent(model.id)}/converse-stream`, headers: requestHeaders({}, model, options), body: converseRequestBody(model, context, options) },
    decoder: (out) => new ConverseDecoder(model.provider, out),
  });
