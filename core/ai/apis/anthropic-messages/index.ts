import type { WireApi } from "../wire-api.ts";
import { anthropicUnserved } from "./controls.ts";
import { listAnthropicModels } from "./models.ts";
import { streamAnthropic } from "./stream.ts";

/** Anthropic Messages: api.anthropic.com, and Claude on Bedrock, Vertex and Foundry through their transports. */
export const anthropicMessages: WireApi = {
  stream: streamAnthropic,
  listModels: listAnthropicModels,
  unservedControls: anthropicUnserved,
  prefixBoundThinking: true,
  sameAsClient: "anthropic",
  countsTokens: true,
};
