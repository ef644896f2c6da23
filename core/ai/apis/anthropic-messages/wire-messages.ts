import { type Wired, keptWire, withLastKey, wired } from "../../http/wire-json.ts";
import type { ImageContent, Message, TextContent } from "../../messages.ts";
import type { Model } from "../../model.ts";
import { isSameModel } from "../../transcript.ts";
import { type WireLayout, WireConversation, arrayJson } from "../../wire-conversation.ts";

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
  const parts = WireConversation.of("anthropic", model, messages, LAYOUT);
  // The last user message is further back when the conversation ends with the model's turns: every element is put together.
  const last = (elements: Element[]) => elements.findLast((e) => e.role === "user" && e.blocks.length > 0);
  const inOpen = last(parts.open);
  const [closed, closedValues, open] = inOpen ? [parts.closed, parts.closedValues, parts.open] : ["", [], parts.all()];
  const lastUser = inOpen ?? last(open);
  if (lastUser) {
    const at = lastUser.blocks.length - 1;
    const { value, json } = lastUser.blocks[at]!;
    lastUser.blocks[at] = { value: { ...value, cache_control: CACHE }, json: withLastKey(json, "cache_control", CACHE) };
  }
  return { value: [...(closedValues as AnthropicMessage[]), ...open.flatMap(elementValues)], json: arrayJson(closed, open.map(elementJson)) };
}

/** Messages on the wire: a transcript message's blocks, or consecutive tool results travelling together in one user message. */
interface Element {
  role: "user" | "assistant";
  /** Tool results: those that follow join it, as they answer one assistant turn. */
  result: boolean;
  blocks: Wired<Block>[];
}

/** An element without blocks (an empty message) is not sent, and one that follows takes its place. */
const elementJson = (e: Element) => (e.blocks.length === 0 ? "" : `{"role":"${e.role}","content":[${e.blocks.map((block) => block.json).join(",")}]}`);
const elementValues = (e: Element): AnthropicMessage[] => (e.blocks.length === 0 ? [] : [{ role: e.role, content: e.blocks.map((block) => block.value) }]);

const LAYOUT: WireLayout<Element> = {
  element: wireMessage,
  join(run, next) {
    if (next.blocks.length === 0) return true;
    if (run.blocks.length === 0 || !(next.result && run.result)) return false;
    run.blocks.push(...next.blocks);
    return true;
  },
  copy: (e) => ({ ...e, blocks: [...e.blocks] }),
  json: elementJson,
  values: elementValues,
};

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
