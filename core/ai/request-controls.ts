import type { z } from "zod";
import type * as schema from "./request-controls-schema.ts";
import { toGeminiSchema } from "./providers/google-schema.ts";

/**
 * Request controls a gateway client may ask for and the agent never sets: which tool the model
 * must (or must not) call, where its text stops, and the shape its answer must take. Each wire
 * API spells them its own way; the mappings live here so every provider and the gateway agree on
 * what an API can take. Zod-free (schemas in request-controls-schema.ts): providers load at start-up.
 */

export type ToolChoice = z.output<typeof schema.ToolChoice>;
export type StopSequences = z.output<typeof schema.StopSequences>;
export type ResponseFormat = z.output<typeof schema.ResponseFormat>;

export interface RequestControls {
  toolChoice?: ToolChoice;
  stop?: StopSequences;
  responseFormat?: ResponseFormat;
}

type Json = Record<string, unknown>;

/** The controls an API has no field for, by the name the caller used for them; empty when all are served. */
export function unservedControls(api: string, controls: RequestControls): ("stop" | "responseFormat")[] {
  const out: ("stop" | "responseFormat")[] = [];
  // The Responses API dropped stop sequences; Anthropic constrains output to a schema but has no bare JSON mode.
  if (controls.stop && (api === "openai-responses" || api === "openai-codex-responses")) out.push("stop");
  if (controls.responseFormat?.type === "json_object" && api === "anthropic-messages") out.push("responseFormat");
  // Converse has no response-format field of its own.
  if (controls.responseFormat && api === "bedrock-converse") out.push("responseFormat");
  return out;
}

export function applyAnthropicControls(body: Json, controls: RequestControls): void {
  const choice = controls.toolChoice;
  if (choice) body.tool_choice = typeof choice === "string" ? { type: choice === "required" ? "any" : choice } : { type: "tool", name: choice.name };
  // Anthropic refuses thinking with a forced tool call; the call is what the client asked for, the thinking only a level.
  const thinking = (body.thinking as { type?: string } | undefined)?.type;
  if (choice !== undefined && choice !== "auto" && choice !== "none" && thinking !== undefined && thinking !== "disabled") delete body.thinking;
  if (controls.stop) body.stop_sequences = controls.stop;
  // Beside the thinking effort, which shares output_config.
  if (controls.responseFormat?.type === "json_schema") body.output_config = { ...(body.output_config as Json | undefined), format: { type: "json_schema", schema: controls.responseFormat.schema } };
}

export function applyCompletionsControls(body: Json, controls: RequestControls): void {
  const choice = controls.toolChoice;
  if (choice) body.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
  if (controls.stop) body.stop = controls.stop;
  const format = controls.responseFormat;
  if (format?.type === "json_object") body.response_format = { type: "json_object" };
  else if (format) body.response_format = { type: "json_schema", json_schema: schemaFields(format) };
}

export function applyResponsesControls(body: Json, controls: RequestControls): void {
  const choice = controls.toolChoice;
  if (choice) body.tool_choice = typeof choice === "string" ? choice : { type: "function", name: choice.name };
  const format = controls.responseFormat;
  if (format?.type === "json_object") body.text = { format: { type: "json_object" } };
  else if (format) body.text = { format: { type: "json_schema", ...schemaFields(format) } };
}

const GEMINI_MODES = { auto: "AUTO", none: "NONE", required: "ANY" } as const;

export function applyGoogleControls(body: Json, config: Json, controls: RequestControls): void {
  const choice = controls.toolChoice;
  if (choice) {
    body.toolConfig = {
      functionCallingConfig: typeof choice === "string" ? { mode: GEMINI_MODES[choice] } : { mode: "ANY", allowedFunctionNames: [choice.name] },
    };
  }
  if (controls.stop) config.stopSequences = controls.stop;
  const format = controls.responseFormat;
  if (format) {
    config.responseMimeType = "application/json";
    if (format.type === "json_schema") config.responseSchema = toGeminiSchema(format.schema);
  }
}

function schemaFields(format: Extract<ResponseFormat, { type: "json_schema" }>): Json {
  const fields: Json = { name: format.name, schema: format.schema };
  if (format.description !== undefined) fields.description = format.description;
  if (format.strict !== undefined) fields.strict = format.strict;
  return fields;
}
