import { OmpError } from "../errors/omp-error.ts";
import { httpGet, type Fetched } from "../web/http-get.ts";
import { WebError } from "../web/web-error.ts";
import { defaultWebSettings } from "../web/default-settings.ts";
import type { ToolContext } from "../tools/types.ts";
import { githubToken, type GithubToken } from "./token.ts";

/**
 * GitHub's REST API for the github tool and `issue://` / `pr://`: api.github.com, or a GitHub
 * Enterprise server (`GH_HOST`, as gh takes it, or `GITHUB_API_URL`, as Actions sets it), with the
 * user's token (token.ts). The token goes in the Authorization header to that origin only (never
 * to a redirect's), and into no message, result or log.
 */

export type GithubErrorKind = "auth" | "not-found" | "rate-limit" | "http" | "network" | "bad-input" | "aborted";

export class GithubError extends OmpError {
  constructor(
    readonly kind: GithubErrorKind,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/** A JSON page of the API is small; a big one is a broken or hostile server. Diffs get more room. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;
export const MAX_DIFF_BYTES = 16 * 1024 * 1024;
/** Pages followed through Link headers, at most, for one listing. */
const MAX_PAGES = 10;

export interface GithubApi {
  /** `https://api.github.com` or the Enterprise server's `/api/v3` root, without a trailing slash. */
  base: string;
  /** The web host repository URLs name (github.com, or the Enterprise host). */
  webHost: string;
  /** What makes the API host the user's own choice (the egress policy treats it as named), if anything does. */
  configured?: string;
}

export function githubApi(env: Record<string, string | undefined>): GithubApi {
  const explicit = env.GITHUB_API_URL?.trim();
  if (explicit) {
    let url: URL;
    try {
      url = new URL(explicit);
    } catch {
      throw new GithubError("bad-input", `GITHUB_API_URL ${JSON.stringify(explicit)} is not a URL; set it to the API root (https://api.github.com, or https://<host>/api/v3 for GitHub Enterprise).`);
    }
    // The remotes name the web host: GITHUB_SERVER_URL's (as Actions sets it), GH_HOST, an Enterprise `/api/v3` root's, else github.com.
    const server = env.GITHUB_SERVER_URL?.trim();
    const webHost = (server && URL.canParse(server) ? new URL(server).host : undefined) ?? (env.GH_HOST?.trim() || (/\/api\/v3\/?$/.test(url.pathname) ? url.host : "github.com"));
    return { base: explicit.replace(/\/+$/, ""), webHost, configured: "GITHUB_API_URL" };
  }
  const host = env.GH_HOST?.trim();
  if (host && host !== "github.com") return { base: `https://${host}/api/v3`, webHost: host, configured: "GH_HOST" };
  return { base: "https://api.github.com", webHost: "github.com" };
}

export interface GithubResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  method?: "GET" | "POST";
  /** `application/vnd.github.diff` for a pull request's unified diff. */
  accept?: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  maxBytes?: number;
}

/** One API call with the user's token, through the egress policy; a non-2xx answer is a GithubError saying what to do. */
export async function githubCall(context: ToolContext, toolName: string, path: string, options: CallOptions = {}): Promise<GithubResponse> {
  const api = githubApi(process.env);
  const url = new URL(path.startsWith("http") ? path : `${api.base}${path}`);
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined && String(value) !== "") url.searchParams.set(name, String(value));
  return callUrl(context, toolName, api, url, options);
}

