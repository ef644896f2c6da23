// Provider-specific request shapes and stream quirks, through the stand-in.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { complete, invalidArgumentsError } from "../../../core/ai/index.ts";
import type { AssistantMessage, Message } from "../../../core/ai/messages.ts";
import type { Model } from "../../../core/ai/model.ts";
import { toGeminiSchema } from "../../../core/ai/providers/google-schema.ts";
import { type Standin, startStandin } from "../../support/standin/index.ts";
import { API_CASES, KEY, context, modelFor, run, toolCalls, user } from "./harness.ts";

let standin: Standin;
beforeAll(async () => {
  standin = await startStandin();
});
afterAll(() => standin.close());
beforeEach(() => {
  standin.requests.length = 0;
});

const [ANTHROPIC, COMPLETIONS, RESPONSES, GOOGLE] = API_CASES as [(typeof API_CASES)[0], (typeof API_CASES)[0], (typeof API_CASES)[0], (typeof API_CASES)[0]];
const lastBody = () => standin.requests.at(-1)!.body;

function toolResult(id: string, name: string, text: string): Message {
  return { role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: Date.now() };
}

/** Runs a thinking + tool-call turn, then a follow-up, and returns the follow-up's request body. */
async function roundTrip(first: Model, second: Model): Promise<{ body: any; turn: AssistantMessage }> {
  standin.setScript([{ thinking: "I should read the file.", toolCalls: [{ name: "read", arguments: { path: "a.ts" } }] }, { text: "done" }]);
  const turn = await complete(first, context(), { apiKey: KEY, thinking: "low" });
  const call = toolCalls(turn)[0]!;
  await complete(second, context([user("Hello"), turn, toolResult(call.id, "read", "content")]), { apiKey: KEY, thinking: "low" });
  return { body: lastBody(), turn };
}

