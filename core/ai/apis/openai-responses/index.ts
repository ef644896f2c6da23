import { listOpenAIModels } from "../openai-completions/models.ts";
import type { WireApi } from "../wire-api.ts";
import { responsesUnserved } from "./controls.ts";
import { streamOpenAIResponses } from "./stream.ts";

/** OpenAI Responses (and Azure OpenAI's, through its transport). */
export const openaiResponses: WireApi = {
  stream: streamOpenAIResponses,
  listModels: listOpenAIModels,
  unservedControls: responsesUnserved,
  prefixBoundThinking: false,
  sameAsClient: "openai-responses",
  countsTokens: false,
};
