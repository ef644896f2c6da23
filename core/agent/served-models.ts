import { join } from "node:path";
import { MODEL_LIST_MAX_AGE_MS, ModelListCache } from "../ai/model-list-cache.ts";
import { ModelListRefusal, type ProviderList, fetchModelList, modelFromListing } from "../ai/model-lists.ts";
import type { Api, Model } from "../ai/model.ts";
import { PROVIDERS, getProvider, providerBaseUrl } from "../ai/providers-table.ts";
import { loadTransport } from "../ai/cloud/transport.ts";
import type { ModelsConfig } from "../config/models-schema.ts";
import { agentDir } from "../paths.ts";

type Env = Record<string, string | undefined>;

/** A provider whose model list omp can ask for: the built-in cloud ones and models.yml's OpenAI-compatible services. */
export interface ListSource {
  provider: string;
  name: string;
  api: Api;
  baseUrl: string;
  /** The client identity the provider checks on every call (Copilot's editor headers). */
  headers?: Record<string, string>;
}

export const modelListsPath = (env: Env) => join(agentDir(env as NodeJS.ProcessEnv), "model-lists.db");

export function listSources(config: ModelsConfig, env: Env): ListSource[] {
  // Code Assist has no model list, nor has Vertex AI one for its publishers' models: theirs are the catalog's.
  const builtin = PROVIDERS.filter((p) => !p.local && p.api !== "google-gemini-cli" && p.transport !== "vertex").map((p) => ({
    provider: p.id,
    name: p.name,
    api: p.api,
    baseUrl: (config.providers[p.id]?.baseUrl ?? providerBaseUrl(p, env)).replace(/\/+$/, ""),
    ...(p.headers && { headers: p.headers }),
  }));
  const custom = Object.entries(config.providers)
    .filter(([id, entry]) => !PROVIDERS.some((p) => p.id === id) && entry.baseUrl && (entry.api ?? "openai-completions") === "openai-completions")
    .map(([id, entry]) => ({ provider: id, name: id, api: "openai-completions" as const, baseUrl: entry.baseUrl!.replace(/\/+$/, "") }));
  return [...builtin, ...custom];
}

/** What the providers' lists say about the models omp knows. */
export interface ServedModels {
  /** The catalog with each listed provider's new models added. */
  models: Model[];
  lists: ProviderList[];
}

/**
 * Merges the cached lists into the catalog: a listed id omp does not know becomes usable (with
 * the facts of its nearest catalog relative), and {@link retiredNote} flags a catalog id its
 * provider no longer lists.
 */
export function mergeServedModels(models: Model[], lists: ProviderList[], sources: ListSource[]): ServedModels {
  const merged = [...models];
  const known = new Set(models.map((m) => `${m.provider}/${m.id}`));
  for (const list of lists) {
    const source = sources.find((s) => s.provider === list.provider);
    if (!source) continue;
    for (const listed of list.models) {
      if (known.has(`${list.provider}/${listed.id}`)) continue;
      known.add(`${list.provider}/${listed.id}`);
      merged.push(modelFromListing(listed, { id: source.provider, name: source.name, api: source.api, baseUrl: source.baseUrl, headers: source.headers }, models));
    }
  }
  return { models: merged, lists };
}

/**
 * `provider/id` on a provider omp has no catalog for (Fireworks, NVIDIA, Moonshot, Z.ai, …) and
 * whose list it has not fetched: taken as written, as the provider's own docs name it, rather than
 * "unknown model" until `omp models --refresh`. The provider answers for an id it does not serve.
 */
export function uncataloguedModel(pattern: string, models: Model[], sources: ListSource[], lists: ProviderList[]): Model | undefined {
  const slash = pattern.indexOf("/");
  if (slash <= 0 || slash === pattern.length - 1) return undefined;
  const source = sources.find((s) => s.provider === pattern.slice(0, slash));
  if (!source || models.some((m) => m.provider === source.provider) || lists.some((l) => l.provider === source.provider)) return undefined;
  return modelFromListing({ id: pattern.slice(slash + 1) }, { id: source.provider, name: source.name, api: source.api, baseUrl: source.baseUrl, headers: source.headers }, models);
}

