import { type Wired, keptWire, wired } from "../../http/wire-json.ts";
import type { ImageContent, Message, TextContent } from "../../messages.ts";
import type { Model } from "../../model.ts";
import { isSameModel, textOf } from "../../transcript.ts";
import { type WireLayout, WireConversation, arrayJson } from "../../wire-conversation.ts";

type Json = Record<string, unknown>;
export interface Content {
  role: "user" | "model";
  parts: Json[];
}

/**
 * Gemini 3 and later reject a history whose function calls lack a thought signature; for calls
 * they did not make (another model's, or from before a model switch) Google documents this placeholder.
 */
const SKIP_SIGNATURE = "skip_thought_signature_validator";

/** Gemini 3 and every generation since (`gemini-3.8-flash`, `gemini-4-carbon`, ...). */
export const GEMINI_3_ON = /gemini-(?:[3-9]|[1-9]\d)/;

/** The conversation as Gemini contents, with its JSON text (core/ai/wire-conversation.ts). */
export function googleContents(model: Model, messages: Message[]): Wired<Content[]> {
  const { closed, closedValues, open } = WireConversation.of("google-generative-ai", model, messages, LAYOUT);
  return { value: [...closedValues, ...open.flatMap(LAYOUT.values)] as Content[], json: arrayJson(closed, open.map(LAYOUT.json)) };
}

/** A message's content; the responses to one turn's parallel calls go back together in a single user content. */
interface Element {
  role: "user" | "model";
  results: boolean;
  /** False for a model turn with nothing to send: it is left out, and what follows takes its place. */
  sent: boolean;
  parts: Wired<Json>[];
}

const LAYOUT: WireLayout<Element> = {
  element: wireContent,
  join(run, next) {
    if (!next.sent) return true;
    if (!run.sent || !run.results || !next.results) return false;
    run.parts.push(...next.parts);
    return true;
  },
  copy: (e) => ({ ...e, parts: [...e.parts] }),
  json: (e) => (e.sent ? `{"role":"${e.role}","parts":[${e.parts.map((part) => part.json).join(",")}]}` : ""),
  values: (e) => (e.sent ? [{ role: e.role, parts: e.parts.map((part) => part.value) }] : []),
};

/** A message's content, kept with it: it depends on image support, the model generation and, for a model turn, whether this model made it. */
function wireContent(model: Model, m: Message): Element {
  const images = model.input.includes("image");
  const form = `google ${images} ${GEMINI_3_ON.test(model.id)}`;
  if (m.role === "user") {
    return keptWire(m, form, () => ({ role: "user", results: false, sent: true, parts: (typeof m.content === "string" ? [{ text: m.content }] : m.content.map((c) => userPart(c, images))).map(wired) }));
  }
  if (m.role === "assistant") {
    const native = isSameModel(m, model);
    return keptWire(m, `${form} ${native}`, () => {
      const parts: Json[] = [];
      let firstCall = true;
      for (const c of m.content) {
        if (c.type === "text") {
          if (c.text !== "") parts.push({ text: c.text });
        } else if (c.type === "thinking") {
          if (native && c.thinking !== "") parts.push(c.signature ? { text: c.thinking, thought: true, thoughtSignature: c.signature } : { text: c.thinking, thought: true });
        } else {
          const part: Json = { functionCall: { name: c.name, args: c.arguments } };
          const signature = native ? c.providerData : undefined;
          if (signature) part.thoughtSignature = signature;
          else if (GEMINI_3_ON.test(model.id) && firstCall) part.thoughtSignature = SKIP_SIGNATURE;
          firstCall = false;
          parts.push(part);
        }
      }
      return { role: "model", results: false, sent: parts.length > 0, parts: parts.map(wired) };
    });
  }
  return keptWire(m, form, () => {
    const text = textOf(m.content) || "(no output)";
    const attached = m.content.filter((c): c is ImageContent => c.type === "image");
    const parts: Json[] = [{ functionResponse: { name: m.toolName, response: m.isError ? { error: text } : { output: text } } }];
    for (const image of attached) parts.push(userPart(image, images));
    return { role: "user", results: true, sent: true, parts: parts.map(wired) };
  });
}

function userPart(c: TextContent | ImageContent, images: boolean): Json {
  if (c.type === "text") return { text: c.text };
  return images ? { inlineData: { mimeType: c.mimeType, data: c.data } } : { text: "(image omitted: this model does not accept images)" };
}
