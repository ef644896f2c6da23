import type { SearchChoice, SearchProviderName } from "./configured.ts";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  date?: string;
}

export interface SearchQuery {
  query: string;
  limit: number;
}

/** One provider's wire format: the request it takes and how its answer maps to results. */
interface Provider {
  label: string;
  defaultBase: string;
  request(query: SearchQuery, choice: SearchChoice, base: string): { url: string; init: RequestInit };
  results(body: any): SearchResult[];
}

const json = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });
const str = (value: unknown) => (typeof value === "string" ? value : "");

export const PROVIDERS: Record<SearchProviderName, Provider> = {
  brave: {
    label: "Brave Search",
    defaultBase: "https://api.search.brave.com",
    request: ({ query, limit }, { key }, base) => ({
      url: `${base}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(Math.min(limit, 20)) })}`,
      init: { headers: { "x-subscription-token": key!, accept: "application/json" } },
    }),
    results: (body) => (body?.web?.results ?? []).map((r: any) => ({ title: str(r.title), url: str(r.url), snippet: str(r.description), date: r.page_age ?? r.age })),
  },
  exa: {
    label: "Exa",
    defaultBase: "https://api.exa.ai",
    request: ({ query, limit }, { key }, base) => ({
      url: `${base}/search`,
      init: { ...json({ query, numResults: limit, type: "auto", contents: { text: { maxCharacters: 400 } } }), headers: { "x-api-key": key!, "content-type": "application/json" } },
    }),
    results: (body) => (body?.results ?? []).map((r: any) => ({ title: str(r.title), url: str(r.url), snippet: str(r.summary) || str(r.text) || (r.highlights ?? []).join(" … "), date: r.publishedDate })),
  },
  tavily: {
    label: "Tavily",
    defaultBase: "https://api.tavily.com",
    request: ({ query, limit }, { key }, base) => ({
      url: `${base}/search`,
      init: { ...json({ query, max_results: limit, search_depth: "basic" }), headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } },
    }),
    results: (body) => (body?.results ?? []).map((r: any) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content), date: r.published_date })),
  },
  perplexity: {
    label: "Perplexity",
    defaultBase: "https://api.perplexity.ai",
    request: ({ query, limit }, { key }, base) => ({
      url: `${base}/search`,
      init: { ...json({ query, max_results: limit }), headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } },
    }),
    results: (body) => (body?.results ?? []).map((r: any) => ({ title: str(r.title), url: str(r.url), snippet: str(r.snippet), date: r.date ?? r.last_updated })),
  },
  jina: {
    label: "Jina",
    defaultBase: "https://s.jina.ai",
    request: ({ query }, { key }, base) => ({
      url: `${base}/?${new URLSearchParams({ q: query })}`,
      init: { headers: { authorization: `Bearer ${key}`, accept: "application/json", "x-respond-with": "no-content" } },
    }),
    results: (body) => (body?.data ?? []).map((r: any) => ({ title: str(r.title), url: str(r.url), snippet: str(r.description) || str(r.content).slice(0, 400), date: r.date ?? r.publishedTime })),
  },
  kagi: {
    label: "Kagi",
    defaultBase: "https://kagi.com",
    request: ({ query, limit }, { key }, base) => ({
      url: `${base}/api/v0/search?${new URLSearchParams({ q: query, limit: String(limit) })}`,
      init: { headers: { authorization: `Bot ${key}`, accept: "application/json" } },
    }),
    // t: 0 is a search result; t: 1 a list of related searches.
    results: (body) => (body?.data ?? []).filter((r: any) => r.t === 0).map((r: any) => ({ title: str(r.title), url: str(r.url), snippet: str(r.snippet), date: r.published })),
  },
  searxng: {
    label: "SearXNG",
    defaultBase: "",
    request: ({ query }, { key }, base) => ({
      url: `${base}/search?${new URLSearchParams({ q: query, format: "json" })}`,
      init: { headers: { accept: "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) } },
    }),
    results: (body) => (body?.results ?? []).map((r: any) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content), date: r.publishedDate ?? undefined })),
  },
};
