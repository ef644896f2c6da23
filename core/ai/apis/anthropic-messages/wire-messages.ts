import { type Wired, keptWire, withLastKey, wired } from "../../http/wire-json.ts";
import type { ImageContent, Message, TextContent } from "../../messages.ts";
import type { Model } from "../../model.ts";
import { TranscriptFold, failedCalls, isSameModel } from "../../transcript.ts";

export type Block = Record<string, unknown>;
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: Block[];
}

export const CACHE = { type: "ephemeral" } as const;

/** Anthropic only accepts `^[a-zA-Z0-9_-]{1,64}$`; ids from other providers are mapped the same way on both sides. */
function anthropicToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return clean === "" ? "tool" : clean;
}

/** The conversation as Anthropic takes it, the last user block marked for the prompt cache, with its JSON text. */
export function anthropicMessages(model: Model, messages: Message[]): Wired<AnthropicMessage[]> {
  // One model's at a time: a switch back and forth folds again rather than keeping a copy per model.
  const kept = keptWire(messages, "anthropic", () => ({ conversation: new WireConversation(model) }));
  const { provider, api, id } = kept.conversation.model;
  if (provider !== model.provider || api !== model.api || id !== model.id) kept.conversation = new WireConversation(model);
  return kept.conversation.request(messages);
}

/** Messages on the wire: a transcript message's blocks, or consecutive tool results travelling together in one user message. */
interface Element {
  role: "user" | "assistant";
  /** Tool results: those that follow join it, as they answer one assistant turn. */
  result: boolean;
  blocks: Wired<Block>[];
}

const elementJson = (e: Element) => `{"role":"${e.role}","content":[${e.blocks.map((block) => block.json).join(",")}]}`;
const elementValue = (e: Element): AnthropicMessage => ({ role: e.role, content: e.blocks.map((block) => block.value) });

/** Adds a message's blocks to the elements, as the last one's or as a new one; true when a new one was started. */
function place(elements: Element[], wire: Element): boolean {
  if (wire.blocks.length === 0) return false;
  const last = elements[elements.length - 1];
  if (wire.result && last?.result) {
    last.blocks.push(...wire.blocks);
    return false;
  }
  elements.push({ ...wire, blocks: [...wire.blocks] });
  return true;
}

/**
 * One conversation (the agent's message list, which only grows between requests) on the wire for
 * one model: the transcript is folded a message at a time, and each element's JSON text joins the
 * `closed` text once a later one follows, so a request converts and serialises only what is new.
 * A list that no longer starts with the messages folded (a compaction, a rewind, thinking dropped)
 * is folded again from its start.
 */
class WireConversation {
  private fold!: TranscriptFold;
  private sources: Message[] = [];
  private elements: Element[] = [];
  /** Every element but the last: JSON texts joined by commas, and values. */
  private closed = "";
  private closedValues: AnthropicMessage[] = [];

  constructor(readonly model: Model) {}

  request(messages: Message[]): Wired<AnthropicMessage[]> {
    let carriesOn = messages.length >= this.sources.length && this.fold !== undefined;
    for (let i = 0; carriesOn && i < this.sources.length; i++) carriesOn = messages[i] === this.sources[i];
    if (!carriesOn) this.restart(messages);
    for (let i = this.sources.length; i < messages.length; i++) {
      if (!this.fold.add(messages[i]!)) {
        this.restart(messages);
        for (const m of messages) this.fold.add(m);
        break;
      }
    }
    this.sources = messages.slice();

    const open: Element[] = this.elements.length > 0 ? [this.copy(this.elements[this.elements.length - 1]!)] : [];
    for (const missing of this.fold.unanswered()) place(open, wireMessage(this.model, missing));
    if (open.some((e) => e.role === "user")) return this.marked(this.closed, this.closedValues, open);
    // The last user message is further back (the conversation ends with assistant turns): every element is put together.
    return this.marked("", [], [...this.elements.slice(0, -1), ...open].map((e) => this.copy(e)));
  }

  private restart(messages: Message[]): void {
    this.fold = new TranscriptFold((m) => {
      if (place(this.elements, wireMessage(this.model, m)) && this.elements.length > 1) {
        const closing = this.elements[this.elements.length - 2]!;
        this.closed += `${this.closed === "" ? "" : ","}${elementJson(closing)}`;
        this.closedValues.push(elementValue(closing));
      }
    }, failedCalls(messages));
    this.elements = [];
    this.closed = "";
    this.closedValues = [];
    this.sources = [];
  }

  private copy(e: Element): Element {
    return { ...e, blocks: [...e.blocks] };
  }

  /** `open` (copies) after the closed elements, its last user block given the cache mark. */
  private marked(closed: string, closedValues: AnthropicMessage[], open: Element[]): Wired<AnthropicMessage[]> {
    const lastUser = open.findLast((e) => e.role === "user");
    if (lastUser) {
      const at = lastUser.blocks.length - 1;
      const { value, json } = lastUser.blocks[at]!;
      lastUser.blocks[at] = { value: { ...value, cache_control: CACHE }, json: withLastKey(json, "cache_control", CACHE) };
    }
    const openJson = open.map(elementJson).join(",");
    return {
      value: [...closedValues, ...open.map(elementValue)],
      json: `[${closed}${closed !== "" && openJson !== "" ? "," : ""}${openJson}]`,
    };
  }
}

/** A message's wire form, kept with it (an assistant's depends on whether it is this model's own: its thinking goes back only then). */
function wireMessage(model: Model, m: Message): Element {
  if (m.role === "user") {
    return keptWire(m, "anthropic", () => {
      const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content.map(userBlock);
      return { role: "user", result: false, blocks: content.filter((b) => b.type !== "text" || (b.text as string) !== "").map(wired) };
    });
  }
  if (m.role === "assistant") {
    const native = isSameModel(m, model);
    return keptWire(m, native ? "anthropic" : "anthropic-foreign", () => {
      const content: Block[] = [];
      for (const c of m.content) {
        if (c.type === "text") {
          if (c.text !== "") content.push({ type: "text", text: c.text });
        } else if (c.type === "thinking") {
          // Thinking is only accepted back with the signature Anthropic issued for this model.
          if (!native || !c.signature) continue;
          if (c.redacted) content.push({ type: "redacted_thinking", data: c.signature });
          else content.push({ type: "thinking", thinking: c.thinking, signature: c.signature });
        } else {
          content.push({ type: "tool_use", id: anthropicToolId(c.id), name: c.name, input: c.arguments });
        }
      }
      return { role: "assistant", result: false, blocks: content.map(wired) };
    });
  }
  return keptWire(m, "anthropic", () => {
    const result: Block = {
      type: "tool_result",
      tool_use_id: anthropicToolId(m.toolCallId),
      content: m.content.length > 0 ? m.content.map(userBlock) : [{ type: "text", text: "(no output)" }],
    };
    if (m.isError) result.is_error = true;
    return { role: "user", result: true, blocks: [wired(result)] };
  });
}

function userBlock(c: TextContent | ImageContent): Block {
  if (c.type === "text") return { type: "text", text: c.text };
  return { type: "image", source: { type: "base64", media_type: c.mimeType, data: c.data } };
}
