import { noModelList, servesAllControls, type WireApi } from "../wire-api.ts";
import { streamGeminiCli } from "./stream.ts";

/** Google's Code Assist, as Gemini CLI calls it: the Gemini body in its `v1internal` envelope. */
export const googleGeminiCli: WireApi = {
  stream: streamGeminiCli,
  listModels: noModelList("Code Assist has no model list: Gemini CLI's models are the catalog's"),
  unservedControls: servesAllControls,
  prefixBoundThinking: false,
  countsTokens: false,
};
