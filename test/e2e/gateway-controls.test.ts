import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RecordedRequest } from "../support/standin/index.ts";
import { UPSTREAMS, type UpstreamCase } from "../support/gateway.ts";
import { type SdkGateway, caught, startSdkGateway } from "../support/gateway-sdk.ts";

/**
 * What a gateway client asks for beyond the conversation (tool choice, stop sequences, output
 * format, n) reaches the upstream in its own spelling, or is refused in the client's envelope. The
 * stand-in cuts its text at the stop sequences it finds in the upstream's own field, so a sequence
 * that was dropped or misnamed leaves the whole text in the answer.
 */

const TOOL = { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const SCHEMA = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false };
const TEXT = "alpha beta END gamma";

let setup: SdkGateway;
beforeAll(async () => (setup = await startSdkGateway()));
afterAll(() => setup?.close());

/** Runs one request with a one-turn script and returns what reached the stand-in (undefined: nothing did). */
async function upstreamOf<T>(run: () => Promise<T>): Promise<{ result: T; request: RecordedRequest | undefined }> {
  setup.standin.setScript([{ text: TEXT }]);
  const before = setup.standin.requests.length;
  const result = await run();
  return { result, request: setup.standin.requests.slice(before).find((r) => r.method === "POST") };
}

/** The upstream body's tool choice and stop sequences, in the upstream's own fields. */
function forwarded(upstream: UpstreamCase, body: any): { toolChoice: unknown; stop: unknown } {
  switch (upstream.api) {
    case "anthropic-messages":
      return { toolChoice: body.tool_choice, stop: body.stop_sequences };
    case "openai-completions":
      return { toolChoice: body.tool_choice, stop: body.stop };
    case "openai-responses":
      return { toolChoice: body.tool_choice, stop: body.stop };
    case "google-generative-ai":
      return { toolChoice: body.toolConfig, stop: body.generationConfig?.stopSequences };
  }
}

const NAMED: Record<UpstreamCase["api"], unknown> = {
  "anthropic-messages": { type: "tool", name: "read_file" },
  "openai-completions": { type: "function", function: { name: "read_file" } },
  "openai-responses": { type: "function", name: "read_file" },
  "google-generative-ai": { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["read_file"] } },
};
const REQUIRED: Record<UpstreamCase["api"], unknown> = {
  "anthropic-messages": { type: "any" },
  "openai-completions": "required",
  "openai-responses": "required",
  "google-generative-ai": { functionCallingConfig: { mode: "ANY" } },
};
const NONE: Record<UpstreamCase["api"], unknown> = {
  "anthropic-messages": { type: "none" },
  "openai-completions": "none",
  "openai-responses": "none",
  "google-generative-ai": { functionCallingConfig: { mode: "NONE" } },
};
const takesStop = (upstream: UpstreamCase) => upstream.api !== "openai-responses";

