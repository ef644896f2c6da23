import type { z } from "zod";
import type { Model } from "../ai/model.ts";
import { WIRE_APIS } from "../ai/apis/index.ts";
import type { RequestControls } from "../ai/request-controls.ts";
import { ResponseFormat, StopSequences, ToolChoice } from "../ai/request-controls-schema.ts";
import { RequestError } from "./codec.ts";
import { failure } from "./errors.ts";
import { describeZodError } from "../errors/zod-issues.ts";

/**
 * A client's tool choice, stop sequences and output format, read from its own wire format into
 * core/ai's request controls. What the upstream cannot honour is refused with a 400 naming the
 * client's field: silently dropping it would hand back an answer the client did not ask for.
 */

type Json = Record<string, unknown>;

/** The client's field names for each control, for error messages. */
export interface ControlFields {
  toolChoice: string;
  stop: string;
  responseFormat: string;
}

function invalid(field: string, why: string): RequestError {
  return new RequestError(failure("invalid_request", `${field}: ${why}`));
}

function checked<S extends z.ZodType>(schema: S, value: unknown, field: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(field, describeZodError(result.error, ""));
  return result.data;
}

/** Anthropic's `tool_choice`: auto / any / none / {type: "tool", name}. */
export function anthropicToolChoice(choice: Json | null | undefined): RequestControls["toolChoice"] {
  if (!choice) return undefined;
  const type = choice.type;
  if (type === "auto" || type === "none") return type;
  if (type === "any") return "required";
  if (type === "tool") return checked(ToolChoice, { name: choice.name }, "tool_choice.name");
  throw invalid("tool_choice.type", `"${String(type)}" is not one of auto, any, none, tool`);
}

/** OpenAI's `tool_choice`: a mode string, or a named function (Chat nests the name under `function`). */
export function openaiToolChoice(choice: unknown): RequestControls["toolChoice"] {
  if (choice === null || choice === undefined) return undefined;
  if (typeof choice === "string") return checked(ToolChoice, choice, "tool_choice");
  const named = choice as Json;
  if (named.type === "function" || named.type === "custom") {
    const name = (named.function as Json | undefined)?.name ?? named.name ?? (named.custom as Json | undefined)?.name;
    return checked(ToolChoice, { name }, "tool_choice.name");
  }
  throw invalid("tool_choice", `a ${String(named.type)} tool choice cannot be served through the gateway; use auto, none, required or a function`);
}

/** `stop` as Chat sends it (a string or a list) or Anthropic's `stop_sequences`. */
export function stopSequences(stop: unknown, field: string): RequestControls["stop"] {
  if (stop === null || stop === undefined) return undefined;
  const list = typeof stop === "string" ? [stop] : stop;
  if (Array.isArray(list) && list.length === 0) return undefined;
  return checked(StopSequences, list, field);
}

/** Chat's `response_format` or Responses' `text.format` (which puts the schema's fields beside `type`); `text` means none. */
export function responseFormat(format: Json | null | undefined, field: string): RequestControls["responseFormat"] {
  if (!format || format.type === "text") return undefined;
  const fields = format.type === "json_schema" && typeof format.json_schema === "object" ? { type: "json_schema", ...(format.json_schema as Json) } : format;
  return checked(ResponseFormat, fields, field);
}

/** Anthropic's `output_config.format` names no schema; OpenAI requires a name, so it gets a fixed one. */
export function anthropicOutputFormat(format: Json | null | undefined): RequestControls["responseFormat"] {
  if (!format) return undefined;
  if (format.type !== "json_schema") throw invalid("output_config.format.type", `"${String(format.type)}" is not json_schema`);
  return checked(ResponseFormat, { type: "json_schema", name: "response", schema: format.schema }, "output_config.format.schema");
}

/** The request's controls, once the target model's API is known to take them all. */
export function servedControls(controls: RequestControls, target: Model, fields: ControlFields): RequestControls {
  const unserved = WIRE_APIS[target.api].unservedControls(controls);
  if (unserved.length > 0) {
    const names = unserved.map((name) => fields[name]).join(" and ");
    throw new RequestError(failure("invalid_request", `${names} cannot be honoured by ${target.provider}/${target.id}: its API (${target.api}) has no such option; leave it out or pick another model`));
  }
  const out: RequestControls = {};
  if (controls.toolChoice !== undefined) out.toolChoice = controls.toolChoice;
  if (controls.stop !== undefined) out.stop = controls.stop;
  if (controls.responseFormat !== undefined) out.responseFormat = controls.responseFormat;
  return out;
}
