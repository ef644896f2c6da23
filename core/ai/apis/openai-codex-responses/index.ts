import { responsesUnserved } from "../openai-responses/controls.ts";
import type { WireApi } from "../wire-api.ts";
import { listCodexModels } from "./models.ts";
import { streamOpenAICodex } from "./stream.ts";

/** ChatGPT's Codex backend: the Responses API with a subscription's rules. */
export const openaiCodexResponses: WireApi = {
  stream: streamOpenAICodex,
  listModels: listCodexModels,
  unservedControls: responsesUnserved,
  prefixBoundThinking: false,
  countsTokens: false,
};
