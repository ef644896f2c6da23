import type { Model } from "../ai/model.ts";
import { chatCodec } from "./chat.ts";
import { RequestError } from "./codec.ts";
import { failure } from "./errors.ts";
import { errorResponse, readJson } from "./handler.ts";
import type { Upstream } from "./upstream.ts";

const OPENAI_APIS = new Set(["openai-completions", "openai-responses"]);
/** Inputs and vectors are large, but not unbounded: past these the request or answer is refused. */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const EMBED_TIMEOUT_MS = 120_000;

interface Target {
  provider: string;
  /** The model id as the upstream knows it. */
  id: string;
  baseUrl: string;
  headers?: Record<string, string>;
}

/**
 * `POST /v1/embeddings`, OpenAI's format, forwarded to an OpenAI-compatible upstream: the one the
 * client names (`provider/model`), else the provider that lists the model, else `openai`. A model
 * no such upstream can embed with is a 404 that says how to name one; nothing is guessed.
 */
export async function serveEmbeddings(req: Request, upstream: Upstream, requestId: string): Promise<Response> {
  const refuse = (kind: Parameters<typeof failure>[0], message: string) => errorResponse(chatCodec, failure(kind, message), requestId);
  const length = Number(req.headers.get("content-length") ?? 0);
  if (length > MAX_REQUEST_BYTES) return refuse("too_large", `the request is ${length} bytes; the gateway takes up to ${MAX_REQUEST_BYTES} for embeddings`);
  let body: unknown;
  try {
    body = await readJson(req, MAX_REQUEST_BYTES);
  } catch (error) {
    if (error instanceof RequestError) return errorResponse(chatCodec, error.failure, requestId);
    throw error;
  }
  const request = body as { model?: unknown; input?: unknown } | null;
  if (!request || typeof request !== "object" || typeof request.model !== "string" || request.model === "") return refuse("invalid_request", "`model` is required: the embedding model, as provider/model or a bare id");
  if (request.input === undefined) return refuse("invalid_request", "`input` is required: a string or a list of strings or token arrays");
  const target = await targetFor(request.model, upstream);
  if ("problem" in target) return refuse("not_found", target.problem);
  const found = await upstream.credentials(target.provider);
  if (!found.ok) return refuse("authentication", `no credential for ${target.provider}: ${found.error}`);
  const headers: Record<string, string> = { "content-type": "application/json", ...target.headers };
  const key = found.credentials[0]!.key;
  if (key) headers.authorization = `Bearer ${key}`;
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}/embeddings`, { method: "POST", headers, body: JSON.stringify({ ...request, model: target.id }), signal: AbortSignal.timeout(EMBED_TIMEOUT_MS) });
  } catch (error) {
    return refuse("api_error", `${target.provider} could not be reached for embeddings: ${(error as Error).message}`);
  }
  const size = Number(response.headers.get("content-length") ?? 0);
  if (size > MAX_RESPONSE_BYTES) return refuse("too_large", `${target.provider} answered with ${size} bytes of embeddings, more than the gateway relays (${MAX_RESPONSE_BYTES})`);
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES) return refuse("too_large", `${target.provider} answered with more than ${MAX_RESPONSE_BYTES} bytes of embeddings`);
  try {
    // The upstream speaks OpenAI's format: its answer and its errors go back as they are.
    return Response.json(JSON.parse(text), { status: response.status });
  } catch {
    return refuse(response.ok ? "api_error" : "not_found", `${target.provider} (${target.baseUrl}) answered ${response.status} with no JSON: it may not have an embeddings endpoint`);
  }
}

async function targetFor(name: string, upstream: Upstream): Promise<Target | { problem: string }> {
  const models = await upstream.allModels();
  const providers = new Map<string, Model>();
  for (const model of models) if (OPENAI_APIS.has(model.api) && !providers.has(model.provider)) providers.set(model.provider, model);
  const of = (provider: string, id: string): Target | undefined => {
    const model = providers.get(provider);
    return model && upstream.hasCredential(provider) ? { provider, id, baseUrl: model.baseUrl, ...(model.headers ? { headers: model.headers } : {}) } : undefined;
  };
  const slash = name.indexOf("/");
  if (slash > 0) {
    const named = of(name.slice(0, slash), name.slice(slash + 1));
    if (named) return named;
  }
  const listed = models.find((model) => model.id === name && OPENAI_APIS.has(model.api) && upstream.hasCredential(model.provider));
  const target = (listed && of(listed.provider, name)) ?? of("openai", name);
  if (target) return target;
  const usable = [...providers.keys()].filter((provider) => upstream.hasCredential(provider));
  return {
    problem: `no OpenAI-compatible upstream with a credential serves embeddings for ${JSON.stringify(name)}; name one as provider/model${usable.length > 0 ? ` (${usable.join(", ")})` : " after adding a key for an OpenAI-compatible provider"}`,
  };
}
