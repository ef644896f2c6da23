import { type RequestControls, schemaFields } from "../../request-controls.ts";

type Json = Record<string, unknown>;

export function applyResponsesControls(body: Json, controls: RequestControls): void {
  const choice = controls.toolChoice;
  if (choice) body.tool_choice = typeof choice === "string" ? choice : { type: "function", name: choice.name };
  const format = controls.responseFormat;
  if (format?.type === "json_object") body.text = { format: { type: "json_object" } };
  else if (format) body.text = { format: { type: "json_schema", ...schemaFields(format) } };
}

/** The Responses API dropped stop sequences (and so did the Codex backend, which speaks it). */
export function responsesUnserved(controls: RequestControls): "stop"[] {
  return controls.stop ? ["stop"] : [];
}
