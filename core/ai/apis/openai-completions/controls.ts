import { type RequestControls, schemaFields } from "../../request-controls.ts";

type Json = Record<string, unknown>;

export function applyCompletionsControls(body: Json, controls: RequestControls): void {
  const choice = controls.toolChoice;
  if (choice) body.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
  if (controls.stop) body.stop = controls.stop;
  const format = controls.responseFormat;
  if (format?.type === "json_object") body.response_format = { type: "json_object" };
  else if (format) body.response_format = { type: "json_schema", json_schema: schemaFields(format) };
}
