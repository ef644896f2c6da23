import type { RequestControls } from "../../request-controls.ts";
import { toGeminiSchema } from "./schema.ts";

type Json = Record<string, unknown>;

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
