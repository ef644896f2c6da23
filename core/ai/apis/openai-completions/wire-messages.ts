import { type Wired, keptWire, wired } from "../../http/wire-json.ts";
import type { ImageContent, Message, TextContent } from "../../messages.ts";
import type { Model } from "../../model.ts";
import { isSameModel, textOf } from "../../transcript.ts";
import { type ItemElement, type WireLayout, WireConversation, arrayJson, itemLayout } from "../../wire-conversation.ts";
import { type CompletionsCompat, mistralToolId } from "./compat.ts";

type Json = Record<string, unknown>;

const IMAGE_OMITTED = "(image omitted: this model does not accept images)";
const CACHE = { type: "ephemeral" } as const;

/**
 * The system prompt and the conversation as Chat Completions messages, with their JSON text
 * (core/ai/wire-conversation.ts). With `compat.cacheControl`, Anthropic's cache breakpoints in
 * OpenAI's message shape: the system prompt and the last user or tool message, as content parts
 * carrying `cache_control` (a string content becomes one text part); the prefix up to the last
 * mark is read from the cache on the next turn.
 */
export function completionsMessages(model: Model, compat: CompletionsCompat, systemPrompt: string, messages: Message[]): Wired<Json[]> {
  const layout = layoutFor(model, compat);
  const parts = WireConversation.of("openai-completions", model, messages, layout);
  const items = (elements: Element[]) => elements.flatMap(ITEMS.items);
  const lastAsked = (list: Wired<Json>[]) => list.findLastIndex((item) => item.value.role === "user" || item.value.role === "tool");
  let closed = parts.closed;
  let closedValues = parts.closedValues as Json[];
  let open = items(parts.open);
  if (compat.cacheControl && lastAsked(open) === -1) {
    // The last user or tool message is further back (the conversation ends with the model's turns): every element is put together.
    [closed, closedValues, open] = ["", [], items(parts.all())];
  }
  let system: Wired<Json> | undefined = systemPrompt === "" ? undefined : wired({ role: "system", content: systemPrompt });
  if (compat.cacheControl) {
    system = system && marked(system);
    const at = lastAsked(open);
    if (at !== -1) open[at] = marked(open[at]!);
  }
  const head = system ? [system] : [];
  return {
    value: [...head.map((item) => item.value), ...closedValues, ...open.map((item) => item.value)],
    json: arrayJson(head.map((item) => item.json).join(","), [closed, ...open.map((item) => item.json)]),
  };
}

/** `message` with the cache mark on its text: a string content as one marked text part, or its last text part marked. */
function marked(message: Wired<Json>): Wired<Json> {
  const { content } = message.value;
  if (typeof content === "string") return content === "" ? message : wired({ ...message.value, content: [{ type: "text", text: content, cache_control: CACHE }] });
  if (!Array.isArray(content) || content.length === 0) return message;
  const at = (content as Json[]).findLastIndex((part) => part.type === "text");
  if (at === -1) return message;
  return wired({ ...message.value, content: (content as Json[]).map((part, i) => (i === at ? { ...part, cache_control: CACHE } : part)) });
}

type Element = ItemElement<Json>;

const ITEMS = itemLayout<Json>((images) => ({ role: "user", content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...images.map(imagePart)] }));

/** The layout for `model`: a message's form depends on the model's compat flags and images, and for its own turns on whether it made them. */
function layoutFor(model: Model, compat: CompletionsCompat): WireLayout<Element> {
  const images = model.input.includes("image");
  const form = `completions ${model.provider} ${model.baseUrl} ${model.id} ${images}`;
  const toolId = (id: string) => (compat.mistral ? mistralToolId(id) : id);
  return {
    ...ITEMS,
    element(_model, m) {
      if (m.role === "user") {
        return keptWire(m, form, () => ({ results: false, items: [wired({ role: "user", content: typeof m.content === "string" ? m.content : m.content.map((c) => userPart(c, images)) })], images: [] }));
      }
      if (m.role === "assistant") {
        const native = isSameModel(m, model);
        return keptWire(m, `${form} ${native}`, () => {
          const text = m.content
            .filter((c): c is TextContent => c.type === "text")
            .map((c) => c.text)
            .join("");
          const calls = m.content.flatMap((c) =>
            c.type === "toolCall" ? [{ id: toolId(c.id), type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } }] : [],
          );
          if (text === "" && calls.length === 0) return { results: false, items: [], images: [] };
          const message: Json = { role: "assistant", content: text === "" ? null : text };
          if (compat.reasoningDetails && native) {
            const details = m.content.flatMap((c) => (c.type === "thinking" ? reasoningDetailsOf(c.signature) : []));
            if (details.length > 0) message.reasoning_details = details;
          }
          if (calls.length > 0) {
            message.tool_calls = calls;
            if (compat.replayReasoningContent) {
              const reasoning = m.content.flatMap((c) => (c.type === "thinking" ? [c.thinking] : [])).join("");
              if (reasoning !== "") message.reasoning_content = reasoning;
            }
          }
          return { results: false, items: [wired(message)], images: [] };
        });
      }
      return keptWire(m, form, () => {
        const attached = m.content.filter((c): c is ImageContent => c.type === "image");
        let content = textOf(m.content) || "(no output)";
        if (!images && attached.length > 0) content = `${content}\n${IMAGE_OMITTED}`;
        const message: Json = { role: "tool", tool_call_id: toolId(m.toolCallId), content };
        if (compat.mistral) message.name = m.toolName;
        return { results: true, items: [wired(message)], images: images ? attached : [] };
      });
    },
  };
}

/** The reasoning_details a thinking block keeps (as JSON in its signature) for OpenRouter. */
function reasoningDetailsOf(signature: string | undefined): Json[] {
  if (!signature?.startsWith("[")) return [];
  try {
    const parsed: unknown = JSON.parse(signature);
    return Array.isArray(parsed) ? (parsed as Json[]) : [];
  } catch {
    return [];
  }
}

function imagePart(c: ImageContent): Json {
  return { type: "image_url", image_url: { url: `data:${c.mimeType};base64,${c.data}` } };
}

function userPart(c: TextContent | ImageContent, images: boolean): Json {
  if (c.type === "text") return { type: "text", text: c.text };
  return images ? imagePart(c) : { type: "text", text: IMAGE_OMITTED };
}
