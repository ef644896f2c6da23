// What the subscription backends refuse, as they refuse it, so that a test of a request omp
// shapes wrongly fails: ChatGPT's Codex backend, Google's Code Assist (with its onboarding), the
// GitHub Copilot API and Anthropic's rules for Claude Pro/Max OAuth tokens.
import type { RecordedRequest } from "./core.ts";
import type { RenderContext, WireFormat } from "./format.ts";
import { googleFormat } from "./google.ts";

export interface Refusal {
  status: number;
  body: unknown;
}

const header = (request: RecordedRequest, name: string) => request.headers[name.toLowerCase()];

function jwtClaims(token: string): Record<string, any> {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
  } catch {
    return {};
  }
}

/** The ChatGPT backend answers its 4xx with FastAPI's `{detail}`. */
const detail = (status: number, text: string): Refusal => ({ status, body: { detail: text } });

const CODEX_UNSUPPORTED = ["max_output_tokens", "max_completion_tokens", "temperature", "top_p", "previous_response_id"];

/** Every chatgpt.com/backend-api/codex call: a ChatGPT token and the account it names. */
function codexAuthRefusal(request: RecordedRequest): Refusal | undefined {
  const token = header(request, "authorization")?.replace(/^Bearer /, "") ?? "";
  const account = jwtClaims(token)["https://api.openai.com/auth"]?.chatgpt_account_id;
  if (!account) return detail(401, "Unauthorized");
  if (header(request, "chatgpt-account-id") !== account) return detail(403, "chatgpt-account-id does not match the token");
  if (!header(request, "originator")) return detail(400, "originator header is required");
  return undefined;
}

/** GET chatgpt.com/backend-api/codex/models?client_version= */
export function codexListingRefusal(request: RecordedRequest): Refusal | undefined {
  if (!request.query.client_version) return detail(400, "client_version is required");
  return codexAuthRefusal(request);
}

/** The Codex backend's model list: slugs, with the models it hides from pickers marked. */
export function codexListing(models: { id: string; contextWindow?: number }[]): unknown {
  return {
    models: [
      ...models.map((m, priority) => ({ slug: m.id, display_name: m.id.toUpperCase(), context_window: m.contextWindow ?? 272_000, visibility: "list", supported_in_api: true, priority })),
      { slug: "codex-auto-review", display_name: "Auto review", context_window: 272_000, visibility: "hide", supported_in_api: true, priority: 99 },
    ],
  };
}

/** chatgpt.com/backend-api/codex/responses */
export function codexRefusal(request: RecordedRequest): Refusal | undefined {
  const auth = codexAuthRefusal(request);
  if (auth) return auth;
  if (header(request, "openai-beta") !== "responses=experimental") return detail(400, "OpenAI-Beta: responses=experimental is required");
  const body = request.body ?? {};
  if (typeof body.instructions !== "string") return detail(400, "Instructions are required");
  if (body.store !== false) return detail(400, "Store must be set to false");
  if (body.stream !== true) return detail(400, "Stream must be set to true");
  for (const name of CODEX_UNSUPPORTED) if (name in body) return detail(400, `Unsupported parameter: ${name}`);
  if (!Array.isArray(body.include) || !body.include.includes("reasoning.encrypted_content")) return detail(400, "include must ask for reasoning.encrypted_content");
  for (const item of body.input ?? []) {
    if (typeof item.id === "string") return detail(404, `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`);
    if (item.type === "reasoning" && typeof item.encrypted_content !== "string") return detail(400, "a reasoning item needs its encrypted_content when store is false");
  }
  return undefined;
}

/** api.githubcopilot.com/chat/completions: a Copilot token from the exchange, and the editor named. */
export function copilotRefusal(request: RecordedRequest): Refusal | undefined {
  const token = header(request, "authorization")?.replace(/^Bearer /, "") ?? "";
  if (!token.startsWith("tid=")) return { status: 401, body: { error: { message: "unauthorized: token is not a Copilot token", code: "unauthorized" } } };
  if (!header(request, "editor-version")) return { status: 400, body: { error: { message: "bad request: missing Editor-Version header for IDE auth", code: "bad_request" } } };
  if (!header(request, "copilot-integration-id")) return { status: 400, body: { error: { message: "bad request: missing Copilot-Integration-Id", code: "bad_request" } } };
  return undefined;
}

/** api.githubcopilot.com/models: the plan's models, with their limits under capabilities. */
export function copilotListing(models: { id: string; contextWindow?: number }[]): unknown {
  return {
    object: "list",
    data: models.map((m) => ({
      id: m.id,
      name: m.id.toUpperCase(),
      object: "model",
      vendor: "standin",
      model_picker_enabled: true,
      capabilities: { family: m.id, type: "chat", limits: { max_context_window_tokens: m.contextWindow ?? 128_000, max_output_tokens: 16_384 }, supports: { streaming: true, tool_calls: true } },
    })),
  };
}

