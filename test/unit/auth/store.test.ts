import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { maskKey } from "../../../core/auth/mask.ts";
import { AUTH_SCHEMA_VERSION, CredentialStore } from "../../../core/auth/store.ts";
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

  test("a database from a newer omp is refused", () => {
    const { path, store } = openFresh();
    store.close();
    const db = new Database(path);
    db.run("UPDATE auth_schema_version SET version = ?", [AUTH_SCHEMA_VERSION + 1]);
    db.close();
    expect(() => CredentialStore.open(path)).toThrow(OmpError);
    expect(() => CredentialStore.open(path)).toThrow("written by a newer omp");
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
