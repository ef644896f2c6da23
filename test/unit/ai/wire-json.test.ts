// The request bytes put together from the wire forms kept with each message (core/ai/http/wire-json.ts)
// are those JSON.stringify writes for a body made afresh, request after request of a growing conversation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { complete } from "../../../core/ai/index.ts";
import { anthropicRequestBody } from "../../../core/ai/apis/anthropic-messages/stream.ts";
import { responsesRequestBody } from "../../../core/ai/apis/openai-responses/stream.ts";
import { completionsRequestBody } from "../../../core/ai/apis/openai-completions/stream.ts";
import { googleRequestBody } from "../../../core/ai/apis/google-generative-ai/stream.ts";
import type { AssistantMessage, Message } from "../../../core/ai/messages.ts";
import type { Model } from "../../../core/ai/model.ts";
import type { Context, StreamOptions } from "../../../core/ai/stream.ts";
import { bodyJson, withLastKey } from "../../../core/ai/http/wire-json.ts";
import { type Standin, startStandin } from "../../support/standin/index.ts";
import { API_CASES, KEY, TOOLS, modelFor, user } from "./harness.ts";

let standin: Standin;
beforeAll(async () => {
  standin = await startStandin();
});
afterAll(() => standin.close());

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

function assistant(model: Model, content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "toolUse"): AssistantMessage {
  const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  return { role: "assistant", content, api: model.api, provider: model.provider, model: model.id, usage, stopReason, timestamp: 1 };
}

const result = (id: string, text: string, isError = false): Message => ({ role: "toolResult", toolCallId: id, toolName: "read", content: text === "" ? [] : [{ type: "text", text }], isError, timestamp: 2 });

/** A conversation growing turn by turn: signed and redacted thinking, parallel calls, an error turn, an unanswered call, images, empty text, quotes and non-ASCII text. */
function turns(model: Model, other: Model): Message[][] {
  return [
    [user('Read "a.ts" — and ü/€/😀 too')],
    [assistant(model, [{ type: "thinking", thinking: "look first", signature: '[{"type":"reasoning.text","text":"look first"}]' }, { type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "a.ts" } }, { type: "toolCall", id: "call|2", name: "read", arguments: { path: "b.ts" } }]), result("toolu_1", "line 1\n\tline \"2\"\n"), result("call|2", "", true)],
    [assistant(other, [{ type: "thinking", thinking: "another model's", signature: "sig-other" }, { type: "text", text: "" }, { type: "toolCall", id: "toolu_3", name: "read", arguments: { path: "c.ts" } }, { type: "toolCall", id: "toolu_3b", name: "read", arguments: { path: "p.png" } }]), result("toolu_3", "x".repeat(3000)), { role: "toolResult", toolCallId: "toolu_3b", toolName: "read", content: [{ type: "text", text: "a picture" }, { type: "image", data: PNG, mimeType: "image/png" }], isError: false, timestamp: 2 }],
    [assistant(model, [{ type: "text", text: "half" }], "error"), { role: "user", content: [{ type: "text", text: "" }, { type: "image", data: PNG, mimeType: "image/png" }, { type: "text", text: "see" }], timestamp: 3 }],
    [assistant(model, [{ type: "thinking", thinking: "", signature: "redacted-data", redacted: true }, { type: "toolCall", id: "toolu_4", name: "read", arguments: {} }])],
    [user("and now?")],
    // An empty message is not sent; the cache mark stays on the last one that is.
    [user("")],
    // A failed turn naming a call already answered drops that answer: the conversation is folded again.
    [assistant(model, [{ type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "a.ts" } }], "error"), user("again")],
    // The conversation ends with the model's words: the last user message is further back.
    [assistant(model, [{ type: "text", text: "done" }], "stop")],
  ];
}

