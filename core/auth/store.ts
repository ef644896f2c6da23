import { Database } from "bun:sqlite";
import { chmodSync, closeSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { agentDbPath, displayPath, ensurePrivateDir } from "../paths.ts";
import { maskKey } from "./mask.ts";

/** Bumped when the tables change; a database from a newer omp is refused rather than misread. */
export const AUTH_SCHEMA_VERSION = 1;
/** How long a writer waits for another omp process holding the database lock. */
const BUSY_TIMEOUT_MS = 5000;

/** A stored credential as it may be shown: never the key itself. */
export interface CredentialSummary {
  id: number;
  provider: string;
  type: "api_key";
  /** `sk-ant-…a1b2` */
  masked: string;
  /** Unix seconds. */
  createdAt: number;
  updatedAt: number;
}

interface CredentialRow {
  id: number;
  provider: string;
  data: string;
  created_at: number;
  updated_at: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS auth_schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS auth_credentials (
  id INTEGER PRIMARY KEY,
  provider TEXT NOT NULL,
  credential_type TEXT NOT NULL,
  data TEXT NOT NULL,
  disabled_cause TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS auth_credentials_provider ON auth_credentials (provider, disabled_cause);
`;

const ACTIVE_KEYS =
  "SELECT id, provider, data, created_at, updated_at FROM auth_credentials WHERE disabled_cause IS NULL AND credential_type = 'api_key'";

const now = () => Math.floor(Date.now() / 1000);

/**
 * API keys in `~/.omp/agent/agent.db`. The file is the user's alone (0600 in a 0700 dir, enforced
 * on every open since a copy or an editor may have widened it); WAL and a busy timeout let several
 * omp processes share it. Removal is a soft delete (`disabled_cause`), which keeps an audit trail.
 */
export class CredentialStore {
  private constructor(
    private readonly db: Database,
    readonly path: string,
  ) {}

  static open(path: string = agentDbPath()): CredentialStore {
    ensurePrivateDir(dirname(path));
    let db: Database | undefined;
    try {
      // Create the file ourselves so it is 0600 from its first byte; SQLite would use the umask.
      closeSync(openSync(path, "a", 0o600));
      restrictMode(path);
      db = new Database(path, { strict: true });
      db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.run("PRAGMA journal_mode = WAL");
      db.run("PRAGMA synchronous = NORMAL");
      const store = new CredentialStore(db, path);
      store.migrate();
      // The -wal and -shm files exist now; SQLite gives them the database's mode, but an old pair may be wider.
      restrictMode(`${path}-wal`);
      restrictMode(`${path}-shm`);
      return store;
    } catch (error) {
      db?.close();
      if (error instanceof OmpError) throw error;
      throw new OmpError(`cannot open the credential store ${displayPath(path)}: ${describeError(error)}`, { cause: error });
    }
  }

  private migrate(): void {
    this.db.transaction(() => {
      this.db.run(SCHEMA);
      const row = this.db.query<{ version: number }, []>("SELECT version FROM auth_schema_version WHERE id = 1").get();
      if (!row) {
        this.db.run("INSERT INTO auth_schema_version (id, version) VALUES (1, ?)", [AUTH_SCHEMA_VERSION]);
      } else if (row.version > AUTH_SCHEMA_VERSION) {
        throw new OmpError(
          `${displayPath(this.path)} was written by a newer omp (credential schema ${row.version}, this one knows ${AUTH_SCHEMA_VERSION}); update omp`,
        );
      }
    })();
  }

  /**
   * Stores `key` as the provider's current key. A key that is already stored is not kept twice: its
   * old row is retired and a new one added, since recency is the row order (timestamps are seconds).
   */
  add(provider: string, key: string): CredentialSummary {
    const time = now();
    const data = JSON.stringify({ key });
    return this.db.transaction(() => {
      for (const row of this.activeRows(provider)) {
        if (parseKey(row.data) !== key) continue;
        this.db.run("UPDATE auth_credentials SET disabled_cause = 'added again', updated_at = ? WHERE id = ?", [time, row.id]);
      }
      const result = this.db.run(
        "INSERT INTO auth_credentials (provider, credential_type, data, created_at, updated_at) VALUES (?, 'api_key', ?, ?, ?)",
        [provider, data, time, time],
      );
      return summary({ id: Number(result.lastInsertRowid), provider, data, created_at: time, updated_at: time });
    })();
  }

  /** The active keys, masked, newest first within each provider. */
  list(): CredentialSummary[] {
    return this.db.query<CredentialRow, []>(`${ACTIVE_KEYS} ORDER BY provider, id DESC`).all().map(summary);
  }

  /** The provider's most recently added active key. */
  get(provider: string): string | undefined {
    const row = this.activeRows(provider)[0];
    return row ? parseKey(row.data) : undefined;
  }

  /** Every active key of the provider, newest first: the accounts the gateway spreads conversations over. */
  keys(provider: string): string[] {
    return this.activeRows(provider).flatMap((row) => parseKey(row.data) ?? []);
  }

  /** Disables every active key of the provider; returns how many. */
  remove(provider: string, cause = "removed by user"): number {
    return this.db.run("UPDATE auth_credentials SET disabled_cause = ?, updated_at = ? WHERE provider = ? AND disabled_cause IS NULL", [
      cause,
      now(),
      provider,
    ]).changes;
  }

  /** The JSON of the provider's active credential of another type than an API key (MCP OAuth state). */
  getCredential(provider: string, type: string): string | undefined {
    return this.db
      .query<{ data: string }, [string, string]>("SELECT data FROM auth_credentials WHERE provider = ? AND credential_type = ? AND disabled_cause IS NULL ORDER BY id DESC LIMIT 1")
      .get(provider, type)?.data;
  }

  /** Replaces the provider's credential of that type; the old one is deleted (a spent token is no audit trail worth keeping). */
  setCredential(provider: string, type: string, data: string): void {
    this.db.transaction(() => {
      this.db.run("DELETE FROM auth_credentials WHERE provider = ? AND credential_type = ?", [provider, type]);
      this.db.run("INSERT INTO auth_credentials (provider, credential_type, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?)", [provider, type, data, now(), now()]);
    })();
  }

  close(): void {
    this.db.close();
  }

  private activeRows(provider: string): CredentialRow[] {
    return this.db.query<CredentialRow, [string]>(`${ACTIVE_KEYS} AND provider = ? ORDER BY id DESC`).all(provider);
  }
}

function restrictMode(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

function parseKey(data: string): string | undefined {
  const parsed: unknown = JSON.parse(data);
  const key = (parsed as { key?: unknown } | null)?.key;
  return typeof key === "string" ? key : undefined;
}

function summary(row: CredentialRow): CredentialSummary {
  return {
    id: row.id,
    provider: row.provider,
    type: "api_key",
    masked: maskKey(parseKey(row.data) ?? ""),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
