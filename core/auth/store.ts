import { Database } from "bun:sqlite";
import { chmodSync, closeSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { agentDbPath, displayPath, ensurePrivateDir } from "../paths.ts";
import { type Credential, type OAuthCredential, type StoredCredential, accountLabel, credentialData, identityKeyOf, parseCredential, secretsOf } from "./credential.ts";
import { warnUser } from "../errors/user-warnings.ts";
import { maskKey } from "./mask.ts";
import { MIGRATIONS } from "./store-schema.ts";

/** Bumped when the tables change. */
export const AUTH_SCHEMA_VERSION = MIGRATIONS.length;
/**
 * The original omp (`@oh-my-pi/pi-coding-agent` 18.x) keeps its vault in the same file, numbered
 * on from ours: its versions 3 to 7 have the tables this store uses (`identity_key`, leases, blocks,
 * cache) and more. Such a file is used as it is, its schema never touched; a higher version is
 * newer than anything known and is only read.
 */
export const ORIGINAL_SCHEMA_VERSION = 7;

/** Who wrote the store's schema, for `omp doctor`. */
export interface StoreSchema {
  owner: "omp" | "original omp" | "unknown newer omp";
  version: number;
  readOnly: boolean;
}

/** The store cannot be opened at all: damaged, unreadable or held locked. Every caller can go on without it. */
export class CredentialStoreError extends OmpError {
  constructor(
    readonly kind: "damaged" | "locked" | "unreadable",
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}

/** How to get past a store omp cannot open: keep it for the record and start a new one. */
export function storeRepair(path: string): string {
  const shown = displayPath(path);
  return `move it aside (\`mv ${shown} ${shown}.damaged\`) and store your keys again with \`omp auth login\`; keys in the environment, --api-key and models.yml work meanwhile`;
}
/** How long one statement waits for another omp process holding the database lock. */
const BUSY_TIMEOUT_MS = 5000;
/** Opening (WAL switch, migration) and writes are retried this often on SQLITE_BUSY, 100 ms·2^n apart. */
const BUSY_RETRIES = 5;

/** A stored credential as it may be shown: never the secret itself. */
export interface CredentialSummary {
  id: number;
  provider: string;
  type: "api_key" | "oauth";
  /** `sk-ant-…a1b2`, or the account for OAuth logins. */
  masked: string;
  email?: string;
  /** OAuth: when the access token expires, epoch ms. */
  expires?: number;
  /** Unix seconds. */
  createdAt: number;
  updatedAt: number;
}

interface CredentialRow {
  id: number;
  provider: string;
  credential_type: string;
  data: string;
  identity_key: string | null;
  created_at: number;
  updated_at: number;
}

const ACTIVE = "SELECT id, provider, credential_type, data, identity_key, created_at, updated_at FROM auth_credentials WHERE disabled_cause IS NULL";

const now = () => Math.floor(Date.now() / 1000);

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || /database is locked/.test(describeError(error));
}

/** Runs `body`, retrying while another process holds the lock past the busy timeout. */
function retryBusy<T>(path: string, body: () => T): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return body();
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (attempt >= BUSY_RETRIES) {
        throw new CredentialStoreError("locked", `the credential store ${displayPath(path)} stayed locked by another omp process; try again`, error);
      }
      Bun.sleepSync(100 * 2 ** attempt);
    }
  }
}

/**
 * The credential vault in `~/.omp/agent/agent.db`: API keys and OAuth logins. The file is the
 * user's alone (0600 in a 0700 dir, enforced on every open since a copy or an editor may have
 * widened it); WAL, a busy timeout and retries let many omp processes share it. Removing a
 * credential keeps its row for the record (`disabled_cause`) but erases the secret, with
 * secure_delete and a WAL checkpoint so that the freed bytes do not keep it.
 */
export class CredentialStore {
  private constructor(
    private readonly db: Database,
    readonly path: string,
    readonly schema: StoreSchema,
  ) {}

