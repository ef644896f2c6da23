import { BodyTooLarge, readLimitedText } from "../http/body-limit.ts";
import { COPILOT_HEADERS } from "../ai/providers-table.ts";
import { type OAuthCredential, REMOTE_REFRESH_SENTINEL } from "../auth/credential.ts";
import { endpointsOf, oauthProvider } from "../auth/oauth/providers.ts";
import type { UsageReport } from "../broker/wire.ts";
import { describeError } from "../errors/omp-error.ts";
import { WARN_AT } from "./format.ts";

type Env = Record<string, string | undefined>;
type Limit = UsageReport["limits"][number];

/** The subscriptions whose providers say how much of their limits is used. */
export const USAGE_PROVIDERS = ["anthropic", "openai-codex", "github-copilot", "google-gemini-cli"] as const;
export type UsageProvider = (typeof USAGE_PROVIDERS)[number];

export const isUsageProvider = (provider: string): provider is UsageProvider => (USAGE_PROVIDERS as readonly string[]).includes(provider);

/** A subscription login to ask about: its id in the vault (or the broker's), label and tokens. */
export interface Account {
  id: number;
  provider: UsageProvider;
  label: string;
  credential: OAuthCredential;
}

const TIMEOUT_MS = 10_000;
/** Usage answers are a few KB; anything past this is not one. */
const MAX_BODY_BYTES = 1024 * 1024;
const HOUR = 3_600_000;

function statusOf(usedFraction: number): Limit["status"] {
  return usedFraction >= 1 ? "exhausted" : usedFraction >= WARN_AT ? "warning" : "ok";
}

const clampFraction = (value: number) => Math.min(1, Math.max(0, value));

function percentLimit(account: Account, id: string, label: string, percentUsed: number, window: { durationMs?: number; resetsAt?: number }): Limit {
  const usedFraction = clampFraction(percentUsed / 100);
  return {
    id,
    label,
    scope: { provider: account.provider, credentialId: account.id, account: account.label },
    window: { id, label, ...window },
    amount: { used: percentUsed, limit: 100, usedFraction, remainingFraction: 1 - usedFraction, unit: "percent" },
    status: statusOf(usedFraction),
  };
}

const timeOf = (value: unknown): number | undefined => {
  if (typeof value !== "string" || value === "") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
};

const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const obj = (value: unknown): Record<string, unknown> | undefined => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/** Anthropic's windows by field, as Claude Code names them. */
const ANTHROPIC_WINDOWS: [string, string, number][] = [
  ["five_hour", "5-hour limit", 5 * HOUR],
  ["seven_day", "weekly limit", 168 * HOUR],
  ["seven_day_opus", "weekly Opus limit", 168 * HOUR],
  ["seven_day_sonnet", "weekly Sonnet limit", 168 * HOUR],
];

/** `GET /api/oauth/usage`: each window's utilization (percent) and resets_at; a window the plan lacks is null. */
export function anthropicLimits(account: Account, body: unknown): Limit[] {
  const answer = obj(body) ?? {};
  return ANTHROPIC_WINDOWS.flatMap(([field, label, durationMs]) => {
    const window = obj(answer[field]);
    const used = num(window?.utilization);
    if (!window || used === undefined) return [];
    const resetsAt = timeOf(window.resets_at);
    return [percentLimit(account, field, label, used, { durationMs, ...(resetsAt ? { resetsAt } : {}) })];
  });
}

function windowLabel(seconds: number | undefined): string {
  if (seconds === undefined) return "limit";
  if (seconds === 5 * 3600) return "5-hour limit";
  if (seconds === 7 * 24 * 3600) return "weekly limit";
  return seconds % 86_400 === 0 ? `${seconds / 86_400}-day limit` : `${Math.round(seconds / 3600)}-hour limit`;
}

/** `GET /backend-api/wham/usage`: the plan's primary (5 h) and secondary (weekly) windows. */
export function codexLimits(account: Account, body: unknown, now = Date.now()): Limit[] {
  const rate = obj(obj(body)?.rate_limit);
  return (["primary_window", "secondary_window"] as const).flatMap((field) => {
    const window = obj(rate?.[field]);
    const used = num(window?.used_percent);
    if (!window || used === undefined) return [];
    const seconds = num(window.limit_window_seconds);
    const resetAt = num(window.reset_at);
    const after = num(window.reset_after_seconds);
    const resetsAt = resetAt !== undefined ? resetAt * 1000 : after !== undefined ? now + after * 1000 : undefined;
    const id = field === "primary_window" ? "primary" : "secondary";
    return [percentLimit(account, id, windowLabel(seconds), used, { ...(seconds ? { durationMs: seconds * 1000 } : {}), ...(resetsAt ? { resetsAt } : {}) })];
  });
}

const COPILOT_QUOTAS: [string, string][] = [
  ["premium_interactions", "premium requests"],
  ["chat", "chat messages"],
  ["completions", "code completions"],
];

