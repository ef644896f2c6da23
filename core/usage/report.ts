import { type StoredCredential, accountLabel } from "../auth/credential.ts";
import { freshCredential } from "../auth/fresh.ts";
import { openCredentialSource } from "../broker/credential-source.ts";
import type { LocalCredentialSource } from "../auth/local-source.ts";
import type { BrokerCredentialSource } from "../broker/client.ts";
import { usageReports } from "../broker/usage.ts";
import { UsageResponse, type UsageReport } from "../broker/wire.ts";
import { describeError } from "../errors/omp-error.ts";
import { type UsageLog, openAgentUsage } from "./usage-db.ts";
import { type Account, fetchAccountUsage, isUsageProvider } from "./limits.ts";

type Env = NodeJS.ProcessEnv;

/** Tokens and cost of one model over a period, from omp's usage store. */
export interface ModelTotals {
  provider: string;
  model: string;
  requests: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

export interface UsageOverview {
  generatedAt: number;
  /** `local` (this machine's vault) or `broker`. */
  credentials: "local" | "broker" | "none";
  /** Each subscription account's limits, as its provider reports them. */
  accounts: UsageReport[];
  /** Limits met and blocks in force that the vault or the broker knows of. */
  known: UsageReport[];
  /** What omp's own records hold, per model: requests on API keys and subscriptions alike. */
  recorded: { today: ModelTotals[]; week: ModelTotals[] };
  notes: string[];
}

/** The subscription logins of the vault, with tokens refreshed when due. */
async function localAccounts(source: LocalCredentialSource, env: Env, notes: string[]): Promise<Account[]> {
  const rows = source.store.active().filter((row) => row.credential.type === "oauth" && isUsageProvider(row.provider));
  return Promise.all(
    rows.map(async (row): Promise<Account> => {
      let current: StoredCredential = row;
      try {
        current = await freshCredential(source.store, row, { env });
      } catch (error) {
        notes.push(`${row.provider} #${row.id}: the token could not be refreshed (${describeError(error)}); asked with the old one`);
      }
      return accountOf(current);
    }),
  );
}

function accountOf(row: { id: number; provider: string; credential: StoredCredential["credential"] }): Account {
  const credential = row.credential as Extract<StoredCredential["credential"], { type: "oauth" }>;
  return { id: row.id, provider: row.provider as Account["provider"], label: accountLabel(credential, row.id), credential };
}

/** The broker's subscription logins (its snapshot holds access tokens, never refresh tokens) and what it knows of their usage. */
async function brokerAccounts(source: BrokerCredentialSource, notes: string[]): Promise<{ accounts: Account[]; known: UsageReport[] }> {
  await source.ready();
  const accounts = source
    .entries()
    .filter((entry) => entry.credential.type === "oauth" && isUsageProvider(entry.provider))
    .map((entry) => accountOf(entry));
  let known: UsageReport[] = [];
  try {
    const parsed = UsageResponse.safeParse(await source.request("GET", "/v1/usage", UsageResponse));
    if (parsed.success) known = parsed.data.reports;
    else notes.push("the auth broker's usage answer was not understood");
  } catch (error) {
    notes.push(describeError(error));
  }
  return { accounts, known };
}

function totals(log: UsageLog, since: string): ModelTotals[] {
  const byModel = new Map<string, ModelTotals>();
  for (const row of log.since(since)) {
    const key = `${row.provider}/${row.model}`;
    const sum = byModel.get(key) ?? { provider: row.provider, model: row.model, requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
    sum.requests += row.requests;
    sum.input += row.input_tokens;
    sum.output += row.output_tokens;
    sum.cacheRead += row.cache_read_tokens;
    sum.cacheWrite += row.cache_write_tokens;
    sum.cost += row.cost_usd;
    byModel.set(key, sum);
  }
  return [...byModel.values()].sort((a, b) => b.cost - a.cost || b.output - a.output);
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Today's and the last seven days' totals per model from the usage store (empty when omp has recorded nothing yet). */
export function recordedUsage(env: Env, now = Date.now()): UsageOverview["recorded"] {
  const log = openAgentUsage(env);
  if (!log) return { today: [], week: [] };
  try {
    return { today: totals(log, dayOf(now)), week: totals(log, dayOf(now - 6 * 86_400_000)) };
  } finally {
    log.close();
  }
}

/**
 * Everything `omp usage` and `/usage` show: each subscription account's limits from its provider,
 * what the vault or broker knows of limits met, and omp's own token and cost records. `only`
 * limits the accounts asked to one provider (the status line asks for the model's).
 */
export async function usageOverview(env: Env = process.env, options: { only?: string; recorded?: boolean } = {}): Promise<UsageOverview> {
  const now = Date.now();
  const notes: string[] = [];
  const source = openCredentialSource(env);
  let accounts: Account[] = [];
  let known: UsageReport[] = [];
  try {
    if (source?.kind === "broker") ({ accounts, known } = await brokerAccounts(source as BrokerCredentialSource, notes));
    else if (source) {
      const local = source as LocalCredentialSource;
      accounts = await localAccounts(local, env, notes);
      known = usageReports(local.store, now).reports;
    }
  } finally {
    source?.close();
  }
  if (options.only) accounts = accounts.filter((account) => account.provider === options.only);
  const reports = await Promise.all(accounts.map((account) => fetchAccountUsage(account, env, now)));
  return {
    generatedAt: now,
    credentials: source ? source.kind : "none",
    accounts: reports,
    known,
    recorded: options.recorded === false ? { today: [], week: [] } : recordedUsage(env, now),
    notes,
  };
}
