import type { Api } from "./ids.ts";
import { anthropicMessages } from "./anthropic-messages/index.ts";
import { bedrockConverse } from "./bedrock-converse/index.ts";
import { googleGeminiCli } from "./google-gemini-cli/index.ts";
import { googleGenerativeAi } from "./google-generative-ai/index.ts";
import { openaiCodexResponses } from "./openai-codex-responses/index.ts";
import { openaiCompletions } from "./openai-completions/index.ts";
import { openaiResponses } from "./openai-responses/index.ts";
import type { WireApi } from "./wire-api.ts";

/** Every wire API omp speaks, each from its own folder; a new id in ids.ts is a compile error until it has its entry here. */
export const WIRE_APIS: { readonly [K in Api]: WireApi } = {
  "anthropic-messages": anthropicMessages,
  "openai-completions": openaiCompletions,
  "openai-responses": openaiResponses,
  "google-generative-ai": googleGenerativeAi,
  "openai-codex-responses": openaiCodexResponses,
  "google-gemini-cli": googleGeminiCli,
  "bedrock-converse": bedrockConverse,
};

/** Whether `model`'s wire API is the client format itself, so its signatures and ids pass through unchanged. */
export function sameAsClient(model: { api: Api }, client: NonNullable<WireApi["sameAsClient"]>): boolean {
  return WIRE_APIS[model.api].sameAsClient === client;
}

/** The wire API a stored message or a models.yml entry names; undefined for one this omp does not know. */
export function wireApi(id: string): WireApi | undefined {
  return Object.hasOwn(WIRE_APIS, id) ? WIRE_APIS[id as Api] : undefined;
}
