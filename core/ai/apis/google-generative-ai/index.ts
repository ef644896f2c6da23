import { servesAllControls, type WireApi } from "../wire-api.ts";
import { listGeminiModels } from "./models.ts";
import { streamGoogle } from "./stream.ts";

/** Google's Gemini API (and Gemini on Vertex AI, through its transport). */
export const googleGenerativeAi: WireApi = {
  stream: streamGoogle,
  listModels: listGeminiModels,
  unservedControls: servesAllControls,
  prefixBoundThinking: false,
  countsTokens: false,
};
