// The subscription backends' request bodies carry a gateway client's controls as their public
// APIs do (the e2e gateway tests cover the four public APIs over the stand-in); the agent's
// own requests, which set none, keep their old shape.
import { describe, expect, test } from "bun:test";
import { builtinModels } from "../../../core/ai/index.ts";
import type { Message } from "../../../core/ai/messages.ts";
import { anthropicRequestBody } from "../../../core/ai/apis/anthropic-messages/stream.ts";
import { codeAssistRequestBody } from "../../../core/ai/apis/google-gemini-cli/stream.ts";
import { codexRequestBody } from "../../../core/ai/apis/openai-codex-responses/stream.ts";
import { WIRE_APIS } from "../../../core/ai/apis/index.ts";
import type { Api } from "../../../core/ai/model.ts";
import type { RequestControls } from "../../../core/ai/request-controls.ts";

const unservedControls = (api: Api, controls: RequestControls) => WIRE_APIS[api].unservedControls(controls);

const model = (provider: string, id: string) => builtinModels({}).find((m) => m.provider === provider && m.id === id)!;
const context = {
  systemPrompt: "sys",
  tools: [{ name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } }],
  messages: [{ role: "user", content: "hi", timestamp: 0 } satisfies Message],
};
const SCHEMA = { type: "object", properties: { answer: { type: "string" } }, additionalProperties: false };

describe("OpenAI Codex backend", () => {
  const codex = model("openai-codex", "gpt-5.3-codex");

  test("a named tool choice and a JSON schema format replace the default auto choice", () => {
    const body = codexRequestBody(codex, context, { toolChoice: { name: "read_file" }, responseFormat: { type: "json_schema", name: "reply", schema: SCHEMA, strict: true } });
    expect(body.tool_choice).toEqual({ type: "function", name: "read_file" });
    expect(body.text).toEqual({ format: { type: "json_schema", name: "reply", schema: SCHEMA, strict: true } });
  });

  test("without controls the agent's body is unchanged: auto, no text format", () => {
    const body = codexRequestBody(codex, context, {});
    expect(body.tool_choice).toBe("auto");
    expect(body).not.toHaveProperty("text");
  });

  test("stop sequences are named as unserved by both Responses backends; Anthropic takes a schema but not bare JSON mode", () => {
    expect(unservedControls("openai-codex-responses", { stop: ["END"] })).toEqual(["stop"]);
    expect(unservedControls("openai-responses", { stop: ["END"], toolChoice: "none" })).toEqual(["stop"]);
    expect(unservedControls("anthropic-messages", { responseFormat: { type: "json_object" }, stop: ["END"] })).toEqual(["responseFormat"]);
    expect(unservedControls("anthropic-messages", { responseFormat: { type: "json_schema", name: "r", schema: SCHEMA } })).toEqual([]);
    expect(unservedControls("google-gemini-cli", { responseFormat: { type: "json_object" }, stop: ["END"], toolChoice: "required" })).toEqual([]);
  });
});

describe("Gemini CLI (Code Assist)", () => {
  const gemini = model("google-gemini-cli", "gemini-2.5-flash");

  test("the wrapped request carries toolConfig, stopSequences and the JSON response settings", () => {
    const { request } = codeAssistRequestBody(gemini, context, "proj", { toolChoice: "none", stop: ["END", "STOP"], responseFormat: { type: "json_schema", name: "reply", schema: SCHEMA } }) as { request: any };
    expect(request.toolConfig).toEqual({ functionCallingConfig: { mode: "NONE" } });
    expect(request.generationConfig).toMatchObject({ stopSequences: ["END", "STOP"], responseMimeType: "application/json", responseSchema: { type: "object", properties: { answer: { type: "string" } } } });
    // Gemini's Schema has no additionalProperties and fails the request on it.
    expect(request.generationConfig.responseSchema).not.toHaveProperty("additionalProperties");
  });

  test("without controls none of them is sent", () => {
    const { request } = codeAssistRequestBody(gemini, context, "proj", {}) as { request: any };
    expect(request).not.toHaveProperty("toolConfig");
    expect(Object.keys(request.generationConfig).filter((k) => ["stopSequences", "responseMimeType", "responseSchema"].includes(k))).toEqual([]);
  });
});

describe("Anthropic", () => {
  test("a JSON schema goes to output_config.format beside the adaptive thinking effort", () => {
    const body = anthropicRequestBody(model("anthropic", "claude-sonnet-5-5"), context, { thinking: "high", responseFormat: { type: "json_schema", name: "r", schema: SCHEMA } });
    expect(body.output_config).toEqual({ effort: expect.any(String), format: { type: "json_schema", schema: SCHEMA } });
  });
});
