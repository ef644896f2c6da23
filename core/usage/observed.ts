import type { UsageReport } from "../broker/wire.ts";
import { codexLimits } from "./limits.ts";

type Window = { used_percent?: number; limit_window_seconds?: number; reset_after_seconds?: number; reset_at?: number };

/**
 * Codex's `x-codex-primary-*` / `x-codex-secondary-*` response headers (used-percent,
 * window-minutes, reset-after-seconds, reset-at) as the usage endpoint's windows, so both read alike.
 */
export function codexHeaderWindows(headers: Headers): { rate_limit: Record<string, Window> } | undefined {
  const rate: Record<string, Window> = {};
  for (const which of ["primary", "secondary"] as const) {
    const value = (name: string) => {
      const raw = headers.get(`x-codex-${which}-${name}`);
      const parsed = raw === null ? Number.NaN : Number(raw);
      return Number.isFinite(parsed) ? parsed : undefined;
    };
    const used = value("used-percent");
    if (used === undefined) continue;
    const minutes = value("window-minutes");
    rate[`${which}_window`] = {
      used_percent: used,
      ...(minutes !== undefined ? { limit_window_seconds: minutes * 60 } : {}),
      ...(value("reset-after-seconds") !== undefined ? { reset_after_seconds: value("reset-after-seconds") } : {}),
      ...(value("reset-at") !== undefined ? { reset_at: value("reset-at") } : {}),
    };
  }
  return Object.keys(rate).length > 0 ? { rate_limit: rate } : undefined;
}

/**
 * What this process saw of its accounts' limits in responses (Codex sends its windows with every
 * answer), by credential id: fresher than the usage endpoint between its looks.
 */
export class ObservedLimits {
  private readonly reports = new Map<number, UsageReport>();
  private readonly listeners = new Set<() => void>();

  /** Reads a response's headers for the limits of credential `id` (a stored login of `provider`). */
  note(provider: string, id: number, headers: Headers, now = Date.now()): void {
    if (provider !== "openai-codex") return;
    const windows = codexHeaderWindows(headers);
    if (!windows) return;
    const account = { id, provider, label: `#${id}`, credential: { type: "oauth", access: "", refresh: "", expires: 0 } } as const;
    this.reports.set(id, { provider, fetchedAt: now, limits: codexLimits(account, windows, now), metadata: { credentialId: id } });
    for (const listener of this.listeners) listener();
  }

  get(id: number): UsageReport | undefined {
    return this.reports.get(id);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
