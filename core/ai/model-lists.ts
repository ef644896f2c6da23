import type { Api, Model } from "./model.ts";
import { WIRE_APIS } from "./apis/index.ts";

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

export const num = (value: unknown) => (typeof value === "number" && value > 0 ? value : undefined);
export const str = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The model-list endpoint answered with an HTTP error: `status` tells a refused key (401/403) from the rest. */
export class ModelListRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** How long one provider's model list (all its pages) may take. */
const MODEL_LIST_TIMEOUT_MS = 20_000;

/**
 * Asks a provider which models it serves now, with the user's key, through its wire API's own
 * model-list endpoint (core/ai/apis/<api>/): pages are followed where the API pages.
 */
export async function fetchModelList(api: Api, baseUrl: string, apiKey: string | undefined, signal?: AbortSignal, identity: Record<string, string> = {}): Promise<ListedModel[]> {
  // A background fetch must end by itself: an endpoint that never finishes its body (a proxy or a
  // local server answering every path with a stream) would otherwise be read for the whole session.
  const limit = AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS);
  const get = async (url: string, auth: Record<string, string>): Promise<Json> => {
    const response = await fetch(url, { headers: { accept: "application/json", ...identity, ...auth }, signal: signal ? AbortSignal.any([signal, limit]) : limit });
    if (!response.ok) throw new ModelListRefusal(response.status, `GET ${new URL(url).pathname} answered ${response.status}`);
    const body: unknown = await response.json();
    if (body === null || typeof body !== "object") throw new Error(`GET ${new URL(url).pathname} answered something that is not a JSON object`);
    return body as Json;
  };
  return WIRE_APIS[api].listModels(baseUrl, apiKey, get);
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
