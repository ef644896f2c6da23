import type { Api, Model } from "./model.ts";
import { codexRequestHeaders } from "./providers/openai-codex.ts";

/** One model as a provider's model-list endpoint names it. */
export interface ListedModel {
  id: string;
  /** A provider that serves models on more than one wire API (Bedrock) says which this one takes. */
  api?: Api;
  name?: string;
  contextWindow?: number;
  maxTokens?: number;
}

export interface ProviderList {
  provider: string;
  /** Epoch ms of the fetch. */
  fetchedAt: number;
  models: ListedModel[];
}

type Json = Record<string, unknown>;

const num = (value: unknown) => (typeof value === "number" && value > 0 ? value : undefined);
const str = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** How long one provider's model list (all its pages) may take. */
const MODEL_LIST_TIMEOUT_MS = 20_000;

/** The Codex CLI version the Codex backend is told: it lists the models that version can use. */
const CODEX_CLIENT_VERSION = "0.99.0";

/**
 * Asks a provider which models it serves now, with the user's key: Anthropic's `GET /v1/models`,
 * Gemini's `GET /v1beta/models` (only models that generate content), the Codex backend's
 * `GET /models?client_version=` (the models the ChatGPT plan offers Codex CLI), and `GET /models`
 * of OpenAI and every OpenAI-compatible service. Pages are followed where the API pages.
 */
export async function fetchModelList(api: Api, baseUrl: string, apiKey: string | undefined, signal?: AbortSignal, identity: Record<string, string> = {}): Promise<ListedModel[]> {
  // A background fetch must end by itself: an endpoint that never finishes its body (a proxy or a
  // local server answering every path with a stream) would otherwise be read for the whole session.
  const limit = AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS);
  const get = async (url: string, auth: Record<string, string>): Promise<Json> => {
    const response = await fetch(url, { headers: { accept: "application/json", ...identity, ...auth }, signal: signal ? AbortSignal.any([signal, limit]) : limit });
    if (!response.ok) throw new Error(`GET ${new URL(url).pathname} answered ${response.status}`);
    const body: unknown = await response.json();
    if (body === null || typeof body !== "object") throw new Error(`GET ${new URL(url).pathname} answered something that is not a JSON object`);
    return body as Json;
  };
  const out: ListedModel[] = [];
  if (api === "anthropic-messages") {
    const headers: Record<string, string> = { "anthropic-version": "2023-06-01", ...(apiKey ? { "x-api-key": apiKey } : {}) };
    let after: string | undefined;
    for (let page = 0; page < 20; page++) {
      const body = await get(`${baseUrl}/v1/models?limit=1000${after ? `&after_id=${encodeURIComponent(after)}` : ""}`, headers);
      for (const m of (body.data as Json[] | undefined) ?? []) {
        const id = str(m.id);
        if (id) out.push({ id, name: str(m.display_name), contextWindow: num(m.max_input_tokens), maxTokens: num(m.max_tokens) });
      }
      after = body.has_more === true ? str(body.last_id) : undefined;
      if (!after) break;
    }
  } else if (api === "google-generative-ai") {
    const headers: Record<string, string> = apiKey ? { "x-goog-api-key": apiKey } : {};
    let token: string | undefined;
    for (let page = 0; page < 20; page++) {
      const body = await get(`${baseUrl}/v1beta/models?pageSize=1000${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`, headers);
      for (const m of (body.models as Json[] | undefined) ?? []) {
        const id = str(m.name)?.replace(/^models\//, "");
        const methods = Array.isArray(m.supportedGenerationMethods) ? m.supportedGenerationMethods : ["generateContent"];
        if (id && methods.includes("generateContent")) out.push({ id, name: str(m.displayName), contextWindow: num(m.inputTokenLimit), maxTokens: num(m.outputTokenLimit) });
      }
      token = str(body.nextPageToken);
      if (!token) break;
    }
  } else if (api === "openai-codex-responses") {
    const body = await get(`${baseUrl}/models?client_version=${CODEX_CLIENT_VERSION}`, codexRequestHeaders(apiKey));
    for (const m of (body.models as Json[] | undefined) ?? []) {
      const id = str(m.slug);
      if (id && m.visibility !== "hide") out.push({ id, name: str(m.display_name), contextWindow: num(m.context_window) });
    }
  } else {
    const body = await get(`${baseUrl}/models`, apiKey ? { authorization: `Bearer ${apiKey}` } : {});
    for (const m of (body.data as Json[] | undefined) ?? []) {
      const id = str(m.id);
      // Copilot says it under capabilities.limits.
      const limits = ((m.capabilities as Json | undefined)?.limits ?? {}) as Json;
      const contextWindow = num(m.context_length) ?? num(m.context_window) ?? num(m.max_model_len) ?? num(limits.max_context_window_tokens);
      if (id) out.push({ id, name: str(m.name), contextWindow });
    }
  }
  return out;
}

/** A listed model the catalog does not know, made usable with the facts of its nearest catalog relative. */
export function modelFromListing(listed: ListedModel, provider: { id: string; name: string; api: Api; baseUrl: string; headers?: Record<string, string> }, catalog: Model[]): Model {
  const relative = nearestRelative(listed.id, catalog.filter((m) => m.provider === provider.id));
  const base: Model = relative
    ? { ...relative }
    : {
        id: listed.id,
        name: listed.id,
        provider: provider.id,
        api: provider.api,
        baseUrl: provider.baseUrl,
        reasoning: false,
        input: ["text"],
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: 128_000,
        maxTokens: 16_384,
        ...(provider.headers && { headers: { ...provider.headers } }),
      };
  return {
    ...base,
    id: listed.id,
    ...(listed.api && { api: listed.api }),
    name: listed.name ?? `${listed.id} (${provider.name})`,
    contextWindow: listed.contextWindow ?? base.contextWindow,
    maxTokens: listed.maxTokens ?? base.maxTokens,
  };
}

/** The catalog model sharing the longest run of id words (`claude-opus-6` → `claude-opus-5-5`), when it shares the family word. */
function nearestRelative(id: string, models: Model[]): Model | undefined {
  const words = id.split(/[-./_]/).filter((w) => !/^\d+$/.test(w));
  let best: Model | undefined;
  let bestScore = 1;
  for (const model of models) {
    const theirs = new Set(model.id.split(/[-./_]/));
    const score = words.filter((w) => theirs.has(w)).length;
    if (score > bestScore) {
      best = model;
      bestScore = score;
    }
  }
  return best;
}
