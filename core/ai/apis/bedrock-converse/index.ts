import { noModelList, type WireApi } from "../wire-api.ts";
import { converseUnserved } from "./controls.ts";
import { streamBedrockConverse } from "./stream.ts";

/** Amazon Bedrock's Converse: every model Bedrock hosts besides Claude, through the Bedrock transport. */
export const bedrockConverse: WireApi = {
  stream: streamBedrockConverse,
  listModels: noModelList("Bedrock's models are listed by its transport (ListFoundationModels)"),
  unservedControls: converseUnserved,
  prefixBoundThinking: false,
  countsTokens: false,
};