  /**
   * Opens the vault, creating it at omp's schema when new. Throws CredentialStoreError, which
   * says what is wrong with the file and how to get past it.
   */
  static open(path: string = agentDbPath()): CredentialStore {
    ensurePrivateDir(dirname(path));
    let db: Database | undefined;
    try {
      // Create the file ourselves so it is 0600 from its first byte; SQLite would use the umask.
      closeSync(openSync(path, "a", 0o600));
      restrictMode(path);
      db = new Database(path, { strict: true });
      const opened = db;
      opened.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      opened.run("PRAGMA secure_delete = ON");
      const version = retryBusy(path, () => recordedVersion(opened));
      if (version > ORIGINAL_SCHEMA_VERSION) {
        opened.close();
        db = undefined;
        return CredentialStore.openNewer(path, version);
      }
      retryBusy(path, () => opened.run("PRAGMA journal_mode = WAL"));
      opened.run("PRAGMA synchronous = NORMAL");
      const original = version > AUTH_SCHEMA_VERSION;
      const store = new CredentialStore(opened, path, { owner: original ? "original omp" : "omp", version: original ? version : AUTH_SCHEMA_VERSION, readOnly: false });
      if (!original) retryBusy(path, () => store.migrate());
      // The -wal and -shm files exist now; SQLite gives them the database's mode, but an old pair may be wider.
      restrictMode(`${path}-wal`);
      restrictMode(`${path}-shm`);
      return store;
    } catch (error) {
      db?.close();
      throw asStoreError(path, error);
    }
  }

  /** A store from a program newer than any omp known here: read, never written, said once. */
  private static openNewer(path: string, version: number): CredentialStore {
    const db = new Database(path, { readonly: true, strict: true });
    db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    warnUser(
      `${displayPath(path)} has credential schema ${version}, newer than any omp known here (up to ${ORIGINAL_SCHEMA_VERSION}): its keys are read but nothing is stored there (logins, refreshed tokens); update omp to write to it`,
    );
    return new CredentialStore(db, path, { owner: "unknown newer omp", version, readOnly: true });
  }

