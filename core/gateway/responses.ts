import type { ImageContent, Message, TextContent } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import type { ToolSpec } from "../ai/stream.ts";
import type { Codec, DecodedRequest } from "./codec.ts";
import { openaiToolChoice, responseFormat, servedControls } from "./controls.ts";
import { openaiError } from "./chat-encode.ts";
import { responsesEncoder, responsesMessage } from "./responses-encode.ts";
import { ResponsesRequest, parseRequest } from "./schemas.ts";
import { type Origin, openSignature, originOf } from "./signature.ts";
import { type ReturnedPart, assistantTurn, capTokens, effortLevel, imageFromUrl, parseArguments, toolResult } from "./transcript.ts";
import { sameAsClient } from "../ai/apis/index.ts";

type Item = Record<string, unknown>;

/** OpenAI Responses (`POST /v1/responses`), as Codex and the OpenAI SDK send it. */
export const responsesCodec: Codec = {
  name: "responses",
  parse(body) {
    const request = parseRequest(ResponsesRequest, body);
    return { model: request.model, stream: request.stream === true, body: request };
  },
  decode: (body, _headers, target) => decodeResponses(body as ResponsesRequest, target),
  encoder: responsesEncoder,
  message: responsesMessage,
  error: openaiError,
};

/** Freeform tools take raw text; other providers get them as a function with one `input` string. */
const FREEFORM_PARAMETERS = {
  type: "object",
  properties: { input: { type: "string", description: "The tool's input, as raw text in the format the description gives." } },
  required: ["input"],
};

export function decodeResponses(request: ResponsesRequest, target: Model): DecodedRequest {
  const system: string[] = request.instructions ? [request.instructions] : [];
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  // Consecutive output items (reasoning, text, calls) were one assistant turn.
  let turn: ReturnedPart[] = [];
  const flush = () => {
    if (turn.length > 0) messages.push(assistantTurn(turn, target));
    turn = [];
  };

  const items: Item[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : (request.input as Item[]);
  for (const item of items) {
    const type = item.type ?? "message";
    if (type === "message") {
      const role = String(item.role ?? "user");
      if (role === "assistant") {
        const text = contentParts(item.content).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
        if (text !== "") turn.push({ type: "text", text });
        continue;
      }
      flush();
      const parts = contentParts(item.content);
      if (role === "system" || role === "developer") system.push(parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""));
      else if (parts.length > 0) messages.push({ role: "user", content: parts, timestamp: Date.now() });
    } else if (type === "reasoning") {
      turn.push(reasoningPart(item, target));
    } else if (type === "function_call" || type === "custom_tool_call") {
      const id = String(item.call_id ?? item.id ?? "");
      const name = String(item.name ?? "");
      toolNames.set(id, name);
      const args = type === "custom_tool_call" ? { input: String(item.input ?? "") } : parseArguments(item.arguments as string | undefined, `input item ${id}`);
      const call: ReturnedPart = { type: "toolCall", id, name, arguments: args };
      if (typeof item.id === "string") call.providerData = item.id;
      turn.push(call);
    } else if (type === "function_call_output" || type === "custom_tool_call_output") {
      flush();
      const id = String(item.call_id ?? "");
      const output = typeof item.output === "string" ? (item.output === "" ? [] : [{ type: "text" as const, text: item.output }]) : contentParts(item.output);
      messages.push(toolResult(id, toolNames.get(id) ?? "tool", output, false));
    }
  }
  flush();

  const customTools = new Set<string>();
  const tools: ToolSpec[] = [];
  for (const t of request.tools ?? []) {
    if (t.type === "function" && t.name) tools.push({ name: t.name, description: t.description ?? "", parameters: t.parameters ?? { type: "object", properties: {} } });
    else if (t.type === "custom" && t.name) {
      customTools.add(t.name);
      const format = t.format as { definition?: unknown } | undefined;
      const grammar = typeof format?.definition === "string" ? `\n\nThe input follows this grammar:\n${format.definition}` : "";
      tools.push({ name: t.name, description: (t.description ?? "") + grammar, parameters: FREEFORM_PARAMETERS });
    }
  }

  const decoded: DecodedRequest = {
    context: { systemPrompt: system.join("\n\n"), messages, tools },
    stream: request.stream === true,
    maxTokens: capTokens(request.max_output_tokens, target),
    thinking: request.reasoning?.effort ? effortLevel(request.reasoning.effort) : "off",
    customTools,
    controls: servedControls(
      { toolChoice: openaiToolChoice(request.tool_choice), responseFormat: responseFormat(request.text?.format, "text.format") },
      target,
      { toolChoice: "tool_choice", stop: "stop", responseFormat: "text.format" },
    ),
  };
  if (typeof request.temperature === "number") decoded.temperature = request.temperature;
  if (request.prompt_cache_key) decoded.conversationKey = request.prompt_cache_key;
  if (request.previous_response_id) decoded.previousResponseId = request.previous_response_id;
  decoded.keep = request.store !== false;
  return decoded;
}

/**
 * A reasoning item sent back: one the gateway sealed names its model; a raw one (encrypted by
 * OpenAI) is kept whole for a Responses target and dropped for any other.
 */
function reasoningPart(item: Item, target: Model): ReturnedPart {
  const summary = Array.isArray(item.summary) ? (item.summary as Item[]) : [];
  const thinking = summary.map((s) => String(s.text ?? "")).join("\n\n");
  const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content : undefined;
  const opened = openSignature(encrypted);
  if (opened.origin) {
    const part: ReturnedPart = { type: "thinking", thinking, origin: opened.origin };
    if (opened.signature !== undefined) part.signature = opened.signature;
    if (opened.redacted) part.redacted = true;
    return part;
  }
  let origin: Origin | null = null;
  if (encrypted !== undefined && sameAsClient(target, "openai-responses")) origin = originOf(target);
  return { type: "thinking", thinking, origin, signature: JSON.stringify({ type: "reasoning", id: item.id, summary, encrypted_content: encrypted }) };
}

function contentParts(content: unknown): (TextContent | ImageContent)[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return (content as Item[]).flatMap((part): (TextContent | ImageContent)[] => {
    if ((part.type === "input_text" || part.type === "output_text" || part.type === "text") && typeof part.text === "string") {
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    }
    if (part.type === "input_image" && typeof part.image_url === "string") return [imageFromUrl(part.image_url)];
    return [];
  });
}
