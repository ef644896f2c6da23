import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { maskKey } from "../../../core/auth/mask.ts";
import { AUTH_SCHEMA_VERSION, CredentialStore, CredentialStoreError } from "../../../core/auth/store.ts";
import { OmpError } from "../../../core/errors/omp-error.ts";
import { scratchDir } from "../config/scratch.ts";

const ANTHROPIC = "sk-ant-api03-Xq7vT2mK9pL4wR8sN1bY6cZ3hJ5fG0dA-a1b2";
const OPENAI_OLD = "sk-proj-oldoldoldoldoldoldoldold1111";
const OPENAI_NEW = "sk-proj-newnewnewnewnewnewnewnew2222";

function openFresh() {
  const dir = join(scratchDir("omp-auth-"), "agent");
  const path = join(dir, "agent.db");
  return { dir, path, store: CredentialStore.open(path) };
}

/**
 * A vault as the original omp (@oh-my-pi/pi-coding-agent 18.x) lays it out at `version`: its
 * tables as its sqlite-credential-store.ts creates them, an API key and a ChatGPT login. The
 * e2e test (test/e2e/original-home.test.ts) has the original itself write one.
 */
function originalStore(version: number) {
  const path = join(scratchDir("omp-auth-"), "agent.db");
  const db = new Database(path);
  db.run("PRAGMA journal_mode=WAL");
  db.run("CREATE TABLE auth_schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
  db.run("CREATE TABLE cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL)");
  db.run("CREATE TABLE usage_history (id INTEGER PRIMARY KEY AUTOINCREMENT, recorded_at INTEGER NOT NULL, provider TEXT NOT NULL, account_key TEXT NOT NULL, limit_id TEXT NOT NULL, label TEXT NOT NULL)");
  db.run(`CREATE TABLE auth_credentials (id INTEGER PRIMARY KEY AUTOINCREMENT, provider TEXT NOT NULL, credential_type TEXT NOT NULL, data TEXT NOT NULL,
    disabled_cause TEXT DEFAULT NULL, identity_key TEXT DEFAULT NULL, created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s','now') AS INTEGER)), updated_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s','now') AS INTEGER)))`);
  db.run("CREATE TABLE auth_credential_blocks (credential_id INTEGER NOT NULL, provider_key TEXT NOT NULL, block_scope TEXT NOT NULL DEFAULT '', blocked_until_ms INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (credential_id, provider_key, block_scope))");
  db.run("CREATE TABLE auth_credential_refresh_leases (credential_id INTEGER PRIMARY KEY, owner TEXT NOT NULL, expires_at_ms INTEGER NOT NULL, updated_at INTEGER NOT NULL)");
  db.run("INSERT INTO auth_schema_version (id, version) VALUES (1, ?)", [version]);
  db.run("INSERT INTO auth_credentials (provider, credential_type, data) VALUES ('anthropic', 'api_key', ?)", [JSON.stringify({ key: ANTHROPIC })]);
  db.run("INSERT INTO auth_credentials (provider, credential_type, data, identity_key) VALUES ('openai-codex', 'oauth', ?, 'email:me@example.com|org:org-9')", [
    JSON.stringify({ access: "acc-1", refresh: "ref-1", expires: Date.now() - 1000, email: "me@example.com", orgId: "org-9" }),
  ]);
  db.close();
  return { path };
}

describe("credential store", () => {
  test("creates the dir 0700 and the database 0600, WAL mode", () => {
    const { dir, path, store } = openFresh();
    store.add("anthropic", ANTHROPIC);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    expect(db.query<{ version: number }, []>("SELECT version FROM auth_schema_version").get()?.version).toBe(AUTH_SCHEMA_VERSION);
    db.close();
  });

  test("a database made readable by others is tightened on open", () => {
    const { path, store } = openFresh();
    store.close();
    chmodSync(path, 0o644);
    CredentialStore.open(path).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("list masks keys and never returns them", () => {
    const { store } = openFresh();
    store.add("anthropic", ANTHROPIC);
    store.add("openai", OPENAI_OLD);
    const listed = store.list();
    expect(listed.map((c) => [c.provider, c.type, c.masked])).toEqual([
      ["anthropic", "api_key", "sk-ant-…a1b2"],
      ["openai", "api_key", "sk-proj-…1111"],
    ]);
    const text = JSON.stringify(listed);
    expect(text).not.toContain(ANTHROPIC.slice(7, 20));
    expect(text).not.toContain("oldold");
    store.close();
  });

  test("get returns the most recently added active key; re-adding an old key makes it current", () => {
    const { store } = openFresh();
    expect(store.get("openai")).toBeUndefined();
    store.add("openai", OPENAI_OLD);
    store.add("openai", OPENAI_NEW);
    expect(store.get("openai")).toBe(OPENAI_NEW);
    expect(store.list()).toHaveLength(2);
    store.add("openai", OPENAI_OLD);
    expect(store.list()).toHaveLength(2);
    expect(store.get("openai")).toBe(OPENAI_OLD);
    expect(store.get("anthropic")).toBeUndefined();
    store.close();
  });

  test("remove disables the provider's keys without deleting the rows", () => {
    const { path, store } = openFresh();
    store.add("openai", OPENAI_OLD);
    store.add("openai", OPENAI_NEW);
    store.add("anthropic", ANTHROPIC);
    expect(store.remove("openai")).toBe(2);
    expect(store.remove("openai")).toBe(0);
    expect(store.get("openai")).toBeUndefined();
    expect(store.list().map((c) => c.provider)).toEqual(["anthropic"]);
    store.close();

    const db = new Database(path, { readonly: true });
    const rows = db.query<{ provider: string; disabled_cause: string | null }, []>("SELECT provider, disabled_cause FROM auth_credentials ORDER BY id").all();
    expect(rows).toEqual([
      { provider: "openai", disabled_cause: "removed by user" },
      { provider: "openai", disabled_cause: "removed by user" },
      { provider: "anthropic", disabled_cause: null },
    ]);
    db.close();
  });

  test("keys survive reopening, and two stores share the file", () => {
    const { path, store } = openFresh();
    const other = CredentialStore.open(path);
    store.add("google", "AIzaSyA1234567890abcdefghijklmnopqrstuv");
    expect(other.get("google")).toBe("AIzaSyA1234567890abcdefghijklmnopqrstuv");
    store.close();
    other.close();
    const reopened = CredentialStore.open(path);
    expect(reopened.list().map((c) => c.masked)).toEqual(["AIza…stuv"]);
    reopened.close();
  });

  test("the original omp's store (schema 7) is used as it is: keys read, logins refreshed in place, schema untouched", () => {
    const { path } = originalStore(7);
    const store = CredentialStore.open(path);
    expect(store.schema).toEqual({ owner: "original omp", version: 7, readOnly: false });
    expect(store.get("anthropic")).toBe(ANTHROPIC);
    const login = store.active("openai-codex")[0]!;
    expect(store.tryLease(login.id, "omp-test", 30_000)).toBe(true);
    const next = { type: "oauth" as const, access: "acc-2", refresh: "ref-2", expires: Date.now() + 3_600_000, email: "me@example.com" };
    expect(store.replaceOAuth(login.id, "ref-1", next)).toBe(true);
    store.releaseLease(login.id, "omp-test");
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.query<{ version: number }, []>("SELECT version FROM auth_schema_version").get()?.version).toBe(7);
    const data = JSON.parse(db.query<{ data: string }, [number]>("SELECT data FROM auth_credentials WHERE id = ?").get(login.id)!.data);
    // The original's own fields stay beside the new tokens.
    expect(data).toMatchObject({ access: "acc-2", refresh: "ref-2", email: "me@example.com", orgId: "org-9" });
    expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM usage_history").get()?.n).toBe(0);
    db.close();
  });

  test("a lease the original holds keeps omp from refreshing until it expires", () => {
    const { path } = originalStore(7);
    const db = new Database(path);
    db.run("INSERT INTO auth_credential_refresh_leases (credential_id, owner, expires_at_ms, updated_at) VALUES (2, 'original', ?, 0)", [Date.now() + 60_000]);
    db.close();
    const store = CredentialStore.open(path);
    expect(store.tryLease(2, "omp-test", 30_000)).toBe(false);
    store.close();
  });

  test("a store newer than anything known is read, never written, with one warning", () => {
    const { path } = originalStore(9);
    const before = readFileSync(path);
    const store = CredentialStore.open(path);
    expect(store.schema).toEqual({ owner: "unknown newer omp", version: 9, readOnly: true });
    expect(store.get("anthropic")).toBe(ANTHROPIC);
    expect(() => store.add("openai", OPENAI_NEW)).toThrow("is only read (credential schema 9");
    store.close();
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  test("a damaged store says so, naming the file and the way out", () => {
    const dir = scratchDir("omp-auth-");
    const path = join(dir, "agent.db");
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    let caught: unknown;
    try {
      CredentialStore.open(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CredentialStoreError);
    expect((caught as CredentialStoreError).kind).toBe("damaged");
    expect((caught as Error).message).toContain(`the credential store ${path} is damaged`);
    expect((caught as Error).message).toContain(`mv ${path} ${path}.damaged`);
  });

  test("a file that is not a database gives an error naming it", () => {
    const dir = scratchDir("omp-auth-");
    const path = join(dir, "agent.db");
    mkdirSync(path);
    expect(() => CredentialStore.open(path)).toThrow(`cannot open the credential store ${path}`);
  });
});

describe("maskKey", () => {
  test("keeps the kind prefix and the last four characters of long keys", () => {
    expect(maskKey("sk-ant-api03-abcdefghijklmnopqrstuvwxyz-a1b2")).toBe("sk-ant-…a1b2");
    expect(maskKey("ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toBe("ghp_…6789");
    expect(maskKey("0123456789abcdef0123456789abcdef")).toBe("…cdef");
    // Short keys show no characters at all: four of ten would give too much away.
    expect(maskKey("short-key1")).toBe("…");
    expect(maskKey("sk-")).toBe("…");
  });
});