describe.each(UPSTREAMS.map((u) => [u.api, u] as const))("over %s", (_api, upstream) => {
  test("Anthropic client: a named tool_choice and stop_sequences are forwarded; the stop comes back as stop_sequence where the upstream names it", async () => {
    const ask = () =>
      setup.anthropic.messages
        .stream({
          model: upstream.model,
          max_tokens: 200,
          tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters as Anthropic.Tool.InputSchema }],
          tool_choice: { type: "tool", name: "read_file" },
          stop_sequences: ["END"],
          messages: [{ role: "user", content: "Say something." }],
        })
        .finalMessage();
    if (!takesStop(upstream)) {
      const { result: error, request } = await upstreamOf(() => caught(ask()));
      expect(request).toBeUndefined();
      expect(error.status).toBe(400);
      expect(error.error?.type).toBe("error");
      expect(error.error?.error?.type).toBe("invalid_request_error");
      expect(error.error?.error?.message).toContain("stop_sequences cannot be honoured by up-responses/resp-up");
      return;
    }
    const { result: message, request } = await upstreamOf(ask);
    expect(forwarded(upstream, request!.body)).toEqual({ toolChoice: NAMED[upstream.api], stop: ["END"] });
    expect(message.content.map((b) => (b.type === "text" ? b.text : b.type))).toEqual(["alpha beta "]);
    if (upstream.api === "anthropic-messages") expect({ reason: message.stop_reason, sequence: message.stop_sequence }).toEqual({ reason: "stop_sequence", sequence: "END" });
    else expect({ reason: message.stop_reason, sequence: message.stop_sequence }).toEqual({ reason: "end_turn", sequence: null });
  });

  test("Anthropic client, not streaming: tool_choice any and the stop sequence in the JSON reply", async () => {
    if (!takesStop(upstream)) return;
    const { result: message, request } = await upstreamOf(() =>
      setup.anthropic.messages.create({
        model: upstream.model,
        max_tokens: 200,
        tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters as Anthropic.Tool.InputSchema }],
        tool_choice: { type: "any" },
        stop_sequences: ["beta", "END"],
        messages: [{ role: "user", content: "Say something." }],
      }),
    );
    expect(forwarded(upstream, request!.body)).toEqual({ toolChoice: REQUIRED[upstream.api], stop: ["beta", "END"] });
    expect(message.content.map((b) => (b.type === "text" ? b.text : b.type))).toEqual(["alpha "]);
    expect(message.stop_reason).toBe(upstream.api === "anthropic-messages" ? "stop_sequence" : "end_turn");
    expect(message.stop_sequence).toBe(upstream.api === "anthropic-messages" ? "beta" : null);
  });

  test("Chat client: tool_choice required and a single stop string are forwarded; finish_reason is stop", async () => {
    const ask = () =>
      setup.openai.chat.completions
        .stream({
          model: upstream.model,
          tools: [{ type: "function", function: TOOL }],
          tool_choice: "required",
          stop: "END",
          messages: [{ role: "user", content: "Say something." }],
        })
        .finalChatCompletion();
    if (!takesStop(upstream)) {
      const { result: error, request } = await upstreamOf(() => caught(ask()));
      expect(request).toBeUndefined();
      expect(error.status).toBe(400);
      expect(error.error?.type ?? error.type).toBe("invalid_request_error");
      expect(error.message).toContain("stop cannot be honoured by up-responses/resp-up");
      return;
    }
    const { result: completion, request } = await upstreamOf(ask);
    expect(forwarded(upstream, request!.body)).toEqual({ toolChoice: REQUIRED[upstream.api], stop: ["END"] });
    expect(completion.choices[0]!.message.content).toBe("alpha beta ");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
  });

  test("Chat client: a named function choice; Responses client: tool_choice none and a named function", async () => {
    const chat = await upstreamOf(() =>
      setup.openai.chat.completions.create({
        model: upstream.model,
        tools: [{ type: "function", function: TOOL }],
        tool_choice: { type: "function", function: { name: "read_file" } },
        messages: [{ role: "user", content: "Say something." }],
      }),
    );
    expect(forwarded(upstream, chat.request!.body)).toEqual({ toolChoice: NAMED[upstream.api], stop: undefined });
    expect(chat.result.choices[0]!.message.content).toBe(TEXT);

    for (const [choice, expected] of [
      ["none", NONE[upstream.api]],
      [{ type: "function", name: "read_file" }, NAMED[upstream.api]],
    ] as const) {
      const { result: response, request } = await upstreamOf(() =>
        setup.openai.responses
          .stream({
            model: upstream.model,
            store: false,
            tools: [{ type: "function", name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters, strict: false }],
            tool_choice: choice as OpenAI.Responses.ResponseCreateParams["tool_choice"],
            input: "Say something.",
          })
          .finalResponse(),
      );
      expect(forwarded(upstream, request!.body).toolChoice).toEqual(expected);
      expect(response.output_text).toBe(TEXT);
    }
  });

  test("response_format (Chat), text.format (Responses) and output_config.format (Anthropic) reach the upstream in its own form; bare JSON mode is a 400 over Anthropic", async () => {
    const chatAsk = () =>
      setup.openai.chat.completions.create({
        model: upstream.model,
        response_format: { type: "json_schema", json_schema: { name: "reply", schema: SCHEMA, strict: true } },
        messages: [{ role: "user", content: "Answer in JSON." }],
      });
    const responsesAsk = () =>
      setup.openai.responses.create({
        model: upstream.model,
        store: false,
        text: { format: { type: "json_object" } },
        input: "Answer in JSON.",
      });
    const anthropicAsk = () =>
      setup.anthropic.messages
        .stream({
          model: upstream.model,
          max_tokens: 200,
          output_config: { format: { type: "json_schema", schema: SCHEMA } },
          messages: [{ role: "user", content: "Answer in JSON." }],
        })
        .finalMessage();
    const chat = await upstreamOf(chatAsk);
    const anthropic = await upstreamOf(anthropicAsk);
    expect(chat.result.choices[0]!.message.content).toBe(TEXT);
    expect(anthropic.result.content.map((b) => (b.type === "text" ? b.text : b.type))).toEqual([TEXT]);
    if (upstream.api === "anthropic-messages") {
      expect([chat.request!.body.output_config, anthropic.request!.body.output_config]).toEqual([
        { format: { type: "json_schema", schema: SCHEMA } },
        { format: { type: "json_schema", schema: SCHEMA } },
      ]);
      const { result: error, request } = await upstreamOf(() => caught(responsesAsk()));
      expect(request).toBeUndefined();
      expect(error.status).toBe(400);
      expect(error.message).toContain("text.format cannot be honoured by up-anthropic/claude-up");
      return;
    }
    const responses = await upstreamOf(responsesAsk);
    expect(responses.result.output_text).toBe(TEXT);
    const bodies = [chat.request!.body, responses.request!.body, anthropic.request!.body];
    if (upstream.api === "openai-completions") {
      expect(bodies.map((b) => b.response_format)).toEqual([
        { type: "json_schema", json_schema: { name: "reply", schema: SCHEMA, strict: true } },
        { type: "json_object" },
        { type: "json_schema", json_schema: { name: "response", schema: SCHEMA } },
      ]);
    } else if (upstream.api === "openai-responses") {
      expect(bodies.map((b) => b.text)).toEqual([
        { format: { type: "json_schema", name: "reply", schema: SCHEMA, strict: true } },
        { format: { type: "json_object" } },
        { format: { type: "json_schema", name: "response", schema: SCHEMA } },
      ]);
    } else {
      const gemini = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
      expect(bodies.map((b) => [b.generationConfig.responseMimeType, b.generationConfig.responseSchema])).toEqual([
        ["application/json", gemini],
        ["application/json", undefined],
        ["application/json", gemini],
      ]);
    }
  });
});