const CLAUDE_CODE = "You are Claude Code, Anthropic's official CLI for Claude.";
const anthropicError = (status: number, type: string, message: string): Refusal => ({ status, body: { type: "error", error: { type, message } } });

/** api.anthropic.com/v1/messages with a Claude Pro/Max OAuth token. */
export function anthropicOAuthRefusal(request: RecordedRequest): Refusal | undefined {
  const bearer = header(request, "authorization")?.replace(/^Bearer /, "");
  const apiKey = header(request, "x-api-key");
  if (apiKey?.startsWith("sk-ant-oat")) return anthropicError(401, "authentication_error", "invalid x-api-key");
  if (!bearer?.startsWith("sk-ant-oat")) return undefined;
  if (!(header(request, "anthropic-beta") ?? "").split(",").includes("oauth-2025-04-20")) return anthropicError(401, "authentication_error", "OAuth authentication is currently not supported.");
  if (request.body?.system?.[0]?.text !== CLAUDE_CODE) {
    return anthropicError(400, "invalid_request_error", "This credential is only authorized for use with Claude Code and cannot be used for other API requests.");
  }
  return undefined;
}

const googleError = (status: number, message: string, kind: string): Refusal => ({ status, body: googleFormat.error(status, message, kind) });

/**
 * Code Assist's account state: a new user has no project until onboardUser (a long-running
 * operation) provisions the free tier's managed one; loadCodeAssist then names it.
 */
export class CodeAssist {
  project = "standin-managed-project";
  onboarded = false;
  loads = 0;
  onboards: any[] = [];
  polls = 0;

  /** The non-streaming v1internal calls; undefined for any other path. */
  answer(request: RecordedRequest): Response | undefined {
    const path = request.path;
    if (!path.startsWith("/v1internal")) return undefined;
    if (!header(request, "authorization")?.startsWith("Bearer ya29.")) return Response.json(googleFormat.error(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED"), { status: 401 });
    if (request.method === "POST" && path === "/v1internal:loadCodeAssist") {
      this.loads++;
      if (request.body?.metadata?.pluginType !== "GEMINI") return Response.json(googleFormat.error(400, "metadata.pluginType is required", "INVALID_ARGUMENT"), { status: 400 });
      if (this.onboarded) return Response.json({ currentTier: { id: "free-tier", name: "Gemini Code Assist for individuals" }, allowedTiers: [{ id: "free-tier", isDefault: true }], cloudaicompanionProject: this.project });
      return Response.json({ allowedTiers: [{ id: "free-tier", isDefault: true }, { id: "standard-tier", userDefinedCloudaicompanionProject: true }] });
    }
    if (request.method === "POST" && path === "/v1internal:onboardUser") {
      this.onboards.push(request.body);
      if (request.body?.tierId !== "free-tier") return Response.json(googleFormat.error(400, "a tier needs a project", "INVALID_ARGUMENT"), { status: 400 });
      if (request.body?.cloudaicompanionProject !== undefined) return Response.json(googleFormat.error(400, "the free tier takes no project", "INVALID_ARGUMENT"), { status: 400 });
      return Response.json({ name: "operations/onboard-standin", done: false });
    }
    if (request.method === "GET" && path === "/v1internal/operations/onboard-standin") {
      this.polls++;
      this.onboarded = true;
      return Response.json({ name: "operations/onboard-standin", done: true, response: { "@type": "type.googleapis.com/google.internal.cloud.code.v1internal.OnboardUserResponse", cloudaicompanionProject: { id: this.project, name: "Managed project" } } });
    }
    return undefined;
  }

  /** cloudcode-pa.googleapis.com/v1internal:streamGenerateContent?alt=sse */
  refusal(request: RecordedRequest): Refusal | undefined {
    if (!header(request, "authorization")?.startsWith("Bearer ya29.")) return googleError(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED");
    if (request.query.alt !== "sse") return googleError(400, "streaming needs alt=sse", "INVALID_ARGUMENT");
    const body = request.body ?? {};
    for (const name of ["contents", "systemInstruction", "tools", "generationConfig"]) {
      if (name in body) return googleError(400, `Invalid JSON payload received. Unknown name "${name}": Cannot find field.`, "INVALID_ARGUMENT");
    }
    if (typeof body.model !== "string" || !Array.isArray(body.request?.contents)) return googleError(400, "model and request.contents are required", "INVALID_ARGUMENT");
    if (!this.onboarded || body.project !== this.project) return googleError(403, `Permission denied on resource project ${body.project}.`, "PERMISSION_DENIED");
    return undefined;
  }
}

/** Code Assist streams Gemini API chunks, each wrapped in `response`. */
export const codeAssistFormat: WireFormat = {
  ...googleFormat,
  events: (reply, context: RenderContext) =>
    googleFormat.events(reply, context).map((event) => {
      const chunk = JSON.parse(event.slice("data: ".length));
      return `data: ${JSON.stringify({ response: chunk, traceId: `trace-${context.serial}` })}\r\n\r\n`;
    }),
};
