import { servesAllControls, type WireApi } from "../wire-api.ts";
import { listOpenAIModels } from "./models.ts";
import { streamOpenAICompletions } from "./stream.ts";

/** OpenAI Chat Completions and every service that copies it (compat.ts holds their quirks). */
export const openaiCompletions: WireApi = {
  stream: streamOpenAICompletions,
  listModels: listOpenAIModels,
  unservedControls: servesAllControls,
  // OpenRouter routes Claude's signed thinking through reasoning_details: Anthropic's rule holds.
  prefixBoundThinking: true,
  countsTokens: false,
};
