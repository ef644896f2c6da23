import { Database } from "bun:sqlite";
import { closeSync, existsSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Usage } from "../ai/messages.ts";
import { agentDir, ensurePrivateDir } from "../paths.ts";
import { foldUsageJournal, usageJournalPath } from "./journal.ts";

export const gatewayDbPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "auth-gateway.db");
/** The agent's own requests, in the same shape (client `agent`): `omp usage` and `omp stats` read it. */
export const agentUsageDbPath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "usage.db");

/** What a request's row adds up. */
export type RecordedUsage = Pick<Usage, "input" | "output" | "cacheRead" | "cacheWrite"> & { cost: { total: number } };

export interface UsageRow {
  day: string;
  client: string;
  provider: string;
  model: string;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
}

/**
 * Token use per day, client token (by label, never the token) and model, in SQLite: one row per
 * day, client and model, so the file stays small however many requests there are.
 */
export class UsageLog {
  private readonly db: Database;
  private readonly upsert;

  constructor(path: string) {
    ensurePrivateDir(dirname(path));
    closeSync(openSync(path, "a", 0o600));
    this.db = new Database(path, { strict: true });
    this.db.run("PRAGMA busy_timeout = 5000");
    this.db.run("PRAGMA journal_mode = WAL");
    // A row lost to a power cut is a few tokens of accounting; an fsync per request is latency for every client.
    this.db.run("PRAGMA synchronous = NORMAL");
    this.db.run(`CREATE TABLE IF NOT EXISTS usage (
      day TEXT NOT NULL, client TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
      requests INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0,
      input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
      cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0,
      cost_usd REAL NOT NULL DEFAULT 0,
      PRIMARY KEY (day, client, provider, model))`);
    this.upsert = this.db.prepare(`INSERT INTO usage VALUES ($day, $client, $provider, $model, 1, $errors, $input, $output, $cacheRead, $cacheWrite, $cost)
      ON CONFLICT (day, client, provider, model) DO UPDATE SET requests = requests + 1, errors = errors + $errors,
      input_tokens = input_tokens + $input, output_tokens = output_tokens + $output, cache_read_tokens = cache_read_tokens + $cacheRead,
      cache_write_tokens = cache_write_tokens + $cacheWrite, cost_usd = cost_usd + $cost`);
  }

  /** One request; `day` (YYYY-MM-DD) is today unless the request was journaled on another. */
  record(client: string, provider: string, model: string, usage: RecordedUsage, failed: boolean, day = new Date().toISOString().slice(0, 10)): void {
    this.upsert.run({
      day,
      client,
      provider,
      model,
      errors: failed ? 1 : 0,
      input: usage.input,
      output: usage.output,
      cacheRead: usage.cacheRead,
      cacheWrite: usage.cacheWrite,
      cost: usage.cost.total,
    });
  }

  /** Rows from `day` (YYYY-MM-DD) on. */
  since(day: string): UsageRow[] {
    return this.db.query<UsageRow, [string]>("SELECT * FROM usage WHERE day >= ? ORDER BY day, provider, model").all(day);
  }

  rows(client?: string): UsageRow[] {
    if (client === undefined) return this.db.query<UsageRow, []>("SELECT * FROM usage ORDER BY day, client, provider, model").all();
    return this.db.query<UsageRow, [string]>("SELECT * FROM usage WHERE client = ? ORDER BY day, provider, model").all(client);
  }

  close(): void {
    this.db.close();
  }
}

/** The agent's store with the replies journaled since it was last opened folded in (journal.ts); undefined when omp has recorded nothing yet. */
export function openAgentUsage(env: NodeJS.ProcessEnv = process.env): UsageLog | undefined {
  const path = agentUsageDbPath(env);
  const journal = usageJournalPath(env);
  if (!existsSync(path) && !existsSync(journal)) return undefined;
  const log = new UsageLog(path);
  foldUsageJournal(journal, log);
  return log;
}
