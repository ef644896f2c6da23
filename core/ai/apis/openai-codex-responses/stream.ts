import { jwtClaims } from "../../../http/jwt-claims.ts";
import { requestHeaders, runProviderStream } from "../../http/provider-stream.ts";
import type { Model } from "../../model.ts";
import type { Context, StreamFunction, StreamOptions } from "../../stream.ts";
import { ResponsesDecoder, responsesRequestBody } from "../openai-responses/stream.ts";

type Json = Record<string, unknown>;

/**
 * ChatGPT's Codex backend (`chatgpt.com/backend-api/codex`, what Codex CLI calls with a ChatGPT
 * login) is the Responses API with its own rules: `instructions` is required, `store` must be
 * false and `stream` true, it refuses `max_output_tokens` and sampling parameters, and since
 * nothing is stored an input item may not name an id of an earlier response: reasoning travels
 * back whole, as its encrypted_content.
 */
export function codexRequestBody(model: Model, context: Context, options: StreamOptions = {}): Json {
  const body = responsesRequestBody(model, context, options);
  delete body.max_output_tokens;
  delete body.temperature;
  body.instructions = context.systemPrompt;
  body.store = false;
  body.stream = true;
  body.include = ["reasoning.encrypted_content"];
  body.input = (body.input as Json[]).map(({ id: _id, ...item }) => item);
  if (context.tools.length > 0) {
    body.tool_choice ??= "auto";
    body.parallel_tool_calls = true;
  }
  return body;
}

/** The ChatGPT workspace the access token was issued for; the backend wants it named beside the token. */
export function chatgptAccountId(accessToken: string | undefined): string | undefined {
  const auth = jwtClaims(accessToken)["https://api.openai.com/auth"] as { chatgpt_account_id?: unknown } | undefined;
  return typeof auth?.chatgpt_account_id === "string" ? auth.chatgpt_account_id : undefined;
}

/** What every Codex backend call carries: the token, the ChatGPT account it is for, and Codex CLI's identity. */
export function codexRequestHeaders(accessToken: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { "OpenAI-Beta": "responses=experimental", originator: "codex_cli_rs" };
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  const account = chatgptAccountId(accessToken);
  if (account) headers["chatgpt-account-id"] = account;
  return headers;
}

export const streamOpenAICodex: StreamFunction = (model, context, options = {}) => {
  const auth = codexRequestHeaders(options.apiKey);
  // Codex CLI names its conversation so the backend keeps the prompt cache warm across turns.
  if (options.sessionId) auth.session_id = options.sessionId;
  return runProviderStream(model, options, {
    request: { url: `${model.baseUrl}/responses`, headers: requestHeaders(auth, model, options), body: codexRequestBody(model, context, options) },
    decoder: (out) => new ResponsesDecoder(model.provider, out),
  });
};
