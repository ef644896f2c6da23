import { describe, expect, test } from "bun:test";
import type { AssistantMessage, Message } from "../../../core/ai/messages.ts";
import { testModel } from "./test-model.ts";
import { responsesRequestBody } from "../../../core/ai/apis/openai-responses/stream.ts";
import { decodeAnthropic } from "../../../core/gateway/anthropic.ts";
import { decodeChat } from "../../../core/gateway/chat.ts";
import { decodeResponses } from "../../../core/gateway/responses.ts";
import { AnthropicRequest, ChatRequest, ResponsesRequest } from "../../../core/gateway/schemas.ts";
import { sealSignature } from "../../../core/gateway/signature.ts";

const claude = testModel("anthropic", "anthropic-messages", "claude-x");
const gpt = testModel("openai", "openai-responses", "gpt-x");

const roles = (messages: Message[]) => messages.map((m) => m.role);
const assistant = (messages: Message[]) => messages.find((m): m is AssistantMessage => m.role === "assistant")!;

describe("Anthropic requests", () => {
  test("Claude Code's shape: system blocks and system-role messages, session from metadata, results before the user's words", () => {
    const request = AnthropicRequest.parse({
      model: "claude-x",
      max_tokens: 64_000,
      system: [{ type: "text", text: "A" }, { type: "text", text: "B" }],
      thinking: { type: "adaptive" },
      output_config: { effort: "max" },
      metadata: { user_id: JSON.stringify({ session_id: "s-1" }) },
      messages: [
        { role: "system", content: "C" },
        { role: "user", content: "list" },
        { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "sig-raw" }, { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }] },
        { role: "user", content: [{ type: "text", text: "and then?" }, { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "a.txt" }] }] },
      ],
    });
    const decoded = decodeAnthropic(request, new Headers(), claude);
    expect(decoded.context.systemPrompt).toBe("A\n\nB\n\nC");
    expect(decoded.conversationKey).toBe("s-1");
    expect(decoded.thinking).toBe("xhigh");
    expect(decoded.maxTokens).toBe(16_000);
    expect(roles(decoded.context.messages)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(decoded.context.messages[2]).toMatchObject({ toolCallId: "toolu_1", toolName: "Bash", content: [{ type: "text", text: "a.txt" }] });
    // A raw signature is the target's own when it speaks Anthropic Messages: kept byte-exact.
    expect(assistant(decoded.context.messages)).toMatchObject({ provider: "anthropic", model: "claude-x", content: [{ type: "thinking", signature: "sig-raw" }, { type: "toolCall" }] });
    // The same history to another API: the thinking is dropped, the call kept.
    expect(assistant(decodeAnthropic(request, new Headers(), gpt).context.messages).content.map((c) => c.type)).toEqual(["toolCall"]);
  });

  test("the session header wins over metadata; budgets map to levels", () => {
    const request = AnthropicRequest.parse({ model: "m", max_tokens: 10, thinking: { type: "enabled", budget_tokens: 4000 }, messages: [{ role: "user", content: "hi" }] });
    const decoded = decodeAnthropic(request, new Headers({ "x-claude-code-session-id": "hdr" }), claude);
    expect(decoded.conversationKey).toBe("hdr");
    expect(decoded.thinking).toBe("low");
  });
});

describe("Chat Completions requests", () => {
  test("developer messages join the system prompt, tool results find their call's name, reasoning_effort none is off", () => {
    const request = ChatRequest.parse({
      model: "m",
      reasoning_effort: "none",
      prompt_cache_key: "pck",
      messages: [
        { role: "developer", content: "D" },
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"x"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "data" },
      ],
    });
    const decoded = decodeChat(request, gpt);
    expect(decoded.context.systemPrompt).toBe("D");
    expect(decoded.thinking).toBe("off");
    expect(decoded.conversationKey).toBe("pck");
    expect(assistant(decoded.context.messages).content).toEqual([{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "x" } }]);
    expect(decoded.context.messages[2]).toMatchObject({ role: "toolResult", toolName: "read", content: [{ type: "text", text: "data" }] });
  });

  test("arguments that are not a JSON object are a 400, not a guess", () => {
    const request = ChatRequest.parse({ model: "m", messages: [{ role: "assistant", tool_calls: [{ id: "c", function: { name: "f", arguments: "[1" } }] }] });
    expect(() => decodeChat(request, gpt)).toThrow("not a JSON object");
  });
});

describe("Responses requests", () => {
  test("consecutive output items are one assistant turn; sealed reasoning returns to its own model only", () => {
    const sealed = sealSignature(claude, "sig-claude");
    const request = ResponsesRequest.parse({
      model: "m",
      instructions: "I",
      input: [
        { role: "user", content: [{ type: "input_text", text: "patch it" }] },
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "thinking" }], encrypted_content: sealed },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Patching." }] },
        { type: "custom_tool_call", id: "ctc_1", call_id: "call_9", name: "apply_patch", input: "*** Begin Patch" },
        { type: "custom_tool_call_output", call_id: "call_9", output: "ok" },
      ],
      tools: [{ type: "custom", name: "apply_patch", description: "Patch." }],
    });
    const onClaude = decodeResponses(request, claude);
    expect(onClaude.context.systemPrompt).toBe("I");
    expect(roles(onClaude.context.messages)).toEqual(["user", "assistant", "toolResult"]);
    expect(assistant(onClaude.context.messages).content).toEqual([
      { type: "thinking", thinking: "thinking", signature: "sig-claude" },
      { type: "text", text: "Patching." },
      { type: "toolCall", id: "call_9", name: "apply_patch", arguments: { input: "*** Begin Patch" }, providerData: "ctc_1" },
    ]);
    expect(onClaude.customTools).toEqual(new Set(["apply_patch"]));
    expect(onClaude.context.tools[0]!.parameters).toMatchObject({ required: ["input"] });
    // Another model does not get thinking Claude signed: the turn stays Claude's, so core/ai leaves it out.
    const onGpt = decodeResponses(request, gpt);
    expect(assistant(onGpt.context.messages)).toMatchObject({ provider: "anthropic", model: "claude-x" });
    const body = JSON.stringify(responsesRequestBody(gpt, onGpt.context));
    expect(body).not.toContain("sig-claude");
    expect(body).toContain("Patching.");
  });

  test("OpenAI's own reasoning item goes back whole to an OpenAI Responses target and nowhere else", () => {
    const item = { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "gAAAA" };
    const request = ResponsesRequest.parse({ model: "m", input: [{ role: "user", content: "q" }, item, { type: "message", role: "assistant", content: "a" }, { role: "user", content: "q2" }] });
    const thinking = assistant(decodeResponses(request, gpt).context.messages).content[0]!;
    expect(thinking.type).toBe("thinking");
    expect(JSON.parse((thinking as { signature: string }).signature)).toEqual(item);
    expect(assistant(decodeResponses(request, claude).context.messages).content.map((c) => c.type)).toEqual(["text"]);
  });
});
