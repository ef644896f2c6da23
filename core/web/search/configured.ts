import type { WebSettings } from "../default-settings.ts";

export const SEARCH_PROVIDERS = ["brave", "exa", "tavily", "perplexity", "jina", "kagi", "searxng"] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/** Each provider's environment variable: an API key, or SearXNG's address. */
export const SEARCH_ENV: Record<SearchProviderName, string> = {
  brave: "BRAVE_API_KEY",
  exa: "EXA_API_KEY",
  tavily: "TAVILY_API_KEY",
  perplexity: "PERPLEXITY_API_KEY",
  jina: "JINA_API_KEY",
  kagi: "KAGI_API_KEY",
  searxng: "SEARXNG_URL",
};

export interface SearchChoice {
  provider: SearchProviderName;
  /** The API key (SearXNG: none, or a bearer token from web.search.apiKey). */
  key: string | undefined;
  /** The provider's address when the user points it elsewhere (SearXNG: always). */
  baseUrl: string | undefined;
}

/**
 * The search provider of this session: `web.search.provider` when set, else the first in
 * SEARCH_PROVIDERS whose variable is set. Undefined when none is: web_search is then not offered.
 */
export function searchChoice(search: WebSettings["search"], env: Record<string, string | undefined>): SearchChoice | undefined {
  const provider = search.provider ?? SEARCH_PROVIDERS.find((name) => env[SEARCH_ENV[name]]);
  if (!provider) return undefined;
  const fromEnv = env[SEARCH_ENV[provider]];
  if (provider === "searxng") {
    const baseUrl = search.baseUrl ?? fromEnv;
    return baseUrl ? { provider, key: search.apiKey, baseUrl } : undefined;
  }
  const key = search.apiKey ?? fromEnv;
  return key ? { provider, key, baseUrl: search.baseUrl } : undefined;
}