/**
 * Whether `provider` takes `key`, asked the cheapest way that needs one: its model list at the
 * configured base URL. "refused" only when the provider said so (400/401/403); "unchecked" when it
 * could not be asked (offline, no list endpoint), with why.
 */
export async function checkApiKey(config: ModelsConfig, env: Env, provider: string, key: string): Promise<{ verdict: "accepted" } | { verdict: "refused" | "unchecked"; why: string }> {
  const source = listSources(config, env).find((s) => s.provider === provider);
  if (!source) return { verdict: "unchecked", why: `${provider} has no model list to ask` };
  try {
    await fetchModelList(source.api, source.baseUrl, key, undefined, source.headers);
    return { verdict: "accepted" };
  } catch (error) {
    const why = (error as Error).message;
    // A plain GET has nothing else to be refused for: Gemini says 400 (API_KEY_INVALID), the others 401/403.
    if (error instanceof ModelListRefusal && [400, 401, 403].includes(error.status)) return { verdict: "refused", why };
    return { verdict: "unchecked", why };
  }
}

/** Why `model` will likely fail: its provider's latest list does not have it. Undefined when it is listed or nothing is known. */
export function retiredNote(model: Model, lists: ProviderList[]): string | undefined {
  const list = lists.find((l) => l.provider === model.provider);
  if (!list || list.models.length === 0 || list.models.some((m) => m.id === model.id)) return undefined;
  const when = new Date(list.fetchedAt).toISOString().slice(0, 10);
  return `${model.provider} no longer lists ${model.id} among its models (as of ${when}): it has probably been retired, so requests will fail; \`omp models\` shows what ${model.provider} serves now`;
}

export function readModelLists(env: Env): ProviderList[] {
  const cache = ModelListCache.open(modelListsPath(env), false);
  if (!cache) return [];
  try {
    return cache.all();
  } finally {
    cache.close();
  }
}

export interface RefreshResult {
  provider: string;
  ok: boolean;
  error?: string;
  count?: number;
}

/**
 * Fetches the lists of the providers that have a key and whose cached list is older than a day
 * (all of them with `force`), and caches them. Failures are reported, never thrown: the next run
 * tries again.
 */
export async function refreshModelLists(options: {
  env: Env;
  sources: ListSource[];
  keyOf: (provider: string) => Promise<string | undefined | null>;
  force?: boolean;
  timeoutMs?: number;
}): Promise<RefreshResult[]> {
  const cached = readModelLists(options.env);
  const now = Date.now();
  const due = options.sources.filter((source) => {
    if (options.force) return true;
    const list = cached.find((l) => l.provider === source.provider);
    return !list || now - list.fetchedAt > MODEL_LIST_MAX_AGE_MS;
  });
  const results = await Promise.all(
    due.map(async (source): Promise<{ result: RefreshResult; list?: ProviderList }> => {
      const key = await options.keyOf(source.provider);
      if (key === null) return { result: { provider: source.provider, ok: false, error: "no key" } };
      try {
        const signal = AbortSignal.timeout(options.timeoutMs ?? 15_000);
        const transport = getProvider(source.provider)?.transport;
        const models = transport
          ? await (await loadTransport(transport)).listModels(source, key ?? undefined, signal)
          : await fetchModelList(source.api, source.baseUrl, key, signal, source.headers);
        return { result: { provider: source.provider, ok: true, count: models.length }, list: { provider: source.provider, fetchedAt: Date.now(), models } };
      } catch (error) {
        return { result: { provider: source.provider, ok: false, error: (error as Error).message } };
      }
    }),
  );
  const fetched = results.flatMap((r) => (r.list ? [r.list] : []));
  if (fetched.length > 0) {
    const cache = ModelListCache.open(modelListsPath(options.env), true)!;
    try {
      for (const list of fetched) cache.put(list);
    } finally {
      cache.close();
    }
  }
  return results.map((r) => r.result);
}
