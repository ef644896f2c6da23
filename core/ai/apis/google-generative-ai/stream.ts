import { geminiRoot } from "./root.ts";
import type { AssistantBuilder } from "../../assistant-builder.ts";
import { CitationLinks } from "../../citations.ts";
import { ProviderError, formatProviderError, isRetryableStatus, readErrorInfo } from "../../http/errors.ts";
import { type StreamDecoder, eventJson, requestHeaders, runProviderStream } from "../../http/provider-stream.ts";
import type { SseEvent } from "../../../http/sse.ts";
import type { Model, ThinkingSpec } from "../../model.ts";
import type { Context, StreamFunction, StreamOptions } from "../../stream.ts";
import { takesTemperature, thinkingRequest } from "../../thinking.ts";
import { applyGoogleControls } from "./controls.ts";
import { type Wired, bodyJson, keptWire, wired } from "../../http/wire-json.ts";
import { GEMINI_3_ON, googleContents } from "./wire-contents.ts";
import { toGeminiSchema } from "./schema.ts";
import { newToolCallId } from "../../tool-ids.ts";

type Json = Record<string, unknown>;

/**
 * For models without a spec. Gemini 3 and later take thinkingLevel (a budget is an error from 3.5
 * on) and cannot stop thinking; low, medium and high are the levels they all share. Gemini 2.5
 * takes thinkingBudget: Pro models cannot turn thinking off, Flash models can, with a zero budget.
 */
function defaultThinking(model: Model): ThinkingSpec {
  if (GEMINI_3_ON.test(model.id)) return { control: "effort", efforts: ["low", "medium", "high"], off: "never", fixedSampling: false };
  return { control: "budget", off: model.id.includes("pro") ? "never" : "disable", fixedSampling: false };
}

export function googleRequestBody(model: Model, context: Context, options: StreamOptions = {}): Json {
  return googleRequest(model, context, options).body;
}

/** The request body, and its JSON text put together from the texts kept with each message and the tool list (wire-json.ts). */
function googleRequest(model: Model, context: Context, options: StreamOptions): { body: Json; json: string } {
  const contents = googleContents(model, context.messages);
  const body: Json = { contents: contents.value };
  const wiredParts: Record<string, Wired<unknown>> = { contents };
  if (context.systemPrompt !== "") body.systemInstruction = { parts: [{ text: context.systemPrompt }] };
  // Grounding with Google Search runs on Google's side; its sources come back as groundingMetadata.
  if (context.tools.length > 0 || options.nativeWebSearch) {
    const tools = keptWire(context.tools, options.nativeWebSearch ? "google-search" : "google", () => {
      const all: Json[] = options.nativeWebSearch ? [{ googleSearch: {} }] : [];
      if (context.tools.length > 0) all.push({ functionDeclarations: context.tools.map((t) => ({ name: t.name, description: t.description, parameters: toGeminiSchema(t.parameters) })) });
      return wired(all);
    });
    body.tools = tools.value;
    wiredParts.tools = tools;
  }
  const config: Json = { maxOutputTokens: options.maxTokens ?? model.maxTokens };
  if (options.temperature !== undefined && takesTemperature(model)) config.temperature = options.temperature;
  const thinking = thinkingRequest(model, options.thinking ?? "off", defaultThinking(model));
  if (thinking.mode === "budget") config.thinkingConfig = { thinkingBudget: thinking.tokens, includeThoughts: true };
  else if (thinking.mode === "effort") config.thinkingConfig = { thinkingLevel: thinking.effort, includeThoughts: true };
  else if (thinking.mode === "disable") config.thinkingConfig = { thinkingBudget: 0 };
  applyGoogleControls(body, config, options);
  body.generationConfig = config;
  return { body, json: bodyJson(body, wiredParts) };
}

export class GoogleDecoder implements StreamDecoder {
  complete = false;
  private text: number | undefined;
  private thinking: number | undefined;
  /** Sources of Google Search grounding (see citations.ts). */
  private readonly citations = new CitationLinks();

  constructor(
    private readonly provider: string,
    private readonly out: AssistantBuilder,
  ) {}