describe("requests the gateway cannot serve as asked", () => {
  test("n > 1 is a 400 naming n, before any upstream request; n = 1 is served", async () => {
    const { result: error, request } = await upstreamOf(() => caught(setup.openai.chat.completions.create({ model: "chat-up", n: 3, messages: [{ role: "user", content: "hi" }] })));
    expect(request).toBeUndefined();
    expect(error.status).toBe(400);
    expect(error.message).toContain("n: the gateway serves one choice per request, got n=3");
    const one = await upstreamOf(() => setup.openai.chat.completions.create({ model: "chat-up", n: 1, messages: [{ role: "user", content: "hi" }] }));
    expect(one.result.choices).toHaveLength(1);
  });

  test("a forced tool choice with thinking asked for reaches an Anthropic upstream without the thinking it refuses alongside", async () => {
    const forced = await upstreamOf(() =>
      setup.openai.chat.completions.create({
        model: "claude-up",
        reasoning_effort: "high",
        tools: [{ type: "function", function: TOOL }],
        tool_choice: "required",
        messages: [{ role: "user", content: "Read notes.txt." }],
      }),
    );
    expect(forced.request!.body.tool_choice).toEqual({ type: "any" });
    expect(forced.request!.body).not.toHaveProperty("thinking");
    expect(forced.result.choices[0]!.message.content).toBe(TEXT);
    // An unforced choice keeps the thinking.
    const auto = await upstreamOf(() =>
      setup.anthropic.messages.create({
        model: "claude-up",
        max_tokens: 4000,
        thinking: { type: "enabled", budget_tokens: 2000 },
        tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters as Anthropic.Tool.InputSchema }],
        tool_choice: { type: "auto" },
        messages: [{ role: "user", content: "Read notes.txt." }],
      }),
    );
    expect({ choice: auto.request!.body.tool_choice, thinking: auto.request!.body.thinking?.type }).toEqual({ choice: { type: "auto" }, thinking: "enabled" });
  });

  test("a tool choice for a hosted tool is a 400 in the client's envelope", async () => {
    const error = await caught(
      setup.openai.responses.create({ model: "resp-up", store: false, tool_choice: { type: "web_search_preview" }, tools: [{ type: "web_search_preview" }], input: "hi" }),
    );
    expect(error.status).toBe(400);
    expect(error.message).toContain("tool_choice: a web_search_preview tool choice cannot be served");
  });

  test("an unknown Anthropic tool_choice type is a 400 with Anthropic's error shape", async () => {
    const error = await caught(
      setup.anthropic.messages.create({ model: "claude-up", max_tokens: 10, tool_choice: { type: "sometimes" } as any, messages: [{ role: "user", content: "hi" }] }),
    );
    expect(error.status).toBe(400);
    expect(error.error?.error?.type).toBe("invalid_request_error");
    expect(error.error?.error?.message).toContain('tool_choice.type: "sometimes" is not one of auto, any, none, tool');
  });

  test("a client that asks for none of them sends none upstream", async () => {
    const { request } = await upstreamOf(() => setup.openai.chat.completions.create({ model: "chat-up", tools: [{ type: "function", function: TOOL }], messages: [{ role: "user", content: "hi" }] }));
    expect(Object.keys(request!.body).filter((k) => ["tool_choice", "stop", "response_format"].includes(k))).toEqual([]);
  });
});