async function callUrl(context: ToolContext, toolName: string, api: GithubApi, url: URL, options: CallOptions): Promise<GithubResponse> {
  const token = await githubToken(process.env);
  const settings = { ...(context.web ?? defaultWebSettings()), maxBytes: options.maxBytes ?? MAX_JSON_BYTES };
  const configured = api.configured ?? (token && api.base === "https://api.github.com" ? `a GitHub token (${token.source})` : undefined);
  let fetched: Fetched;
  try {
    fetched = await httpGet(url.href, {
      settings,
      signal: context.signal,
      toolName,
      egress: context.egress,
      accept: options.accept ?? "application/vnd.github+json",
      headers: { "x-github-api-version": "2022-11-28", ...(token ? { authorization: `Bearer ${token.value}` } : {}), ...(options.body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(options.method === "POST" ? { method: "POST", body: JSON.stringify(options.body ?? {}), what: `a POST request for ${url.pathname}` } : {}),
      ...(configured ? { configured } : {}),
    });
  } catch (error) {
    if (error instanceof WebError) throw new GithubError(error.kind === "refused" ? "network" : error.kind === "too-large" ? "http" : "network", error.message, { cause: error });
    throw error;
  }
  const text = new TextDecoder().decode(fetched.body);
  if (fetched.status >= 200 && fetched.status < 300) return { status: fetched.status, headers: fetched.headers, text };
  throw failure(fetched, text, url, token, api);
}

function failure(fetched: Fetched, text: string, url: URL, token: GithubToken | undefined, api: GithubApi): GithubError {
  let message = "";
  try {
    message = String((JSON.parse(text) as { message?: unknown }).message ?? "");
  } catch {
    message = text.slice(0, 200);
  }
  const said = message ? ` GitHub said: ${message.replace(/\s+/g, " ").slice(0, 300)}` : "";
  const where = `${url.pathname}${url.search}`;
  if (fetched.status === 401) {
    return new GithubError(
      "auth",
      token
        ? `GitHub refused the token from ${token.source} (HTTP 401 for ${where}).${said} Set a valid token in GITHUB_TOKEN or GH_TOKEN, run \`gh auth login\`, or store one with \`omp auth add github\`.`
        : `GitHub needs a token for ${where} (HTTP 401) and none is set up.${said} Set GITHUB_TOKEN or GH_TOKEN, run \`gh auth login\`, or store one with \`omp auth add github\`.`,
    );
  }
  const remaining = fetched.headers.get("x-ratelimit-remaining");
  if (fetched.status === 429 || (fetched.status === 403 && remaining === "0")) {
    const reset = Number(fetched.headers.get("x-ratelimit-reset"));
    const when = Number.isFinite(reset) && reset > 0 ? ` It resets at ${new Date(reset * 1000).toISOString()}.` : "";
    return new GithubError("rate-limit", `GitHub's rate limit was reached (HTTP ${fetched.status}).${when}${token ? "" : " Requests with a token get a higher limit: set GITHUB_TOKEN or run `gh auth login`."}`);
  }
  if (fetched.status === 404) {
    return new GithubError("not-found", `Not found on ${api.webHost}: ${where} (HTTP 404).${token ? " Check the owner, repository and number; a private repository also answers 404 when the token cannot see it." : " A private repository answers 404 without a token: set GITHUB_TOKEN or run `gh auth login`."}`);
  }
  return new GithubError("http", `GitHub answered HTTP ${fetched.status} for ${where}.${said}`);
}

/** The `rel="next"` URL of a Link header, when it stays on the API's origin. */
function nextLink(headers: Headers, origin: string): URL | undefined {
  const link = headers.get("link");
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!match) continue;
    try {
      const next = new URL(match[1]!);
      return next.origin === origin ? next : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A listing across pages (Link headers), up to `maxItems` items and MAX_PAGES pages; `more` says some were left. */
export async function githubPages<T>(context: ToolContext, toolName: string, path: string, options: { query?: CallOptions["query"]; maxItems: number }): Promise<{ items: T[]; more: boolean }> {
  const api = githubApi(process.env);
  const first = new URL(`${api.base}${path}`);
  const perPage = Math.min(100, options.maxItems);
  for (const [name, value] of Object.entries({ per_page: perPage, ...options.query })) if (value !== undefined && String(value) !== "") first.searchParams.set(name, String(value));
  const items: T[] = [];
  let url: URL | undefined = first;
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const response = await callUrl(context, toolName, api, url, {});
    const batch = parseJson<T[]>(response.text, url);
    if (!Array.isArray(batch)) throw new GithubError("http", `GitHub answered ${url.pathname} with something that is not a list.`);
    items.push(...batch);
    url = nextLink(response.headers, first.origin);
    if (items.length >= options.maxItems) return { items: items.slice(0, options.maxItems), more: url !== undefined || items.length > options.maxItems };
  }
  return { items, more: url !== undefined };
}

export function parseJson<T>(text: string, url: URL | string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new GithubError("http", `GitHub answered ${typeof url === "string" ? url : url.pathname} with something that is not JSON: ${text.slice(0, 120)}`);
  }
}

/** GET of one JSON resource. */
export async function githubJson<T>(context: ToolContext, toolName: string, path: string, query?: CallOptions["query"]): Promise<T> {
  const response = await githubCall(context, toolName, path, query ? { query } : {});
  return parseJson<T>(response.text, path);
}