  handle(event: SseEvent): "continue" | "end" {
    const data = eventJson(this.provider, event);
    if (data.error) {
      const info = readErrorInfo(data) ?? { message: event.data };
      const code = (data.error as Json).code;
      throw new ProviderError(formatProviderError(this.provider, typeof code === "number" ? code : undefined, info), {
        retryable: typeof code === "number" && isRetryableStatus(code, info.kind),
        overloaded: code === 503 || info.kind === "UNAVAILABLE",
        status: typeof code === "number" ? code : undefined,
        kind: info.kind,
      });
    }
    if (data.usageMetadata) this.usage(data.usageMetadata as Json);

    const blocked = ((data.promptFeedback ?? {}) as Json).blockReason;
    if (typeof blocked === "string") {
      this.complete = true;
      this.out.finish("error", `${this.provider}: the prompt was blocked (${blocked})`);
      return "end";
    }

    const candidate = (data.candidates as Json[] | undefined)?.[0];
    if (!candidate || this.complete) return "continue";
    const parts = (((candidate.content ?? {}) as Json).parts ?? []) as Json[];
    for (const part of parts) this.part(part);
    if (candidate.groundingMetadata && this.text !== undefined) this.grounding(this.text, candidate.groundingMetadata as Json);

    const reason = candidate.finishReason;
    if (typeof reason === "string" && reason !== "" && reason !== "FINISH_REASON_UNSPECIFIED") {
      this.complete = true;
      this.close("text");
      if (reason === "STOP") this.out.finish("stop");
      else if (reason === "MAX_TOKENS") this.out.finish("length");
      else this.out.finish("error", `${this.provider}: the reply was stopped (${reason})`);
    }
    return "continue";
  }

  private part(part: Json): void {
    if (typeof part.text === "string") {
      if (part.thought === true) {
        if (this.thinking === undefined) {
          this.close("text");
          this.thinking = this.out.startThinking();
        }
        this.out.appendThinking(this.thinking, part.text);
        if (typeof part.thoughtSignature === "string") this.out.setThinkingSignature(this.thinking, part.thoughtSignature);
      } else if (part.text !== "") {
        if (this.text === undefined) {
          this.close("thinking");
          this.text = this.out.startText();
        }
        this.out.appendText(this.text, part.text);
      }
    } else if (part.functionCall && typeof part.functionCall === "object") {
      this.close("text");
      this.close("thinking");
      const call = part.functionCall as Json;
      const id = typeof call.id === "string" && call.id !== "" ? call.id : newToolCallId();
      const signature = typeof part.thoughtSignature === "string" ? part.thoughtSignature : undefined;
      const index = this.out.startToolCall(id, call.name as string, signature);
      this.out.setToolArgumentsObject(index, (call.args ?? {}) as Json);
      this.out.end(index);
    }
  }

  /**
   * The search results the text rests on: the chunks its groundingSupports cite, in order of
   * citation (every chunk when none is cited by segment). Each chunk of a stream may repeat them.
   */
  private grounding(block: number, metadata: Json): void {
    const chunks = (Array.isArray(metadata.groundingChunks) ? metadata.groundingChunks : []) as Json[];
    const supports = (Array.isArray(metadata.groundingSupports) ? metadata.groundingSupports : []) as Json[];
    const cited = supports.flatMap((support) => (Array.isArray(support.groundingChunkIndices) ? (support.groundingChunkIndices as unknown[]) : []));
    const order = cited.length > 0 ? cited : chunks.map((_, i) => i);
    for (const at of order) if (typeof at === "number") this.citations.add(block, ((chunks[at]?.web ?? {}) as Json).uri);
  }

  private close(kind: "text" | "thinking"): void {
    const index = this[kind];
    if (index !== undefined) {
      if (kind === "text") this.out.appendText(index, this.citations.take(index));
      this.out.end(index);
    }
    this[kind] = undefined;
  }

  /** promptTokenCount includes cached tokens; thoughts are billed as output. */
  private usage(u: Json): void {
    const num = (v: unknown) => (typeof v === "number" ? v : 0);
    const cached = num(u.cachedContentTokenCount);
    this.out.setUsage({
      input: Math.max(0, num(u.promptTokenCount) - cached),
      output: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount),
      cacheRead: cached,
      cacheWrite: 0,
    });
  }
}

export const streamGoogle: StreamFunction = (model, context, options = {}) => {
  const auth: Record<string, string> = options.apiKey ? { "x-goog-api-key": options.apiKey } : {};
  return runProviderStream(model, options, {
    request: {
      url: `${geminiRoot(model.baseUrl)}/v1beta/models/${encodeURIComponent(model.id)}:streamGenerateContent?alt=sse`,
      headers: requestHeaders(auth, model, options),
      ...googleRequest(model, context, options),
    },
    decoder: (out) => new GoogleDecoder(model.provider, out),
  });
};
