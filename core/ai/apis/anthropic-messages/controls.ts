import type { RequestControls } from "../../request-controls.ts";

type Json = Record<string, unknown>;

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

/** Anthropic constrains output to a schema but has no bare JSON mode. */
export function anthropicUnserved(controls: RequestControls): "responseFormat"[] {
  return controls.responseFormat?.type === "json_object" ? ["responseFormat"] : [];
}
