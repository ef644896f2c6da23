import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { VERSION } from "../version.ts";
import type { WebSettings } from "./default-settings.ts";
import { formatBytes } from "../format-bytes.ts";
import { hostAllowed, privateAddressKind } from "./address.ts";
import { proxyFor } from "./proxy.ts";
import { WebError } from "./web-error.ts";

export const MAX_REDIRECTS = 10;

export interface Fetched {
  /** The URL asked for, and where the redirects ended. */
  url: string;
  finalUrl: string;
  status: number;
  contentType: string;
  body: Uint8Array;
}

/** Asks the user whether to fetch from a private address; a refusal carries the message to pass on. */
export type AskToFetch = (toolName: string, key: string, summary: string) => Promise<{ allow: boolean; message?: string }>;

export interface GetOptions {
  settings: WebSettings;
  signal: AbortSignal;
  /** The tool asking, for approval prompts and messages. */
  toolName: string;
  approve: AskToFetch | undefined;
  accept?: string;
  env?: Record<string, string | undefined>;
}

const DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5";

/**
 * GETs `url`, following at most MAX_REDIRECTS redirects (each hop checked like the first), within
 * `web.timeoutSeconds` and `web.maxBytes`. A hop to a private, loopback or link-local address
 * needs the user's approval unless `web.allowHosts` names the host.
 */
export async function httpGet(url: string, options: GetOptions): Promise<Fetched> {
  const { settings } = options;
  const timeout = AbortSignal.timeout(settings.timeoutSeconds * 1000);
  const signal = AbortSignal.any([options.signal, timeout]);
  let current = parseHttpUrl(url);
  for (let hop = 0; ; hop++) {
    await checkAddress(current, options);
    let response: Response;
    try {
      const proxy = proxyFor(current, options.env);
      response = await fetch(current, {
        redirect: "manual",
        signal,
        headers: { "user-agent": `omp/${VERSION} (web_fetch)`, accept: options.accept ?? DEFAULT_ACCEPT },
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
    return { url, finalUrl: current.href, status: response.status, contentType, body };
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

async function checkAddress(url: URL, options: GetOptions): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  if (hostAllowed(options.settings.allowHosts, host, port)) return;
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
    } catch (error) {
      // Through a proxy the proxy resolves names; without one the fetch fails with a clearer message.
      if (proxyFor(url, options.env)) return;
      throw new WebError("network", `Cannot resolve ${host}: ${(error as Error).message}. Check the address, or the network connection.`, { cause: error });
    }
  }
  for (const address of addresses) {
    const kind = privateAddressKind(address);
    if (!kind) continue;
    const summary = `${options.toolName} wants to fetch ${url.href}, whose host ${host} is a ${kind} address (${address})`;
    const outcome = options.approve
      ? await options.approve(options.toolName, `${options.toolName} to ${host}:${port}`, summary)
      : { allow: false as const, message: `${summary}: this needs the user's approval, and there is nobody to ask.` };
    if (!outcome.allow) {
      throw new WebError(
        "refused",
        `${outcome.message} Private, loopback and link-local addresses are not fetched without approval, so a page cannot make you probe the user's network. If the user wants this host reachable, they add it to web.allowHosts in config.yml (e.g. web: { allowHosts: ["${host}"] }).`,
      );
    }
    return;
  }
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
