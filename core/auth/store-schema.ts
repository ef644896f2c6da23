import type { Database } from "bun:sqlite";

/**
 * The vault's tables, one step per schema version: a database at version n runs steps n.. in one
 * transaction. Step 1 is the store omp shipped first (API keys only); later steps only add.
 */
export const MIGRATIONS: readonly ((db: Database) => void)[] = [
  (db) => {
    db.run(`CREATE TABLE IF NOT EXISTS auth_credentials (
      id INTEGER PRIMARY KEY,
      provider TEXT NOT NULL,
      credential_type TEXT NOT NULL,
      data TEXT NOT NULL,
      disabled_cause TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    )`);
    db.run("CREATE INDEX IF NOT EXISTS auth_credentials_provider ON auth_credentials (provider, disabled_cause)");
  },
  (db) => {
    // OAuth logins: one row per account, found again by identity when the user logs in anew.
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(auth_credentials)").all();
    if (!columns.some((column) => column.name === "identity_key")) db.run("ALTER TABLE auth_credentials ADD COLUMN identity_key TEXT");
    // Who may refresh a credential right now, across processes: a rotating refresh token must be used once.
    db.run(`CREATE TABLE IF NOT EXISTS auth_credential_refresh_leases (
      credential_id INTEGER PRIMARY KEY,
      owner TEXT NOT NULL,
      expires_at_ms INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    )`);
    // Usage limits reached: the credential is skipped until the provider said the limit resets.
    db.run(`CREATE TABLE IF NOT EXISTS auth_credential_blocks (
      credential_id INTEGER NOT NULL,
      provider_key TEXT NOT NULL,
      block_scope TEXT NOT NULL,
      blocked_until_ms INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (credential_id, provider_key, block_scope)
    )`);
    // Usage reports and similar, kept until they expire.
    db.run("CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER)");
  },
];