describe("request bodies from kept wire forms", () => {
  /**
   * Each API's requests of a growing conversation, for its model, another one and a model without
   * images, with and without tools and web search: every request's bytes against JSON.stringify of
   * a body made from a copy, which has nothing kept with it.
   */
  async function everyRequest(api: number, bodyOf: (model: Model, context: Context, options: StreamOptions) => unknown, check?: (body: any) => void, more: Partial<Model>[] = []): Promise<number> {
    const model = modelFor(API_CASES[api]!, standin.url);
    const other = { ...model, id: "other-model" };
    const textOnly = { ...model, input: ["text" as const] };
    const variants: StreamOptions[] = [{ apiKey: KEY }, { apiKey: KEY, thinking: "high", nativeWebSearch: true }, { apiKey: "sk-ant-oat01-token", toolChoice: { name: "read" } }];
    let requests = 0;
    for (const sent of [model, other, textOnly, ...more.map((overrides) => ({ ...model, ...overrides }))]) {
      for (const [i, options] of variants.entries()) {
        const history: Message[] = [];
        // The turns one by one, then the list rewritten in place (as a compaction or a rewind does).
        const steps = [...turns(sent, other).map((turn) => () => history.push(...turn)), () => history.splice(1, 4), () => history.splice(0, history.length, user("fresh"))];
        for (const step of steps) {
          step();
          const context: Context = { systemPrompt: "You help.", messages: history, tools: i === 2 ? [] : TOOLS };
          standin.setScript([{ text: "ok" }]);
          await complete(sent, context, options);
          requests++;
          expect(standin.requests.at(-1)!.rawBody!).toBe(JSON.stringify(bodyOf(sent, structuredClone(context), options)));
          check?.(JSON.parse(standin.requests.at(-1)!.rawBody!));
        }
      }
    }
    return requests;
  }

  test("anthropic: the bytes of a body made afresh, one cache mark on the last user block", async () => {
    const requests = await everyRequest(0, anthropicRequestBody, (body) => {
      const messages = body.messages as { role: string; content: Record<string, unknown>[] }[];
      expect(messages.flatMap((m) => m.content).filter((b) => b.cache_control)).toEqual([messages.findLast((m) => m.role === "user")!.content.at(-1)!]);
    });
    expect(requests).toBe(99);
    expect(JSON.parse(standin.requests.at(-1)!.rawBody!).messages).toEqual([{ role: "user", content: [{ type: "text", text: "fresh", cache_control: { type: "ephemeral" } }] }]);
  });

  test("openai-completions: the bytes of a body made afresh, for Claude's cache marks, Mistral's ids, DeepSeek's and OpenRouter's reasoning", async () => {
    const more: Partial<Model>[] = [{ id: "anthropic/claude-sonnet-5-5" }, { provider: "mistral" }, { provider: "deepseek" }, { provider: "openrouter" }, { provider: "openrouter", id: "anthropic/claude-sonnet-5-5", input: ["text"] }];
    expect(await everyRequest(1, completionsRequestBody, undefined, more)).toBe(8 * 33);
  });

  test("google-generative-ai: the bytes of a body made afresh, for Gemini 3's placeholder signatures too", async () => {
    expect(await everyRequest(3, googleRequestBody, undefined, [{ id: "gemini-3-pro" }])).toBe(4 * 33);
  });

  test("openai-responses: the bytes of a body made afresh, a tool result's images after its run of results", async () => {
    expect(await everyRequest(2, responsesRequestBody)).toBe(99);
  });

  test("bodyJson and withLastKey write what JSON.stringify writes", () => {
    const body = { model: "m", gone: undefined, fn: () => 1, messages: [{ a: 1 }], tools: [{ b: "\u2028" }] };
    expect(bodyJson(body, { messages: { value: body.messages, json: JSON.stringify(body.messages) } })).toBe(JSON.stringify(body));
    expect(bodyJson({}, {})).toBe("{}");
    // A key whose value was replaced after its text was made is written afresh.
    expect(bodyJson({ tools: [2] }, { tools: { value: [1], json: "[1]" } })).toBe('{"tools":[2]}');
    const block: Record<string, unknown> = { type: "text", text: 'a "q"' };
    const json = JSON.stringify(block);
    block.cache_control = { type: "ephemeral" };
    expect(withLastKey(json, "cache_control", { type: "ephemeral" })).toBe(JSON.stringify(block));
    expect(withLastKey("{}", "k", 1)).toBe('{"k":1}');
  });
});
