import type { Model } from "./model.ts";
import { PROVIDERS, type ProviderInfo, providerBaseUrl } from "./providers-table.ts";

type Env = Record<string, string | undefined>;
type Json = Record<string, unknown>;

export interface DiscoveryOptions {
  env?: Env;
  /** Per probe; all probes run at once, so this bounds the whole discovery. */
  timeoutMs?: number;
  /** Provider ids to probe; default every local provider in the table. */
  providers?: string[];
}

/** Used when the server does not say; large enough for agent prompts, small enough for most local setups. */
export const DEFAULT_LOCAL_CONTEXT = 32_768;

/**
 * Finds models on local servers (Ollama, llama.cpp, LM Studio, vLLM) at their configured or
 * default URLs. A port with nothing listening refuses the connection at once on loopback, so with
 * no servers running this returns in about a millisecond; a stuck server costs at most `timeoutMs`.
 */
export async function discoverLocalModels(options: DiscoveryOptions = {}): Promise<Model[]> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? 300;
  const wanted = PROVIDERS.filter((p) => p.local && (options.providers === undefined || options.providers.includes(p.id)));
  const found = await Promise.all(wanted.map((p) => probe(p, env, timeoutMs).catch(() => [])));
  return found.flat();
}

async function probe(provider: ProviderInfo, env: Env, timeoutMs: number): Promise<Model[]> {
  const apiBase = providerBaseUrl(provider, env);
  const key = provider.keyEnv.map((name) => env[name]).find((v) => v !== undefined && v !== "");
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const get = async (url: string): Promise<Json | undefined> => {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    return body !== null && typeof body === "object" ? (body as Json) : undefined;
  };

  const model = (id: string, contextWindow: number | undefined): Model => {
    const window = contextWindow !== undefined && contextWindow > 0 ? contextWindow : DEFAULT_LOCAL_CONTEXT;
    return {
      id,
      name: `${id} (${provider.name})`,
      provider: provider.id,
      api: "openai-completions",
      baseUrl: apiBase,
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: window,
      maxTokens: Math.min(16_384, Math.max(1, Math.floor(window / 2))),
    };
  };

  if (provider.id === "ollama") {
    // The native listing names every pulled model; the OpenAI-compatible API serves them under /v1.
    const tags = await get(`${apiBase.replace(/\/v1$/, "")}/api/tags`);
    const configured = Number(env.OLLAMA_CONTEXT_LENGTH);
    const context = Number.isInteger(configured) && configured > 0 ? configured : undefined;
    return ((tags?.models ?? []) as Json[]).flatMap((entry) => {
      const id = (entry.model ?? entry.name) as unknown;
      return typeof id === "string" && id !== "" ? [model(id, context)] : [];
    });
  }

  const list = await get(`${apiBase}/models`);
  return ((list?.data ?? []) as Json[]).flatMap((entry) => (typeof entry.id === "string" && entry.id !== "" ? [model(entry.id, contextOf(entry))] : []));
}

/** vLLM says `max_model_len`, llama.cpp `meta.n_ctx` / `meta.n_ctx_train`, others `context_length`. */
function contextOf(entry: Json): number | undefined {
  const meta = (entry.meta ?? {}) as Json;
  for (const value of [entry.max_model_len, entry.context_length, meta.n_ctx, meta.n_ctx_train]) {
    if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}
