import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { stagingWriteError } from "./staging-errors.ts";

/**
 * Fetching release files: retries with backoff on network errors, 5xx, 408 and 429, a timeout for the
 * response headers and a stall timeout between body chunks (never a total timeout, so a slow link
 * still finishes), a size cap, and errors that say what was fetched, from where, through which proxy.
 * Proxies come from HTTPS_PROXY/HTTP_PROXY/NO_PROXY, which Bun's fetch honours itself.
 */

export interface FetchPolicy {
  attempts: number;
  headersTimeoutMs: number;
  stallTimeoutMs: number;
  backoffMs: number;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = { attempts: 3, headersTimeoutMs: 30_000, stallTimeoutMs: 60_000, backoffMs: 500 };

/** Worth another attempt: the network, the server's state, or the transfer failed. */
class Transient extends Error {}

export class HttpNotFound extends OmpError {}

function envValue(...names: string[]): string | undefined {
  for (const name of names) {
    const value = process.env[name];
    if (value) return value;
  }
  return undefined;
}

function bypassesProxy(host: string): boolean {
  const list = envValue("NO_PROXY", "no_proxy");
  if (!list) return false;
  return list.split(",").some((entry) => {
    const rule = entry.trim().replace(/:\d+$/, "").replace(/^\*?\./, "");
    return rule === "*" || (rule !== "" && (host === rule || host.endsWith(`.${rule}`)));
  });
}

/** The proxy a request to `url` goes through, for error messages. */
function proxyFor(url: string): string | null {
  const parsed = new URL(url);
  const proxy = parsed.protocol === "https:" ? envValue("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy") : envValue("HTTP_PROXY", "http_proxy");
  return proxy && !bypassesProxy(parsed.hostname) ? proxy : null;
}

/** The error's message without Bun's advice to pass `verbose: true`, which a user cannot act on. */
function networkCause(error: unknown): string {
  return describeError(error).replace(/\s*For more information, pass `verbose: true`.*$/s, "");
}

function redact(proxy: string): string {
  try {
    const parsed = new URL(proxy);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return proxy;
  }
}

interface Sink {
  write(chunk: Uint8Array): void;
  reset(): void;
}

/** One GET, its body streamed into `sink`; `expectedSize`, when known, must match exactly. */
async function getOnce(url: string, what: string, sink: Sink, maxBytes: number, expectedSize: number | undefined, policy: FetchPolicy): Promise<number> {
  const controller = new AbortController();
  let timedOut = "";
  let timer = setTimeout(() => {
    timedOut = `no response within ${policy.headersTimeoutMs / 1000} s`;
    controller.abort();
  }, policy.headersTimeoutMs);
  try {
    let response: Response;
    try {
      response = await fetch(url, { signal: controller.signal, redirect: "follow" });
    } catch (error) {
      throw new Transient(timedOut || networkCause(error));
    }
    if (response.status === 404) throw new HttpNotFound(`${what} not found at ${url} (HTTP 404)`);
    if (response.status >= 500 || response.status === 408 || response.status === 429) throw new Transient(`HTTP ${response.status}`);
    if (!response.ok) throw new OmpError(`could not fetch ${what} from ${url}: HTTP ${response.status} ${response.statusText}`);
    if (!response.body) throw new Transient("empty response");
    const stall = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = `the transfer stalled for ${policy.stallTimeoutMs / 1000} s`;
        controller.abort();
      }, policy.stallTimeoutMs);
    };
    stall();
    sink.reset();
    let received = 0;
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.length;
        if (received > maxBytes || (expectedSize !== undefined && received > expectedSize)) {
          throw new OmpError(`${what} from ${url} is larger than the ${expectedSize ?? maxBytes} bytes expected; refusing it`);
        }
        sink.write(value);
        stall();
      }
    } catch (error) {
      if (error instanceof OmpError) throw error;
      throw new Transient(timedOut || `the transfer broke off after ${received} bytes: ${networkCause(error)}`);
    }
    if (expectedSize !== undefined && received !== expectedSize) {
      throw new Transient(`the transfer ended after ${received} of ${expectedSize} bytes`);
    }
    return received;
  } finally {
    clearTimeout(timer);
  }
}

async function withRetries<T>(url: string, what: string, policy: FetchPolicy, attempt: () => Promise<T>): Promise<T> {
  let last = "";
  for (let n = 1; n <= policy.attempts; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof Transient)) throw error;
      last = error.message;
      if (n < policy.attempts) await Bun.sleep(policy.backoffMs * 2 ** (n - 1));
    }
  }
  const proxy = proxyFor(url);
  const via = proxy ? ` through the proxy ${redact(proxy)} (from HTTPS_PROXY/HTTP_PROXY; NO_PROXY lists hosts that bypass it)` : "";
  throw new OmpError(`could not download ${what} from ${url}${via} after ${policy.attempts} attempts: ${last}`);
}

/** A small file (pointer, SHA256SUMS, signature, manifest), whole, in memory. */
export async function fetchBytes(url: string, what: string, maxBytes: number, policy: FetchPolicy = DEFAULT_FETCH_POLICY): Promise<Uint8Array> {
  let chunks: Uint8Array[] = [];
  const sink: Sink = {
    write: (chunk) => chunks.push(chunk),
    reset: () => {
      chunks = [];
    },
  };
  await withRetries(url, what, policy, () => getOnce(url, what, sink, maxBytes, undefined, policy));
  return Buffer.concat(chunks);
}

/**
 * A large file streamed to `path` (created 0600, replaced on each attempt) while it is hashed;
 * fsynced before returning its size and sha256.
 */
export async function downloadFile(
  url: string,
  path: string,
  what: string,
  limits: { maxBytes: number; expectedSize?: number },
  policy: FetchPolicy = DEFAULT_FETCH_POLICY,
): Promise<{ size: number; sha256: string }> {
  let fd = -1;
  let hasher = new Bun.CryptoHasher("sha256");
  const sink: Sink = {
    write: (chunk) => {
      hasher.update(chunk);
      let offset = 0;
      try {
        while (offset < chunk.length) offset += writeSync(fd, chunk, offset);
      } catch (error) {
        // A full disk is not worth another attempt, and not the network's fault.
        throw stagingWriteError(path, error, limits.expectedSize);
      }
    },
    reset: () => {
      if (fd !== -1) closeSync(fd);
      fd = openSync(path, "w", 0o600);
      hasher = new Bun.CryptoHasher("sha256");
    },
  };
  try {
    const size = await withRetries(url, what, policy, () => getOnce(url, what, sink, limits.maxBytes, limits.expectedSize, policy));
    fsyncSync(fd);
    return { size, sha256: hasher.digest("hex") };
  } finally {
    if (fd !== -1) closeSync(fd);
  }
}
