// Provider-specific request shapes and stream quirks, through the stand-in.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { builtinModels, complete, invalidArgumentsError } from "../../../core/ai/index.ts";
import type { AssistantMessage, Message } from "../../../core/ai/messages.ts";
import type { Model, ThinkingLevel } from "../../../core/ai/model.ts";
import { toGeminiSchema } from "../../../core/ai/apis/google-generative-ai/schema.ts";
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

/** A catalog model, its thinking spec and all, with its provider's base URL on the stand-in. */
function catalogModel(provider: string, id: string): Model {
  const base = (c: (typeof API_CASES)[0]) => c.base(standin.url);
  const env = {
    ANTHROPIC_BASE_URL: base(ANTHROPIC),
    OPENAI_BASE_URL: base(RESPONSES),
    GEMINI_BASE_URL: base(GOOGLE),
    OPENROUTER_BASE_URL: base(COMPLETIONS),
  };
  const model = builtinModels(env).find((m) => m.provider === provider && m.id === id);
  if (!model) throw new Error(`${provider}/${id} is not in the catalog`);
  return model;
}

/** The request body `model` gets for each thinking level, after a reply the stand-in always has. */
async function bodiesByLevel(model: Model, levels: ThinkingLevel[], options: { temperature?: number } = {}): Promise<Record<string, any>> {
  const bodies: Record<string, any> = {};
  for (const thinking of levels) {
    standin.setScript([{ text: "ok" }]);
    await run(model, context(), { thinking, ...options });
    bodies[thinking] = lastBody();
  }
  return bodies;
}

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

  test("a spec picks the effort and says off where the model takes none; OpenRouter keeps thinking at the least when it must", async () => {
    const openai = modelFor(COMPLETIONS, standin.url, { thinking: { control: "effort", efforts: ["low", "medium", "high", "xhigh", "max"], off: "disable", fixedSampling: true } });
    const bodies = await bodiesByLevel(openai, ["off", "xhigh"], { temperature: 0.4 });
    expect(bodies.off.reasoning_effort).toBe("none");
    expect(bodies.xhigh.reasoning_effort).toBe("xhigh");
    expect(bodies.xhigh.temperature).toBeUndefined();

    const opus = await bodiesByLevel(catalogModel("openrouter", "anthropic/claude-opus-5.5"), ["off", "high"]);
    expect(opus.off.reasoning).toEqual({ effort: "low" });
    expect(opus.high.reasoning).toEqual({ effort: "high" });

    // Grok models reject reasoning_effort unless they say they take it.
    const grok = modelFor(COMPLETIONS, standin.url, { provider: "xai", id: "grok-4" });
    expect((await bodiesByLevel(grok, ["high"])).high.reasoning_effort).toBeUndefined();
    const stated = { ...grok, thinking: { control: "effort" as const, efforts: ["low", "medium", "high"], off: "never" as const, fixedSampling: false } };
    expect((await bodiesByLevel(stated, ["off"])).off.reasoning_effort).toBe("low");
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

  test("adaptive-only models (Opus 5.5, Fable): effort for every level, the least for off, no budget or sampling", async () => {
    for (const id of ["claude-opus-5-5", "claude-fable-5-2"]) {
      const bodies = await bodiesByLevel(catalogModel("anthropic", id), ["off", "minimal", "low", "medium", "high", "xhigh"], { temperature: 0.2 });
      for (const [level, effort] of [["off", "low"], ["minimal", "low"], ["low", "low"], ["medium", "medium"], ["high", "high"], ["xhigh", "xhigh"]]) {
        expect(bodies[level!]).toMatchObject({ thinking: { type: "adaptive", display: "summarized" }, output_config: { effort }, max_tokens: 128_000 });
        expect(bodies[level!].temperature).toBeUndefined();
      }
    }
  });

  test("off is said the way each Claude 5 model takes it: between_tools, disabled, or left out for extended thinking", async () => {
    const sonnet = await bodiesByLevel(catalogModel("anthropic", "claude-sonnet-5-5"), ["off", "medium"], { temperature: 0.2 });
    expect(sonnet.off.thinking).toEqual({ type: "between_tools" });
    expect(sonnet.off.output_config).toBeUndefined();
    expect(sonnet.medium).toMatchObject({ thinking: { type: "adaptive", display: "summarized" }, output_config: { effort: "medium" } });
    expect(sonnet.off.temperature).toBeUndefined();

    for (const id of ["claude-haiku-5-5", "claude-opus-5", "claude-sonnet-5"]) {
      const bodies = await bodiesByLevel(catalogModel("anthropic", id), ["off"], { temperature: 0.2 });
      expect(bodies.off.thinking).toEqual({ type: "disabled" });
      expect(bodies.off.output_config).toBeUndefined();
      // These reject non-default sampling parameters even with thinking disabled.
      expect(bodies.off.temperature).toBeUndefined();
    }

    const legacy = await bodiesByLevel(catalogModel("anthropic", "claude-sonnet-4-5"), ["off", "medium"], { temperature: 0.2 });
    expect(legacy.off.thinking).toBeUndefined();
    expect(legacy.off.temperature).toBe(0.2);
    expect(legacy.medium.thinking).toEqual({ type: "enabled", budget_tokens: 10240 });
    expect(legacy.medium.output_config).toBeUndefined();
  });

  test("a models.yml spec: adaptive with the efforts it lists and sampling allowed when thinking is left out", async () => {
    const model = modelFor(ANTHROPIC, standin.url, { thinking: { control: "effort", efforts: ["low", "medium", "high", "max"], off: "omit", fixedSampling: false } });
    const bodies = await bodiesByLevel(model, ["off", "xhigh", "minimal"], { temperature: 0.2 });
    expect(bodies.off.thinking).toBeUndefined();
    expect(bodies.off.temperature).toBe(0.2);
    // xhigh sits between high and max; the tie goes to the cheaper one.
    expect(bodies.xhigh).toMatchObject({ thinking: { type: "adaptive", display: "summarized" }, output_config: { effort: "high" } });
    expect(bodies.xhigh.temperature).toBeUndefined();
    expect(bodies.minimal.output_config).toEqual({ effort: "low" });
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

  test("reasoning effort per model: the accepted names, none where a model can stop thinking, the least where it cannot", async () => {
    const levels: ThinkingLevel[] = ["off", "minimal", "medium", "xhigh"];
    const sol = await bodiesByLevel(catalogModel("openai", "gpt-6.2-sol"), levels);
    expect([sol.off, sol.minimal, sol.medium, sol.xhigh].map((b) => b.reasoning)).toEqual([
      { effort: "low", summary: "auto" },
      { effort: "low", summary: "auto" },
      { effort: "medium", summary: "auto" },
      { effort: "xhigh", summary: "auto" },
    ]);
    const terra = await bodiesByLevel(catalogModel("openai", "gpt-6.1-terra"), ["off"]);
    expect(terra.off.reasoning).toEqual({ effort: "none" });
    const gpt5 = await bodiesByLevel(catalogModel("openai", "gpt-5"), ["off", "minimal", "xhigh"]);
    expect([gpt5.off, gpt5.minimal, gpt5.xhigh].map((b) => b.reasoning.effort)).toEqual(["minimal", "minimal", "high"]);
    const plain = await bodiesByLevel(catalogModel("openai", "gpt-4.1"), ["high"], { temperature: 0.3 });
    expect(plain.high.reasoning).toBeUndefined();
    expect(plain.high.temperature).toBe(0.3);
  });

  test("a model without a spec keeps the GPT-5 names, and off leaves effort to the model", async () => {
    const bodies = await bodiesByLevel(modelFor(RESPONSES, standin.url), ["off", "minimal", "xhigh"]);
    expect(bodies.off.reasoning).toBeUndefined();
    expect(bodies.minimal.reasoning.effort).toBe("minimal");
    expect(bodies.xhigh.reasoning.effort).toBe("high");
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

  test("Gemini 3 and later take a thinking level and cannot stop thinking; 2.5 takes a budget", async () => {
    const carbon = await bodiesByLevel(catalogModel("google", "gemini-4-carbon"), ["off", "minimal", "medium", "xhigh"]);
    expect(["off", "minimal", "medium", "xhigh"].map((l) => carbon[l].generationConfig.thinkingConfig)).toEqual([
      { thinkingLevel: "low", includeThoughts: true },
      { thinkingLevel: "low", includeThoughts: true },
      { thinkingLevel: "medium", includeThoughts: true },
      { thinkingLevel: "high", includeThoughts: true },
    ]);
    const hydrogen = await bodiesByLevel(catalogModel("google", "gemini-4-hydrogen"), ["xhigh"]);
    expect(hydrogen.xhigh.generationConfig.thinkingConfig.thinkingLevel).toBe("xhigh");

    const pro = await bodiesByLevel(catalogModel("google", "gemini-2.5-pro"), ["off", "high"]);
    expect(pro.off.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 1024, includeThoughts: true });
    expect(pro.high.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    const lite = await bodiesByLevel(catalogModel("google", "gemini-2.5-flash-lite"), ["off"]);
    expect(lite.off.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 0 });

    // A Gemini 3+ model omp does not know gets the levels they all share.
    const unknown = await bodiesByLevel(modelFor(GOOGLE, standin.url, { id: "gemini-4-neon" }), ["off", "medium", "xhigh"]);
    expect(["off", "medium", "xhigh"].map((l) => unknown[l].generationConfig.thinkingConfig.thinkingLevel)).toEqual(["low", "medium", "high"]);
  });

  test("Gemini 4 gets the placeholder signature for calls it did not make", async () => {
    const { body } = await roundTrip(modelFor(ANTHROPIC, standin.url), catalogModel("google", "gemini-4-carbon"));
    expect(body.contents[1].parts.find((p: any) => p.functionCall).thoughtSignature).toBe("skip_thought_signature_validator");
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
