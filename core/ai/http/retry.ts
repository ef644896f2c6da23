/** Retries after the first attempt unless StreamOptions.maxRetries says otherwise. */
export const DEFAULT_MAX_RETRIES = 4;

/** No single wait is longer; a server asking for more fails the request instead of hanging the UI. */
export const MAX_RETRY_DELAY_MS = 60_000;

const DEFAULT_BASE_DELAY_MS = 1000;

/**
 * The first backoff: `OMP_RETRY_BASE_MS` (tests, impatient users; read on every call), else the
 * `retry.baseDelayMs` setting the caller passes, else 1 s.
 */
export function retryBaseDelayMs(env: Record<string, string | undefined> = process.env, setting?: number): number {
  const fallback = setting ?? DEFAULT_BASE_DELAY_MS;
  const raw = env.OMP_RETRY_BASE_MS;
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** How long a response may stay silent before it is given up and retried. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random, so concurrent
 * clients spread out while each still waits a predictable minimum. `attempt` counts from 1.
 */
export function backoffDelayMs(attempt: number, baseMs = retryBaseDelayMs(), random: () => number = Math.random): number {
  const step = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * The wait a server asked for: `retry-after-ms` (OpenAI, Anthropic) wins over `retry-after`, which
 * is either seconds or an HTTP date. Undefined when neither header is usable.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