/** `GET /copilot_internal/user`: the month's quotas (unlimited ones left out) and when they reset. */
export function copilotLimits(account: Account, body: unknown): Limit[] {
  const answer = obj(body) ?? {};
  const snapshots = obj(answer.quota_snapshots) ?? {};
  const resetsAt = timeOf(answer.quota_reset_date_utc) ?? timeOf(answer.quota_reset_date);
  return COPILOT_QUOTAS.flatMap(([field, label]) => {
    const quota = obj(snapshots[field]);
    if (!quota || quota.unlimited === true) return [];
    const entitlement = num(quota.entitlement);
    const remaining = num(quota.remaining) ?? num(quota.quota_remaining);
    const percentRemaining = num(quota.percent_remaining);
    if (entitlement === undefined || (remaining === undefined && percentRemaining === undefined)) return [];
    const usedFraction = clampFraction(percentRemaining !== undefined ? 1 - percentRemaining / 100 : 1 - remaining! / Math.max(1, entitlement));
    return [
      {
        id: field,
        label: `monthly ${label}`,
        scope: { provider: account.provider, credentialId: account.id, account: account.label },
        window: { id: "month", label: "month", ...(resetsAt ? { resetsAt } : {}) },
        amount: { used: Math.max(0, entitlement - (remaining ?? entitlement * (1 - usedFraction))), limit: entitlement, ...(remaining !== undefined ? { remaining } : {}), usedFraction, remainingFraction: 1 - usedFraction, unit: "requests" },
        status: statusOf(usedFraction),
      },
    ];
  });
}

/** `POST /v1internal:retrieveUserQuota`: a bucket per model and token type, with the fraction left. */
export function geminiLimits(account: Account, body: unknown): Limit[] {
  const buckets = obj(body)?.buckets;
  if (!Array.isArray(buckets)) return [];
  return buckets.flatMap((raw) => {
    const bucket = obj(raw);
    const remaining = num(bucket?.remainingFraction);
    if (!bucket || remaining === undefined) return [];
    const model = typeof bucket.modelId === "string" ? bucket.modelId : "all models";
    const kind = typeof bucket.tokenType === "string" ? bucket.tokenType.toLowerCase() : "requests";
    const usedFraction = clampFraction(1 - remaining);
    const resetsAt = timeOf(bucket.resetTime);
    return [
      {
        id: `${model}:${kind}`,
        label: `daily ${model} ${kind}`,
        scope: { provider: account.provider, credentialId: account.id, account: account.label },
        window: { id: "day", label: "day", durationMs: 24 * HOUR, ...(resetsAt ? { resetsAt } : {}) },
        amount: { usedFraction, remainingFraction: remaining, unit: "percent" },
        status: statusOf(usedFraction),
      },
    ];
  });
}

async function readJson(response: Response): Promise<unknown> {
  // Chunked answers too are cut off at the limit, not read whole first.
  const text = await readLimitedText(response, MAX_BODY_BYTES).catch((error) => {
    throw error instanceof BodyTooLarge ? new Error(`the answer is over the ${MAX_BODY_BYTES} bytes a usage answer may be`) : error;
  });
  return JSON.parse(text);
}

/** The request each provider's usage endpoint takes, with the token it checks. */
function usageRequest(account: Account, url: string): Request {
  const { credential } = account;
  const json = { accept: "application/json" };
  switch (account.provider) {
    case "anthropic":
      return new Request(url, { headers: { ...json, authorization: `Bearer ${credential.access}`, "anthropic-beta": "oauth-2025-04-20" } });
    case "openai-codex":
      return new Request(url, {
        headers: { ...json, authorization: `Bearer ${credential.access}`, ...(credential.accountId ? { "chatgpt-account-id": credential.accountId } : {}), originator: "codex_cli_rs" },
      });
    case "github-copilot":
      // The GitHub token (kept as the refresh token), not the short-lived Copilot token.
      return new Request(url, { headers: { ...json, ...COPILOT_HEADERS, authorization: `token ${credential.refresh}` } });
    case "google-gemini-cli":
      return new Request(url, {
        method: "POST",
        headers: { ...json, "content-type": "application/json", authorization: `Bearer ${credential.access}` },
        body: JSON.stringify(credential.projectId ? { project: credential.projectId } : {}),
      });
  }
}

const LIMITS_OF: Record<UsageProvider, (account: Account, body: unknown) => Limit[]> = {
  anthropic: anthropicLimits,
  "openai-codex": (account, body) => codexLimits(account, body),
  "github-copilot": copilotLimits,
  "google-gemini-cli": geminiLimits,
};

/**
 * Asks the account's provider how much of its limits is used. A failure is a report with a note
 * saying why (the endpoint's status, or that it could not be reached), never an exception: one
 * account's trouble does not hide the others.
 */
export async function fetchAccountUsage(account: Account, env: Env = process.env, now = Date.now()): Promise<UsageReport> {
  const base: UsageReport = { provider: account.provider, fetchedAt: now, limits: [], metadata: { account: account.label, credentialId: account.id } };
  const url = endpointsOf(oauthProvider(account.provider)!, env).usageUrl!;
  if (account.provider === "github-copilot" && account.credential.refresh === REMOTE_REFRESH_SENTINEL) {
    return { ...base, notes: ["the GitHub token stays with the auth broker, so the Copilot quota can be read only there"] };
  }
  try {
    const response = await fetch(usageRequest(account, url), { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      const hint = response.status === 401 || response.status === 403 ? " (log in again with `omp auth login " + account.provider + "`)" : "";
      return { ...base, notes: [`${url} answered ${response.status}${hint}`] };
    }
    const limits = LIMITS_OF[account.provider](account, await readJson(response));
    return limits.length > 0 ? { ...base, limits } : { ...base, notes: ["the provider reported no limits for this account"] };
  } catch (error) {
    return { ...base, notes: [`${url} could not be read: ${describeError(error)}`] };
  }
}