describe("openai-completions quirks", () => {
  test("broken tool-call JSON is kept raw with an error for the model, not a crash", async () => {
    standin.setScript([{ toolCalls: [{ name: "read", arguments: {}, rawArguments: '{"path": "a.ts"' }] }]);
    const { final } = await run(modelFor(COMPLETIONS, standin.url), context());
    const call = toolCalls(final)[0]!;
    expect(final.stopReason).toBe("toolUse");
    expect(call.arguments._raw).toBe('{"path": "a.ts"');
    expect(invalidArgumentsError(call.arguments)).toStartWith("The tool arguments were not valid JSON");
  });

  test("a tool call streamed without an id gets one", async () => {
    standin.setScript([{ toolCalls: [{ name: "read", arguments: { path: "a" }, id: "" }] }]);
    const { final } = await run(modelFor(COMPLETIONS, standin.url, { provider: "llama.cpp" }), context());
    expect(toolCalls(final)[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  test("max-token field and effort per host", async () => {
    standin.setScript([{ text: "a" }, { text: "b" }]);
    await run(modelFor(COMPLETIONS, standin.url), context(), { thinking: "minimal", maxTokens: 900 });
    expect(lastBody()).toMatchObject({ max_completion_tokens: 900, reasoning_effort: "minimal" });
    expect(lastBody().max_tokens).toBeUndefined();

    await run(modelFor(COMPLETIONS, standin.url, { provider: "groq" }), context(), { thinking: "minimal" });
    expect(lastBody()).toMatchObject({ max_tokens: 32_000, reasoning_effort: "low" });
  });

  test("OpenRouter: no default max_tokens, reasoning object, explicit off", async () => {
    standin.setScript([{ text: "a" }, { text: "b" }]);
    const model = modelFor(COMPLETIONS, standin.url, { provider: "openrouter" });
    await run(model, context());
    expect(lastBody().max_tokens).toBeUndefined();
    expect(lastBody().reasoning).toEqual({ enabled: false });
    await run(model, context(), { thinking: "high", maxTokens: 500 });
    expect(lastBody()).toMatchObject({ max_tokens: 500, reasoning: { effort: "high" } });
    expect(lastBody().reasoning_effort).toBeUndefined();
  });

  test("Mistral: 9-character tool ids and tool names on results", async () => {
    const model = modelFor(COMPLETIONS, standin.url, { provider: "mistral", reasoning: false });
    const { body, turn } = await roundTrip(model, model);
    const sent = body.messages.find((m: any) => m.role === "assistant").tool_calls[0].id;
    expect(sent).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(sent).not.toBe(toolCalls(turn)[0]!.id);
    expect(body.messages.find((m: any) => m.role === "tool")).toMatchObject({ tool_call_id: sent, name: "read" });
  });

  test("DeepSeek: reasoning of a tool-call turn is sent back", async () => {
    const model = modelFor(COMPLETIONS, standin.url, { provider: "deepseek" });
    const { body } = await roundTrip(model, model);
    expect(body.messages.find((m: any) => m.role === "assistant").reasoning_content).toBe("I should read the file.");
    const other = modelFor(COMPLETIONS, standin.url, { provider: "groq" });
    const { body: plain } = await roundTrip(other, other);
    expect(plain.messages.find((m: any) => m.role === "assistant").reasoning_content).toBeUndefined();
  });

  test("images become data URLs, or a note when the model cannot see", async () => {
    const image: Message = { role: "user", content: [{ type: "text", text: "what is this" }, { type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 1 };
    standin.setScript([{ text: "a" }, { text: "b" }]);
    await run(modelFor(COMPLETIONS, standin.url), context([image]));
    expect(lastBody().messages[1].content[1]).toEqual({ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } });
    await run(modelFor(COMPLETIONS, standin.url, { input: ["text"] }), context([image]));
    expect(lastBody().messages[1].content[1].text).toContain("image omitted");
  });
});

describe("anthropic specifics", () => {
  test("thinking goes back with its signature to the same model only", async () => {
    const model = modelFor(ANTHROPIC, standin.url);
    const { body } = await roundTrip(model, model);
    expect(body.messages[1].content[0]).toEqual({ type: "thinking", thinking: "I should read the file.", signature: expect.stringMatching(/^sig_standin_/) });
    const { body: switched } = await roundTrip(model, { ...model, id: "other-model" });
    expect(switched.messages[1].content.map((c: any) => c.type)).toEqual(["tool_use"]);
  });

  test("the thinking budget fits under max_tokens; temperature is dropped while thinking", async () => {
    standin.setScript([{ text: "a" }, { text: "b" }]);
    await run(modelFor(ANTHROPIC, standin.url, { maxTokens: 20_000 }), context(), { thinking: "high", temperature: 0.2 });
    expect(lastBody().thinking.budget_tokens).toBeLessThan(lastBody().max_tokens);
    expect(lastBody().max_tokens).toBe(20_000);
    expect(lastBody().temperature).toBeUndefined();
    await run(modelFor(ANTHROPIC, standin.url), context(), { temperature: 0.2 });
    expect(lastBody().temperature).toBe(0.2);
    expect(lastBody().thinking).toBeUndefined();
  });

  test("tool ids from other providers are made valid on both sides", async () => {
    const foreign: AssistantMessage = {
      role: "assistant",
      content: [{ type: "toolCall", id: "call_1|fc_2", name: "read", arguments: { path: "a" } }],
      api: "openai-responses",
      provider: "openai",
      model: "gpt-5",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: 1,
    };
    standin.setScript([{ text: "ok" }]);
    await run(modelFor(ANTHROPIC, standin.url), context([user("hi"), foreign, toolResult("call_1|fc_2", "read", "x")]));
    expect(lastBody().messages[1].content[0].id).toBe("call_1_fc_2");
    expect(lastBody().messages[2].content[0].tool_use_id).toBe("call_1_fc_2");
  });

  test("an aborted turn is dropped and an unanswered call gets an error result", async () => {
    const turn = (stopReason: AssistantMessage["stopReason"], id: string): AssistantMessage => ({
      role: "assistant",
      content: [{ type: "toolCall", id, name: "read", arguments: { path: "a" } }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "test-model",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason,
      timestamp: 1,
    });
    standin.setScript([{ text: "ok" }]);
    await run(modelFor(ANTHROPIC, standin.url), context([user("a"), turn("aborted", "t1"), toolResult("t1", "read", "x"), user("b"), turn("toolUse", "t2"), user("c")]));
    const messages = lastBody().messages;
    expect(messages.map((m: any) => m.role)).toEqual(["user", "user", "assistant", "user", "user"]);
    expect(messages[3].content[0]).toMatchObject({ type: "tool_result", tool_use_id: "t2", is_error: true });
  });
});

describe("openai-responses specifics", () => {
  test("the reasoning item with encrypted content round-trips before its call", async () => {
    const model = modelFor(RESPONSES, standin.url);
    const { body } = await roundTrip(model, model);
    expect(body.input.map((i: any) => i.type ?? i.role)).toEqual(["user", "reasoning", "function_call", "function_call_output"]);
    expect(body.input[1]).toMatchObject({ type: "reasoning", id: expect.stringMatching(/^rs_/), encrypted_content: expect.stringMatching(/^enc_/) });
    const { body: switched } = await roundTrip(model, { ...model, id: "gpt-other" });
    expect(switched.input.some((i: any) => i.type === "reasoning")).toBe(false);
  });

  test("session id becomes the prompt cache key; a length stop maps to length", async () => {
    standin.setScript([{ text: "truncated", stop: "length" }]);
    const { final } = await run(modelFor(RESPONSES, standin.url), context(), { sessionId: "session-42" });
    expect(lastBody().prompt_cache_key).toBe("session-42");
    expect(final.stopReason).toBe("length");
  });
});

describe("google specifics", () => {
  test("thought signatures round-trip; Gemini 3 gets the documented placeholder for foreign calls", async () => {
    const model = modelFor(GOOGLE, standin.url);
    const { body } = await roundTrip(model, model);
    const callPart = body.contents[1].parts.find((p: any) => p.functionCall);
    expect(callPart.thoughtSignature).toMatch(/^tsig_standin_/);

    const { body: foreign } = await roundTrip(modelFor(ANTHROPIC, standin.url), { ...model, id: "gemini-3-pro-preview" });
    expect(foreign.contents[1].parts.find((p: any) => p.functionCall).thoughtSignature).toBe("skip_thought_signature_validator");
  });

  test("MAX_TOKENS maps to length; thinking off means a zero budget on flash", async () => {
    standin.setScript([{ text: "cut short", stop: "length" }]);
    const { final } = await run(modelFor(GOOGLE, standin.url, { id: "gemini-2.5-flash" }), context());
    expect(final.stopReason).toBe("length");
    expect(lastBody().generationConfig).toEqual({ maxOutputTokens: 32_000, thinkingConfig: { thinkingBudget: 0 } });
  });

  test("JSON Schema is reduced to the subset Gemini accepts", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      additionalProperties: false,
      $defs: { mode: { type: "string", enum: ["a", "b"] } },
      properties: {
        url: { type: "string", format: "uri" },
        when: { type: "string", format: "date-time" },
        note: { type: ["string", "null"], description: "optional" },
        mode: { $ref: "#/$defs/mode" },
        kind: { const: "fixed" },
        count: { anyOf: [{ type: "integer", exclusiveMinimum: 0 }, { type: "null" }] },
        tags: { type: "array", items: { type: "string" }, minItems: 1 },
      },
      required: ["url", "ghost"],
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: "object",
      properties: {
        url: { type: "string" },
        when: { type: "string", format: "date-time" },
        note: { type: "string", nullable: true, description: "optional" },
        mode: { type: "string", enum: ["a", "b"] },
        kind: { type: "string", enum: ["fixed"] },
        count: { type: "integer", nullable: true },
        tags: { type: "array", items: { type: "string" }, minItems: 1 },
      },
      required: ["url"],
    });
  });
});
