import { type Wired, keptWire, wired } from "../../http/wire-json.ts";
import type { ImageContent, Message, TextContent } from "../../messages.ts";
import type { Model } from "../../model.ts";
import { isSameModel, textOf } from "../../transcript.ts";
import { type ItemElement, type WireLayout, WireConversation, arrayJson, itemLayout } from "../../wire-conversation.ts";

type Json = Record<string, unknown>;

const IMAGE_OMITTED = "(image omitted: this model does not accept images)";

/** The conversation as Responses input items, with its JSON text (core/ai/wire-conversation.ts). */
export function responsesInput(model: Model, messages: Message[]): Wired<Json[]> {
  const { closed, closedValues, open } = WireConversation.of("openai-responses", model, messages, LAYOUT);
  return { value: [...closedValues, ...open.flatMap(LAYOUT.values)] as Json[], json: arrayJson(closed, open.map(LAYOUT.json)) };
}

type Element = ItemElement<Json>;

const LAYOUT: WireLayout<Element> = {
  ...itemLayout<Json>((images) => ({ role: "user", content: [{ type: "input_text", text: "Images returned by the tool calls above:" }, ...images.map(inputImage)] })),
  element: wireItems,
};

/** A message's items, kept with it: they depend on whether the model takes images and, for its own turns, whether it made them. */
function wireItems(model: Model, m: Message): Element {
  const images = model.input.includes("image");
  if (m.role === "user") {
    return keptWire(m, images ? "responses" : "responses-text", () => {
      const parts = typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
      return { results: false, items: [wired({ role: "user", content: parts.map((c) => inputPart(c, images)) })], images: [] };
    });
  }
  if (m.role === "assistant") {
    const native = isSameModel(m, model);
    return keptWire(m, native ? "responses" : "responses-foreign", () => {
      const items: Json[] = [];
      for (const c of m.content) {
        if (c.type === "thinking") {
          const item = native ? reasoningItem(c.signature) : undefined;
          if (item) items.push(item);
        } else if (c.type === "text") {
          if (c.text !== "") items.push({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: c.text, annotations: [] }] });
        } else {
          const call: Json = { type: "function_call", call_id: c.id, name: c.name, arguments: JSON.stringify(c.arguments) };
          if (native && c.providerData?.startsWith("fc")) call.id = c.providerData;
          items.push(call);
        }
      }
      return { results: false, items: items.map(wired), images: [] };
    });
  }
  return keptWire(m, images ? "responses" : "responses-text", () => {
    const attached = m.content.filter((c): c is ImageContent => c.type === "image");
    let output = textOf(m.content) || "(no output)";
    if (attached.length > 0 && !images) output += `\n${IMAGE_OMITTED}`;
    return { results: true, items: [wired({ type: "function_call_output", call_id: m.toolCallId, output })], images: images ? attached : [] };
  });
}

/** The reasoning item as Responses returned it, kept in ThinkingContent.signature. */
function reasoningItem(signature: string | undefined): Json | undefined {
  if (!signature) return undefined;
  try {
    const item = JSON.parse(signature) as Json;
    return item.type === "reasoning" ? item : undefined;
  } catch {
    return undefined;
  }
}

function inputImage(c: ImageContent): Json {
  return { type: "input_image", detail: "auto", image_url: `data:${c.mimeType};base64,${c.data}` };
}

function inputPart(c: TextContent | ImageContent, images: boolean): Json {
  if (c.type === "text") return { type: "input_text", text: c.text };
  return images ? inputImage(c) : { type: "input_text", text: IMAGE_OMITTED };
}