  private migrate(): void {
    this.db.transaction(() => {
      this.db.run("CREATE TABLE IF NOT EXISTS auth_schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
      const from = this.db.query<{ version: number }, []>("SELECT version FROM auth_schema_version WHERE id = 1").get()?.version ?? 0;
      // Another process may have moved the file on since it was looked at: theirs to keep.
      if (from > AUTH_SCHEMA_VERSION) return;
      for (const step of MIGRATIONS.slice(from)) step(this.db);
      if (from !== AUTH_SCHEMA_VERSION) this.db.run("INSERT OR REPLACE INTO auth_schema_version (id, version) VALUES (1, ?)", [AUTH_SCHEMA_VERSION]);
    }).immediate();
  }

  /** A write transaction taken up front (a deferred one that upgrades can fail at once under contention), retried while busy. */
  private write<T>(body: () => T): T {
    if (this.schema.readOnly) {
      throw new OmpError(`${displayPath(this.path)} is only read (credential schema ${this.schema.version} is newer than this omp knows); update omp to store credentials there`);
    }
    return retryBusy(this.path, () => this.db.transaction(body).immediate());
  }

  /**
   * Stores `key` as the provider's current key. A key that is already stored is not kept twice: its
   * old row is retired and a new one added, since recency is the row order (timestamps are seconds).
   */
  add(provider: string, key: string): CredentialSummary {
    return summary(this.upsert(provider, { type: "api_key", key }));
  }

  /**
   * Adds a credential, or updates the row of the same account (OAuth logins with an identity) or the
   * same key. Returns the stored row.
   */
  upsert(provider: string, credential: Credential): StoredCredential {
    const time = now();
    const identity = identityKeyOf(credential);
    return this.write(() => {
      const rows = this.activeRows(provider);
      const same = rows.find((row) => row.credential_type === credential.type && (identity !== null ? row.identity_key === identity : sameSecret(row, credential)));
      if (same && credential.type === "oauth") {
        this.db.run("UPDATE auth_credentials SET data = ?, updated_at = ? WHERE id = ?", [credentialData(credential), time, same.id]);
        return this.rowToStored({ ...same, data: credentialData(credential), updated_at: time })!;
      }
      if (same) this.db.run("UPDATE auth_credentials SET disabled_cause = 'added again', data = '{}', updated_at = ? WHERE id = ?", [time, same.id]);
      const result = this.db.run(
        "INSERT INTO auth_credentials (provider, credential_type, data, identity_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        [provider, credential.type, credentialData(credential), identity, time, time],
      );
      return { id: Number(result.lastInsertRowid), provider, credential, identityKey: identity, createdAt: time, updatedAt: time };
    });
  }

  /** The active credentials, masked, newest first within each provider. */
  list(): CredentialSummary[] {
    return this.active().map(summary);
  }

  /** Every active credential, newest first within each provider (or of `provider` only). */
  active(provider?: string): StoredCredential[] {
    const rows = provider === undefined ? this.db.query<CredentialRow, []>(`${ACTIVE} ORDER BY provider, id DESC`).all() : this.activeRows(provider);
    return rows.map((row) => this.rowToStored(row)).filter((row): row is StoredCredential => row !== null);
  }

  byId(id: number): StoredCredential | undefined {
    const row = this.db.query<CredentialRow, [number]>(`${ACTIVE} AND id = ?`).get(id);
    return row ? (this.rowToStored(row) ?? undefined) : undefined;
  }

  /** The provider's most recently added active API key. */
  get(provider: string): string | undefined {
    for (const row of this.active(provider)) if (row.credential.type === "api_key") return row.credential.key;
    return undefined;
  }

  /** Every active key of the provider, newest first: the accounts the gateway spreads conversations over. */
  keys(provider: string): string[] {
    return this.active(provider).flatMap((row) => (row.credential.type === "api_key" ? [row.credential.key] : []));
  }

  /** Every secret held by an active credential: what redaction must know. */
  secrets(): string[] {
    return this.active().flatMap((row) => secretsOf(row.credential));
  }

  /**
   * Stores a refreshed OAuth credential, but only while the row still holds the refresh token the
   * refresh started from: a refresh that lost a race never overwrites a newer one. Returns whether
   * it was stored.
   */
  replaceOAuth(id: number, previousRefresh: string, next: OAuthCredential): boolean {
    return this.write(() => {
      const row = this.db.query<CredentialRow, [number]>(`${ACTIVE} AND id = ?`).get(id);
      const current = row ? parseCredential(row.credential_type, row.data) : null;
      if (current?.type !== "oauth" || current.refresh !== previousRefresh) return false;
      this.db.run("UPDATE auth_credentials SET data = ?, updated_at = ? WHERE id = ?", [mergedData(row!.data, next), now(), id]);
      return true;
    });
  }

  /** Disables every active credential of the provider (of `type` only, when given) and erases their secrets; returns how many. */
  remove(provider: string, cause = "removed by user", type?: Credential["type"]): number {
    const changes = this.write(
      () =>
        this.db.run(
          "UPDATE auth_credentials SET disabled_cause = ?, data = '{}', updated_at = ? WHERE provider = ? AND disabled_cause IS NULL AND (? IS NULL OR credential_type = ?)",
          [cause, now(), provider, type ?? null, type ?? null],
        ).changes,
    );
    if (changes > 0) this.purgeFreedPages();
    return changes;
  }

  /** Disables one credential with the reason (a revoked login, a user's request) and erases its secret. */
  disable(id: number, cause: string): boolean {
    const changes = this.write(
      () => this.db.run("UPDATE auth_credentials SET disabled_cause = ?, data = '{}', updated_at = ? WHERE id = ? AND disabled_cause IS NULL", [cause, now(), id]).changes,
    );
    if (changes > 0) this.purgeFreedPages();
    return changes > 0;
  }

  /** Why a credential was disabled, or null while it is active (undefined: no such row). */
  disabledCause(id: number): string | null | undefined {
    return this.db.query<{ disabled_cause: string | null }, [number]>("SELECT disabled_cause FROM auth_credentials WHERE id = ?").get(id)?.disabled_cause;
  }

  /**
   * Takes the refresh lease of a credential for `owner` until `ttlMs` from now: only its holder may
   * refresh, in this process or any other sharing the file. An expired lease (its holder died) is
   * taken over.
   */
  tryLease(id: number, owner: string, ttlMs: number): boolean {
    const time = Date.now();
    return this.write(() => {
      const lease = this.db.query<{ owner: string; expires_at_ms: number }, [number]>("SELECT owner, expires_at_ms FROM auth_credential_refresh_leases WHERE credential_id = ?").get(id);
      if (lease && lease.owner !== owner && lease.expires_at_ms > time) return false;
      this.db.run("INSERT OR REPLACE INTO auth_credential_refresh_leases (credential_id, owner, expires_at_ms, updated_at) VALUES (?, ?, ?, ?)", [id, owner, time + ttlMs, now()]);
      return true;
    });
  }

  releaseLease(id: number, owner: string): void {
    this.write(() => this.db.run("DELETE FROM auth_credential_refresh_leases WHERE credential_id = ? AND owner = ?", [id, owner]));
  }

  /** Blocks a credential for a provider until `untilMs` (a usage limit that says when it resets). */
  block(id: number, providerKey: string, untilMs: number): void {
    this.write(() =>
      this.db.run(
        "INSERT OR REPLACE INTO auth_credential_blocks (credential_id, provider_key, block_scope, blocked_until_ms, updated_at) VALUES (?, ?, 'usage', ?, ?)",
        [id, providerKey, untilMs, now()],
      ),
    );
  }

  /** Active blocks, by credential id: the latest time each is blocked until. */
  blocks(): Map<number, number> {
    if (!this.hasTable("auth_credential_blocks")) return new Map();
    const rows = this.db
      .query<{ credential_id: number; until: number }, [number]>("SELECT credential_id, MAX(blocked_until_ms) AS until FROM auth_credential_blocks WHERE blocked_until_ms > ? GROUP BY credential_id")
      .all(Date.now());
    return new Map(rows.map((row) => [row.credential_id, row.until]));
  }

  cacheGet(key: string): string | undefined {
    if (!this.hasTable("cache")) return undefined;
    return this.db.query<{ value: string }, [string, number]>("SELECT value FROM cache WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)").get(key, Date.now())?.value;
  }

  cacheSet(key: string, value: string, ttlMs: number): void {
    this.write(() => this.db.run("INSERT OR REPLACE INTO cache (key, value, expires_at) VALUES (?, ?, ?)", [key, value, Date.now() + ttlMs]));
  }

  /** The JSON of the provider's active credential of another type than an API key (MCP OAuth state). */
  getCredential(provider: string, type: string): string | undefined {
    return this.db
      .query<{ data: string }, [string, string]>("SELECT data FROM auth_credentials WHERE provider = ? AND credential_type = ? AND disabled_cause IS NULL ORDER BY id DESC LIMIT 1")
      .get(provider, type)?.data;
  }

  /** Replaces the provider's credential of that type; the old one is deleted (a spent token is no audit trail worth keeping). */
  setCredential(provider: string, type: string, data: string): void {
    this.write(() => {
      this.db.run("DELETE FROM auth_credentials WHERE provider = ? AND credential_type = ?", [provider, type]);
      this.db.run("INSERT INTO auth_credentials (provider, credential_type, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?)", [provider, type, data, now(), now()]);
    });
  }

  close(): void {
    this.db.close();
  }

  private tables: Set<string> | undefined;

  /** A store omp did not lay out (a newer one, only read) may lack a table omp's own always has. */
  private hasTable(name: string): boolean {
    this.tables ??= new Set(this.db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((row) => row.name));
    return this.tables.has(name);
  }

  /**
   * Moves the WAL into the database (secure_delete zeroed the old cells there) and empties it, so no
   * copy of an erased secret stays in either file. Best effort: a reader in another process can hold
   * frames back, and the next removal or checkpoint finishes the job.
   */
  private purgeFreedPages(): void {
    try {
      this.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
  }

  private activeRows(provider: string): CredentialRow[] {
    return this.db.query<CredentialRow, [string]>(`${ACTIVE} AND provider = ? ORDER BY id DESC`).all(provider);
  }

  private rowToStored(row: CredentialRow): StoredCredential | null {
    const credential = parseCredential(row.credential_type, row.data);
    if (!credential) return null;
    return { id: row.id, provider: row.provider, credential, identityKey: row.identity_key, createdAt: row.created_at, updatedAt: row.updated_at };
  }
}

function sameSecret(row: CredentialRow, credential: Credential): boolean {
  const stored = parseCredential(row.credential_type, row.data);
  if (stored?.type === "api_key" && credential.type === "api_key") return stored.key === credential.key;
  if (stored?.type === "oauth" && credential.type === "oauth") return stored.refresh === credential.refresh;
  return false;
}

/** The schema version the file records; 0 for a new file. Reads only. */
function recordedVersion(db: Database): number {
  const table = db.query<{ present: number }, []>("SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = 'auth_schema_version'").get();
  if (!table) return 0;
  return db.query<{ version: number }, []>("SELECT version FROM auth_schema_version WHERE id = 1").get()?.version ?? 0;
}

function asStoreError(path: string, error: unknown): OmpError {
  if (error instanceof OmpError) return error;
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  const shown = displayPath(path);
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT" || code.startsWith("SQLITE_CORRUPT")) {
    return new CredentialStoreError("damaged", `the credential store ${shown} is damaged (${describeError(error)}); ${storeRepair(path)}`, error);
  }
  return new CredentialStoreError("unreadable", `cannot open the credential store ${shown}: ${describeError(error)}`, error);
}

/**
 * A refreshed login's JSON over the row's: fields omp does not know (the original omp keeps more)
 * stay as they were.
 */
function mergedData(previous: string, next: OAuthCredential): string {
  // The row was parsed as a login just before, so its data is a JSON object.
  const kept = JSON.parse(previous) as Record<string, unknown>;
  return JSON.stringify({ ...kept, ...JSON.parse(credentialData(next)) });
}

function restrictMode(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

export function summary(row: StoredCredential): CredentialSummary {
  const base = { id: row.id, provider: row.provider, createdAt: row.createdAt, updatedAt: row.updatedAt };
  if (row.credential.type === "api_key") return { ...base, type: "api_key", masked: maskKey(row.credential.key) };
  const { email, expires } = row.credential;
  return { ...base, type: "oauth", masked: accountLabel(row.credential, row.id), ...(email ? { email } : {}), expires };
}
