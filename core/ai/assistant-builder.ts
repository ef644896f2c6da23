import type { ProviderFailure } from "./failure.ts";
import type { AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall } from "./messages.ts";
import { emptyUsage } from "./messages.ts";
import type { Model } from "./model.ts";
import type { AssistantEvent } from "./stream.ts";
import { parseToolArguments } from "./tool-arguments.ts";
import { type TokenCounts, usageFor } from "./usage.ts";

/**
 * Accumulates one AssistantMessage from provider deltas and queues the matching events, so every
 * adapter produces the same block lifecycle (`*_start`, `*_delta`…, `*_end`) whatever its wire
 * format. Events carry the live message as `partial`; consumers that keep one must copy it.
 */
export class AssistantBuilder {
  readonly message: AssistantMessage;
  private readonly model: Model;
  private queue: AssistantEvent[] = [];
  private readonly open = new Set<number>();
  private readonly toolJson = new Map<number, string>();
  private emitted = false;

  constructor(model: Model) {
    this.model = model;
    this.message = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
  }

  /** True once a content event was queued: a retry would then show the user the same output twice. */
  get hasOutput(): boolean {
    return this.emitted;
  }

  /** Forgets a failed attempt that showed nothing, keeping the message object consumers already hold. */
  reset(): void {
    this.message.content.length = 0;
    this.message.usage = emptyUsage();
    this.message.stopReason = "stop";
    delete this.message.errorMessage;
    this.open.clear();
    this.toolJson.clear();
    this.queue = [];
    this.emitted = false;
  }

  /** The events queued since the last call. */
  take(): AssistantEvent[] {
    const events = this.queue;
    this.queue = [];
    return events;
  }

  startText(): number {
    const index = this.add({ type: "text", text: "" });
    this.push({ type: "text_start", contentIndex: index, partial: this.message });
    return index;
  }

  appendText(index: number, delta: string): void {
    if (delta === "") return;
    this.block<TextContent>(index, "text").text += delta;
    this.push({ type: "text_delta", contentIndex: index, delta, partial: this.message });
  }

  startThinking(init: { signature?: string; redacted?: boolean } = {}): number {
    const block: ThinkingContent = { type: "thinking", thinking: "" };
    if (init.signature !== undefined) block.signature = init.signature;
    if (init.redacted) block.redacted = true;
    const index = this.add(block);
    this.push({ type: "thinking_start", contentIndex: index, partial: this.message });
    return index;
  }

  appendThinking(index: number, delta: string): void {
    if (delta === "") return;
    this.block<ThinkingContent>(index, "thinking").thinking += delta;
    this.push({ type: "thinking_delta", contentIndex: index, delta, partial: this.message });
  }

  /** Signatures carry no user-visible text, so they change the block without an event. */
  setThinkingSignature(index: number, signature: string, append = false): void {
    const block = this.block<ThinkingContent>(index, "thinking");
    block.signature = append ? (block.signature ?? "") + signature : signature;
  }

  startToolCall(id: string, name: string, providerData?: string): number {
    const call: ToolCall = { type: "toolCall", id, name, arguments: {} };
    if (providerData !== undefined) call.providerData = providerData;
    const index = this.add(call);
    this.toolJson.set(index, "");
    this.push({ type: "toolcall_start", contentIndex: index, partial: this.message });
    return index;
  }

  appendToolArguments(index: number, delta: string): void {
    if (delta === "") return;
    this.block<ToolCall>(index, "toolCall");
    this.toolJson.set(index, (this.toolJson.get(index) ?? "") + delta);
    this.push({ type: "toolcall_delta", contentIndex: index, delta, partial: this.message });
  }

  /** For providers that send the complete arguments at the end (Responses `…arguments.done`). */
  replaceToolArguments(index: number, json: string): void {
    this.block<ToolCall>(index, "toolCall");
    this.toolJson.set(index, json);
  }

  /** For providers that send arguments as an object (Gemini): one synthetic delta, as if streamed. */
  setToolArgumentsObject(index: number, args: Record<string, unknown>): void {
    this.appendToolArguments(index, JSON.stringify(args));
  }

  setToolProviderData(index: number, providerData: string): void {
    this.block<ToolCall>(index, "toolCall").providerData = providerData;
  }


  end(index: number): void {
    if (!this.open.delete(index)) return;
    const block = this.message.content[index];
    if (!block) return;
    if (block.type === "text") this.push({ type: "text_end", contentIndex: index, content: block, partial: this.message });
    else if (block.type === "thinking") this.push({ type: "thinking_end", contentIndex: index, partial: this.message });
    else {
      block.arguments = parseToolArguments(this.toolJson.get(index) ?? "");
      this.toolJson.delete(index);
      this.push({ type: "toolcall_end", contentIndex: index, toolCall: block, partial: this.message });
    }
  }

  endAll(): void {
    for (const index of [...this.open].sort((a, b) => a - b)) this.end(index);
  }

  setUsage(tokens: TokenCounts): void {
    this.message.usage = usageFor(this.model.cost, tokens);
  }

  get tokens(): TokenCounts {
    const { input, output, cacheRead, cacheWrite } = this.message.usage;
    return { input, output, cacheRead, cacheWrite };
  }

  /**
   * Closes open blocks and records why the model stopped. Some providers say "stop" even when the
   * turn ends in tool calls; the agent loop keys off `toolUse`, so that case is promoted.
   */
  finish(reason: StopReason, errorMessage?: string): void {
    this.endAll();
    const hasCalls = this.message.content.some((c) => c.type === "toolCall");
    this.message.stopReason = reason === "stop" && hasCalls ? "toolUse" : reason;
    if (errorMessage !== undefined) this.message.errorMessage = errorMessage;
  }

  /** The stop sequence the provider says ended the text. */
  stoppedAt(sequence: string): void {
    this.message.stopSequence = sequence;
  }

  /** Ends the message as failed without closing blocks: a cut-off tool call must not look complete. */
  fail(reason: "error" | "aborted", errorMessage: string, failure?: ProviderFailure): void {
    this.message.stopReason = reason;
    this.message.errorMessage = errorMessage;
    if (failure) this.message.failure = failure;
  }

  private add(block: TextContent | ThinkingContent | ToolCall): number {
    this.message.content.push(block);
    const index = this.message.content.length - 1;
    this.open.add(index);
    return index;
  }

  private block<T extends TextContent | ThinkingContent | ToolCall>(index: number, type: T["type"]): T {
    const block = this.message.content[index];
    if (!block || block.type !== type) throw new Error(`content ${index} is not a ${type} block`);
    return block as T;
  }

  private push(event: AssistantEvent): void {
    this.emitted = true;
    this.queue.push(event);
  }
}
