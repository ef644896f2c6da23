import type { RequestControls } from "../../request-controls.ts";

type Json = Record<string, unknown>;

/** A tool choice in Converse's words; "none" has none, so the tools stay out of the request instead. */
export function applyConverseToolChoice(toolConfig: Json, body: Json, controls: RequestControls): void {
  const choice = controls.toolChoice;
  if (choice === "required") toolConfig.toolChoice = { any: {} };
  else if (choice === "auto") toolConfig.toolChoice = { auto: {} };
  else if (choice && typeof choice === "object") toolConfig.toolChoice = { tool: { name: choice.name } };
  if (choice !== "none") body.toolConfig = toolConfig;
}

/** Converse has no response-format field of its own. */
export function converseUnserved(controls: RequestControls): "responseFormat"[] {
  return controls.responseFormat ? ["responseFormat"] : [];
}
