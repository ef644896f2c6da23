import type { ImageContent, Message, TextContent } from "../ai/messages.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import type { Codec, DecodedRequest } from "./codec.ts";
import { anthropicEncoder, anthropicError, anthropicMessage } from "./anthropic-encode.ts";
import { anthropicOutputFormat, anthropicToolChoice, servedControls, stopSequences } from "./controls.ts";
import { AnthropicRequest, parseRequest } from "./schemas.ts";
import { openSignature, signatureOrigin } from "./signature.ts";
import { type ReturnedPart, assistantTurn, budgetLevel, capTokens, effortLevel, imageFromUrl, toolResult } from "./transcript.ts";

type Block = Record<string, unknown> & { type: string };

/** Anthropic Messages (`POST /v1/messages`), as Claude Code and the Anthropic SDK send it. */
export const anthropicCodec: Codec = {
  name: "anthropic",
  parse(body) {
    const request = parseRequest(AnthropicRequest, body);
    return { model: request.model, stream: request.stream === true, body: request };
  },
  decode: (body, headers, target) => decodeAnthropic(body as AnthropicRequest, headers, target),
  encoder: anthropicEncoder,
  message: anthropicMessage,
  error: anthropicError,
};

export function decodeAnthropic(request: AnthropicRequest, headers: Headers, target: Model): DecodedRequest {
  const system: string[] = [];
  if (typeof request.system === "string") system.push(request.system);
  else for (const block of request.system ?? []) if (block.type === "text" && typeof block.text === "string") system.push(block.text);

  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  for (const m of request.messages) {
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Block[]);
    if (m.role === "system") {
      // Current Claude Code sends some instructions as system-role messages.
      system.push(blocks.map(blockText).join(""));
    } else if (m.role === "assistant") {
      messages.push(assistantTurn(blocks.flatMap((b) => returnedPart(b, target, toolNames)), target));
    } else {
      // Results answer the previous turn's calls and come first; the user's own words follow.
      const parts: (TextContent | ImageContent)[] = [];
      for (const block of blocks) {
        if (block.type === "tool_result") {
          const id = String(block.tool_use_id ?? "");
          messages.push(toolResult(id, toolNames.get(id) ?? "tool", resultContent(block.content), block.is_error === true));
        } else parts.push(...userPart(block));
      }
      if (parts.length > 0) messages.push({ role: "user", content: parts, timestamp: Date.now() });
    }
  }

  const tools = (request.tools ?? []).flatMap((t) =>
    // Server tools (web search, tool search) have no input schema and cannot be served elsewhere.
    t.input_schema ? [{ name: t.name, description: t.description ?? "", parameters: t.input_schema }] : [],
  );
  const decoded: DecodedRequest = {
    context: { systemPrompt: system.join("\n\n"), messages, tools },
    stream: request.stream === true,
    maxTokens: capTokens(request.max_tokens, target),
    thinking: thinkingLevel(request),
    controls: servedControls(
      {
        toolChoice: anthropicToolChoice(request.tool_choice),
        stop: stopSequences(request.stop_sequences, "stop_sequences"),
        responseFormat: anthropicOutputFormat(request.output_config?.format),
      },
      target,
      { toolChoice: "tool_choice", stop: "stop_sequences", responseFormat: "output_config.format" },
    ),
  };
  if (typeof request.temperature === "number") decoded.temperature = request.temperature;
  const key = headers.get("x-claude-code-session-id") ?? sessionFromMetadata(request.metadata?.user_id);
  if (key) decoded.conversationKey = key;
  return decoded;
}

function thinkingLevel(request: AnthropicRequest): ThinkingLevel {
  const type = request.thinking?.type;
  if (type === "enabled") return budgetLevel(request.thinking?.budget_tokens ?? undefined);
  if (type === "adaptive") return effortLevel(request.output_config?.effort);
  return "off";
}

/** Claude Code's `metadata.user_id` is a JSON string with a `session_id` (older versions: `..._session_<uuid>`). */
function sessionFromMetadata(userId: string | null | undefined): string | undefined {
  if (!userId) return undefined;
  try {
    const parsed = JSON.parse(userId) as { session_id?: unknown };
    if (typeof parsed.session_id === "string") return parsed.session_id;
  } catch {
    // Not JSON: the older form.
  }
  return /_session_([0-9a-f-]{36})$/.exec(userId)?.[1];
}

function returnedPart(block: Block, target: Model, toolNames: Map<string, string>): ReturnedPart[] {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" && block.text !== "" ? [{ type: "text", text: block.text }] : [];
    case "thinking":
    case "redacted_thinking": {
      const redacted = block.type === "redacted_thinking";
      const opened = openSignature(String((redacted ? block.data : block.signature) ?? ""));
      const part: ReturnedPart = { type: "thinking", thinking: redacted ? "" : String(block.thinking ?? ""), origin: signatureOrigin(opened, target, "anthropic") };
      if (opened.signature !== undefined) part.signature = opened.signature;
      if (redacted) part.redacted = true;
      return [part];
    }
    case "tool_use":
    case "server_tool_use": {
      const id = String(block.id ?? "");
      const name = String(block.name ?? "");
      toolNames.set(id, name);
      const input = block.input !== null && typeof block.input === "object" ? (block.input as Record<string, unknown>) : {};
      return [{ type: "toolCall", id, name, arguments: input }];
    }
    default:
      return [];
  }
}

function userPart(block: Block): (TextContent | ImageContent)[] {
  if (block.type === "text") return typeof block.text === "string" && block.text !== "" ? [{ type: "text", text: block.text }] : [];
  if (block.type === "image") {
    const source = (block.source ?? {}) as Record<string, unknown>;
    if (source.type === "base64") return [{ type: "image", mimeType: String(source.media_type), data: String(source.data) }];
    if (source.type === "url") return [imageFromUrl(String(source.url))];
    return [];
  }
  if (block.type === "document") {
    const source = (block.source ?? {}) as Record<string, unknown>;
    return source.type === "text" ? [{ type: "text", text: String(source.data ?? "") }] : [];
  }
  return [];
}

function resultContent(content: unknown): (TextContent | ImageContent)[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return (content as Block[]).flatMap(userPart);
}

function blockText(block: Block): string {
  return block.type === "text" && typeof block.text === "string" ? block.text : "";
}
