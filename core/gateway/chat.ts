import type { ImageContent, Message, TextContent } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import { type Codec, type DecodedRequest, RequestError } from "./codec.ts";
import { openaiToolChoice, responseFormat, servedControls, stopSequences } from "./controls.ts";
import { failure } from "./errors.ts";
import { chatEncoder, chatMessage, openaiError } from "./chat-encode.ts";
import { ChatRequest, parseRequest } from "./schemas.ts";
import { type ReturnedPart, assistantTurn, capTokens, effortLevel, imageFromUrl, parseArguments, toolResult } from "./transcript.ts";

type Part = Record<string, unknown> & { type: string };

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const chatCodec: Codec = {
  name: "chat",
  parse(body) {
    const request = parseRequest(ChatRequest, body);
    return { model: request.model, stream: request.stream === true, body: request };
  },
  decode: (body, _headers, target) => decodeChat(body as ChatRequest, target),
  encoder: chatEncoder,
  message: chatMessage,
  error: openaiError,
};

export function decodeChat(request: ChatRequest, target: Model): DecodedRequest {
  // Providers give one choice per request; n answers would be n paid requests the client did not expect to make.
  if (request.n !== null && request.n !== undefined && request.n > 1) {
    throw new RequestError(failure("invalid_request", `n: the gateway serves one choice per request, got n=${request.n}; send n=1 (or leave it out) and make several requests`));
  }
  const system: string[] = [];
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  for (const m of request.messages) {
    const parts: Part[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : ((m.content ?? []) as Part[]);
    if (m.role === "system" || m.role === "developer") system.push(textOf(parts));
    else if (m.role === "assistant") {
      // Chat has no signatures: reasoning_content comes back as unsigned thinking, which only the
      // providers that take reasoning text back (DeepSeek-style) replay.
      const turn: ReturnedPart[] = [];
      const text = textOf(parts);
      if (text !== "") turn.push({ type: "text", text });
      for (const call of m.tool_calls ?? []) {
        toolNames.set(call.id, call.function.name);
        turn.push({ type: "toolCall", id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments ?? undefined, `assistant tool call ${call.id}`) });
      }
      const message = assistantTurn(turn, target);
      // Unsigned reasoning belongs to whichever model the client talks to now.
      if (m.reasoning_content) message.content.unshift({ type: "thinking", thinking: m.reasoning_content });
      messages.push(message);
    } else if (m.role === "tool" || m.role === "function") {
      const id = m.tool_call_id ?? "";
      messages.push(toolResult(id, toolNames.get(id) ?? "tool", parts.flatMap(userPart), false));
    } else {
      const content = parts.flatMap(userPart);
      if (content.length > 0) messages.push({ role: "user", content, timestamp: Date.now() });
    }
  }

  const tools = (request.tools ?? []).flatMap((t) =>
    t.type === "function" && t.function ? [{ name: t.function.name, description: t.function.description ?? "", parameters: t.function.parameters ?? { type: "object", properties: {} } }] : [],
  );
  const decoded: DecodedRequest = {
    context: { systemPrompt: system.join("\n\n"), messages, tools },
    stream: request.stream === true,
    maxTokens: capTokens(request.max_completion_tokens ?? request.max_tokens, target),
    thinking: request.reasoning_effort ? effortLevel(request.reasoning_effort) : "off",
    includeUsage: request.stream_options?.include_usage === true,
    controls: servedControls(
      { toolChoice: openaiToolChoice(request.tool_choice), stop: stopSequences(request.stop, "stop"), responseFormat: responseFormat(request.response_format, "response_format") },
      target,
      { toolChoice: "tool_choice", stop: "stop", responseFormat: "response_format" },
    ),
  };
  if (typeof request.temperature === "number") decoded.temperature = request.temperature;
  const key = request.prompt_cache_key ?? undefined;
  if (key) decoded.conversationKey = key;
  return decoded;
}

function textOf(parts: Part[]): string {
  return parts.map((p) => (p.type === "text" && typeof p.text === "string" ? p.text : "")).join("");
}

function userPart(part: Part): (TextContent | ImageContent)[] {
  if (part.type === "text") return typeof part.text === "string" && part.text !== "" ? [{ type: "text", text: part.text }] : [];
  if (part.type === "image_url") {
    const image = part.image_url as { url?: unknown } | string | undefined;
    const url = typeof image === "string" ? image : image?.url;
    return typeof url === "string" ? [imageFromUrl(url)] : [];
  }
  return [];
}
