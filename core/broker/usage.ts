import { describeAccount } from "../auth/fresh.ts";
import type { StoredCredential } from "../auth/credential.ts";
import type { CredentialStore } from "../auth/store.ts";
import type { UsageReport, UsageResponse } from "./wire.ts";

/** How long a usage limit a client met stays in the usage cache after it was seen (the original's last-good retention). */
export const USAGE_RETENTION_MS = 24 * 60 * 60_000;

/** What the vault's usage cache keeps of a usage limit a client met. */
interface Observation {
  providerKey: string;
  untilMs: number;
  observedAt: number;
}

const cacheKey = (id: number) => `usage:credential:${id}`;

/** Records a usage limit a client met with credential `id`: blocked for everyone until it resets, and kept for `GET /v1/usage`. */
export function recordUsageLimit(store: CredentialStore, row: StoredCredential, providerKey: string, untilMs: number, now = Date.now()): void {
  store.block(row.id, providerKey, untilMs);
  const observation: Observation = { providerKey, untilMs, observedAt: now };
  store.cacheSet(cacheKey(row.id), JSON.stringify(observation), USAGE_RETENTION_MS);
}

function observationOf(store: CredentialStore, id: number): Observation | undefined {
  const raw = store.cacheGet(cacheKey(id));
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Observation;
    return typeof parsed.untilMs === "number" && typeof parsed.observedAt === "number" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `GET /v1/usage`: one report per active credential the vault knows usage of, from the limits
 * clients met (kept 24 h) and the blocks in force (set by a broker client or by any omp sharing
 * the vault). A limit past its reset is reported as `unknown`: it was exhausted, and nobody has
 * looked since.
 */
export function usageReports(store: CredentialStore, now = Date.now()): UsageResponse {
  const blocks = store.blocks();
  const reports: UsageReport[] = [];
  for (const row of store.active()) {
    const seen = observationOf(store, row.id);
    const blockedUntil = blocks.get(row.id);
    if (!seen && blockedUntil === undefined) continue;
    const resetsAt = Math.max(blockedUntil ?? 0, seen?.untilMs ?? 0);
    const exhausted = resetsAt > now;
    const accountId = row.credential.type === "oauth" ? row.credential.accountId : undefined;
    reports.push({
      provider: row.provider,
      fetchedAt: seen?.observedAt ?? now,
      limits: [
        {
          id: "usage-limit",
          label: "Usage limit",
          scope: { provider: seen?.providerKey ?? row.provider, credentialId: row.id, account: describeAccount(row), ...(accountId ? { accountId } : {}) },
          window: { id: "until-reset", label: "until the limit resets", resetsAt },
          amount: exhausted ? { usedFraction: 1, remainingFraction: 0, unit: "unknown" } : { unit: "unknown" },
          status: exhausted ? "exhausted" : "unknown",
          ...(exhausted ? {} : { notes: [`reset at ${new Date(resetsAt).toISOString()}; not seen since`] }),
        },
      ],
    });
  }
  return { generatedAt: now, reports };
}
