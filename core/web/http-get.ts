import { isIP } from "node:net";
import { VERSION } from "../version.ts";
import type { WebSettings } from "./default-settings.ts";
import { formatBytes } from "../format-bytes.ts";
import { firstPrivate, resolveHost } from "./address.ts";
import { checkEgress, type EgressOutcome, type EgressRequest } from "../permissions/egress.ts";
import { proxyFor } from "./proxy.ts";
import { WebError } from "./web-error.ts";

export const MAX_REDIRECTS = 10;

export interface Fetched {
  /** The URL asked for, and where the redirects ended. */
  url: string;
  finalUrl: string;
  status: number;
  contentType: string;
  /** The final response's headers (Link, rate limits). */
  headers: Headers;
  body: Uint8Array;
}

/** Asks about a host the user has not named (core/permissions/egress.ts); a refusal carries the message to pass on. */
export type AskEgress = (request: EgressRequest) => Promise<EgressOutcome>;

export interface GetOptions {
  settings: WebSettings;
  signal: AbortSignal;
  /** The tool asking, for approval prompts and messages. */
  toolName: string;
  egress: AskEgress | undefined;
  accept?: string;
  env?: Record<string, string | undefined>;
  /** An API call (github): its method, body and headers; the headers go only to the first URL's origin, never to where a redirect points. */
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  /** The user's configuration names this host (core/permissions/egress.ts): what configures it. */
  configured?: string;
  /** What goes to the host, for the egress question; default: the request line. */
  what?: string;
}

const DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5";

/**
 * GETs `url`, following at most MAX_REDIRECTS redirects (each hop checked like the first), within
 * `web.timeoutSeconds` and `web.maxBytes`. Each hop's host must be named by the user or approved
 * (egress; `configured` covers only the first URL's origin), a private, loopback or link-local address only by `web.allowHosts`/`--allow-host` or
 * approval; the connection then goes to the address that was checked, so a second DNS answer
 * cannot swap in another.
 */
export async function httpGet(url: string, options: GetOptions): Promise<Fetched> {
  const { settings } = options;
  const timeout = AbortSignal.timeout(settings.timeoutSeconds * 1000);
  const signal = AbortSignal.any([options.signal, timeout]);
  let current = parseHttpUrl(url);
  const origin = current.origin;
  for (let hop = 0; ; hop++) {
    const own = current.origin === origin ? (options.headers ?? {}) : {};
    // The user's configuration names the first URL's origin, not wherever its answers point.
    const pinned = await checkAddress(current, current.origin === origin ? options : { ...options, configured: undefined }, options.what ?? `a ${options.method ?? "GET"} request for ${current.href}`);
    let response: Response;
    try {
      const proxy = proxyFor(current, options.env);
      response = await fetch(pinned ? pinnedUrl(current, pinned) : current, {
        redirect: "manual",
        signal,
        ...(options.method === "POST" && hop === 0 ? { method: "POST", body: options.body ?? "" } : {}),
        headers: { "user-agent": `omp/${VERSION} (${options.toolName})`, accept: options.accept ?? DEFAULT_ACCEPT, ...own, ...(pinned ? { host: current.host } : {}) },
        // The certificate is checked against the name asked for, not the pinned address.
        ...(pinned && current.protocol === "https:" ? { tls: { serverName: current.hostname } } : {}),
        ...(proxy ? { proxy } : {}),
      });
    } catch (error) {
      throw failure(error, current, settings, timeout);
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS) {
        throw new WebError("too-many-redirects", `${url} redirected more than ${MAX_REDIRECTS} times (last to ${location}); it probably loops. Try the final address directly if you know it.`);
      }
      current = parseHttpUrl(new URL(location, current).href);
      continue;
    }
    const contentType = response.headers.get("content-type") ?? "";
    const body = await readBody(response, current, settings, signal, timeout);
    return { url, finalUrl: current.href, status: response.status, contentType, headers: response.headers, body };
  }
}

export function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebError("bad-url", `${JSON.stringify(text)} is not a valid URL; give a full http:// or https:// address.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new WebError("bad-url", `${url.protocol} URLs cannot be fetched; only http:// and https:// can.`);
  }
  return url;
}

/**
 * Resolves the host once, checks every address, and returns the one to connect to (undefined:
 * through a proxy, which resolves names itself). Throws a WebError when the user did not allow it.
 * `what` says what goes there, for the approval (the browser's proxy asks with it too).
 */
export async function checkAddress(url: URL, options: Pick<GetOptions, "toolName" | "egress" | "env" | "configured">, what: string): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const proxied = proxyFor(url, options.env) !== undefined;
  let addresses: string[];
  if (proxied && !isIP(host)) addresses = [];
  else {
    try {
      addresses = await resolveHost(host);
    } catch (error) {
      throw new WebError("network", `Cannot resolve ${host}: ${(error as Error).message}. Check the address, or the network connection.`, { cause: error });
    }
  }
  const privateAddress = firstPrivate(addresses);
  const request: EgressRequest = {
    toolName: options.toolName,
    host,
    port,
    what,
    ...(privateAddress ? { privateAddress } : {}),
    ...(options.configured ? { configured: options.configured } : {}),
  };
  const outcome = await checkEgress(options.egress, request);
  if (!outcome.allow) throw new WebError("refused", outcome.message);
  return proxied ? undefined : addresses[0];
}

/** `url` with its host replaced by the checked address (the Host header and TLS name keep the original). */
function pinnedUrl(url: URL, address: string): URL {
  const pinned = new URL(url.href);
  pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return pinned;
}

async function readBody(response: Response, url: URL, settings: WebSettings, signal: AbortSignal, timeout: AbortSignal): Promise<Uint8Array> {
  const limit = settings.maxBytes;
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) {
    await response.body?.cancel();
    throw tooLarge(url, `${formatBytes(declared)} (Content-Length)`, limit);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body ?? []) {
      total += chunk.length;
      if (total > limit) {
        await response.body?.cancel().catch(() => {});
        throw tooLarge(url, `more than ${formatBytes(limit)}`, limit);
      }
      chunks.push(chunk);
      if (signal.aborted) break;
    }
  } catch (error) {
    if (error instanceof WebError) throw error;
    throw failure(error, url, settings, timeout);
  }
  if (signal.aborted) throw failure(signal.reason, url, settings, timeout);
  return Buffer.concat(chunks);
}

function tooLarge(url: URL, size: string, limit: number): WebError {
  return new WebError(
    "too-large",
    `${url.href} is ${size}, over the ${formatBytes(limit)} limit (web.maxBytes); nothing was kept. Download it with bash (curl -o file URL) and read the file in parts, or raise web.maxBytes in config.yml.`,
  );
}

function failure(error: unknown, url: URL, settings: WebSettings, timeout: AbortSignal): WebError {
  if (timeout.aborted) {
    return new WebError("timeout", `${url.href} did not answer within ${settings.timeoutSeconds} s (web.timeoutSeconds); try again later or raise web.timeoutSeconds in config.yml.`, { cause: error });
  }
  if ((error as Error)?.name === "AbortError") return new WebError("network", `The fetch of ${url.href} was cancelled.`, { cause: error });
  return new WebError("network", `Fetching ${url.href} failed: ${(error as Error)?.message ?? String(error)}.`, { cause: error });
}
