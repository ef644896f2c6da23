import type { Database } from "bun:sqlite";
import { chmodSync, existsSync } from "node:fs";
import { dirname } from "node:path";
import { ensurePrivateDir } from "../paths.ts";
import type { ListedModel, ProviderList } from "./model-lists.ts";

/** Lists older than this are fetched again, in the background. */
export const MODEL_LIST_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * The providers' model lists, cached in SQLite (`<agent dir>/model-lists.db`, 0600) so omp asks
 * each provider at most daily. Opened only when needed: bun:sqlite stays off the start-up path.
 */
export class ModelListCache {
  private constructor(private readonly db: Database) {}

  static open(path: string, create: boolean): ModelListCache | undefined {
    if (!create && !existsSync(path)) return undefined;
    ensurePrivateDir(dirname(path));
    const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
    const db = new Database(path, { create: true });
    chmodSync(path, 0o600);
    db.run("PRAGMA busy_timeout = 2000");
    db.run("CREATE TABLE IF NOT EXISTS model_lists (provider TEXT PRIMARY KEY, fetched_at INTEGER NOT NULL, models TEXT NOT NULL)");
    return new ModelListCache(db);
  }

  all(): ProviderList[] {
    const rows = this.db.query("SELECT provider, fetched_at, models FROM model_lists ORDER BY provider").all() as { provider: string; fetched_at: number; models: string }[];
    return rows.flatMap((row) => {
      try {
        return [{ provider: row.provider, fetchedAt: row.fetched_at, models: JSON.parse(row.models) as ListedModel[] }];
      } catch {
        return [];
      }
    });
  }

  put(list: ProviderList): void {
    this.db.query("INSERT OR REPLACE INTO model_lists (provider, fetched_at, models) VALUES (?, ?, ?)").run(list.provider, list.fetchedAt, JSON.stringify(list.models));
  }

  close(): void {
    this.db.close();
  }
}
