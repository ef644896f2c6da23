// The credential vault through the compiled binary: concurrent writers, removal that erases the
// secret from the file's bytes, unknown providers, redaction of every stored secret, and the
// migration forward from the first schema.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, filesContaining, runAgent, workspace } from "../support/agent-harness.ts";
import { runOmp, tempDir } from "../support/omp.ts";

const standin = await agentTestFile();

const fakeKey = (tag: string) => `sk-proj-${tag}${crypto.randomUUID().replaceAll("-", "")}`;

async function addKey(home: string, provider: string, key: string) {
  const child = Bun.spawn([join(import.meta.dir, "..", "..", "dist", "omp"), "auth", "add", provider], {
    env: { PATH: process.env.PATH ?? "", HOME: home },
    stdin: new TextEncoder().encode(key),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

function dbBytes(home: string): string {
  const path = join(home, ".omp", "agent", "agent.db");
  return [path, `${path}-wal`].filter(existsSync).map((file) => readFileSync(file).toString("latin1")).join("");
}

describe("omp auth add / remove", () => {
  test("16 concurrent `omp auth add` all succeed and all keys are stored", async () => {
    const home = tempDir("omp-vault-");
    const keys = Array.from({ length: 16 }, (_, i) => fakeKey(`c${i}x`));
    const results = await Promise.all(keys.map((key, i) => addKey(home, i % 2 === 0 ? "openai" : "anthropic", key)));
    for (const result of results) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    const listed = await runOmp(["auth", "list", "--json"], { home });
    expect(JSON.parse(listed.stdout)).toHaveLength(16);
    const dir = join(home, ".omp", "agent");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "agent.db")).mode & 0o777).toBe(0o600);
  });

  test("remove erases the key from the database file and its WAL, keeping a record of the row", async () => {
    const home = tempDir("omp-vault-");
    const key = fakeKey("erase");
    const kept = fakeKey("keep");
    expect((await addKey(home, "openai", key)).code).toBe(0);
    expect((await addKey(home, "anthropic", kept)).code).toBe(0);
    expect(dbBytes(home)).toContain(key);
    const removed = await runOmp(["auth", "remove", "openai"], { home });
    expect(removed).toMatchObject({ code: 0, stdout: "removed 1 key for openai\n" });
    const bytes = dbBytes(home);
    expect(bytes).not.toContain(key);
    expect(bytes).not.toContain(key.slice(8, 30));
    expect(bytes).toContain(kept);
    const db = new Database(join(home, ".omp", "agent", "agent.db"), { readonly: true });
    expect(db.query("SELECT provider, disabled_cause FROM auth_credentials ORDER BY id").all()).toEqual([
      { provider: "openai", disabled_cause: "removed by user" },
      { provider: "anthropic", disabled_cause: null },
    ]);
    db.close();
  });

  test("an unknown provider is refused with the list of known ones; models.yml providers are known", async () => {
    const home = tempDir("omp-vault-");
    const refused = await addKey(home, "antropic", fakeKey("typo"));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unknown provider "antropic"; known providers: ');
    expect(refused.stderr).toContain("anthropic, ");
    expect(refused.stderr).toContain("openai-codex");
    expect(existsSync(join(home, ".omp", "agent", "agent.db"))).toBe(false);
    const removed = await runOmp(["auth", "remove", "antropic"], { home });
    expect(removed.code).toBe(2);
    expect(removed.stderr).toContain('unknown provider "antropic"');

    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    await Bun.write(
      join(home, ".omp", "agent", "models.yml"),
      "providers:\n  corp:\n    baseUrl: http://127.0.0.1:9/v1\n    api: openai-completions\n    apiKey: CORP_KEY\n    models:\n      - id: m1\n",
    );
    expect((await addKey(home, "corp", fakeKey("corp"))).code).toBe(0);
  });

  test("--api-key's help says it shows in ps and names the alternatives", async () => {
    const help = await runOmp(["--help"], { home: tempDir("omp-vault-") });
    expect(help.stdout.replace(/\s+/g, " ")).toContain("visible to other users in `ps`: prefer the provider's env var or `omp auth add`");
  });

  test("a database of the first schema (API keys only) is migrated forward and its keys still work", async () => {
    const home = tempDir("omp-vault-");
    const dir = join(home, ".omp", "agent");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const key = fakeKey("old");
    const db = new Database(join(dir, "agent.db"));
    db.run("CREATE TABLE auth_schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
    db.run("INSERT INTO auth_schema_version VALUES (1, 1)");
    db.run(
      "CREATE TABLE auth_credentials (id INTEGER PRIMARY KEY, provider TEXT NOT NULL, credential_type TEXT NOT NULL, data TEXT NOT NULL, disabled_cause TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)",
    );
    db.run("INSERT INTO auth_credentials (provider, credential_type, data, created_at, updated_at) VALUES ('openai', 'api_key', ?, 1, 1)", [JSON.stringify({ key })]);
    db.close();
    const listed = await runOmp(["auth", "list", "--json"], { home });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ provider: "openai", type: "api_key", masked: `sk-proj-…${key.slice(-4)}` }]);
    const after = new Database(join(dir, "agent.db"), { readonly: true });
    expect(after.query("SELECT version FROM auth_schema_version").get()).toEqual({ version: 2 });
    const tables = after.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((row) => row.name);
    expect(tables).toEqual(["auth_credential_blocks", "auth_credential_refresh_leases", "auth_credentials", "auth_schema_version", "cache"]);
    after.close();
  });
});

describe("redaction of stored and configured secrets", () => {
  test("a provider error body echoing another provider's stored key and a models.yml key is redacted on stderr and in the session", async () => {
    const { home, repo } = workspace();
    const stored = `omptest_stored_${crypto.randomUUID().replaceAll("-", "")}`;
    const configured = `omptest_conf_${crypto.randomUUID().replaceAll("-", "")}`;
    expect((await addKey(home, "openai", stored)).code).toBe(0);
    await Bun.write(join(home, ".omp", "agent", "models.yml"), `providers:\n  groq:\n    apiKey: ${configured}\n`);
    standin.setScript([{ status: 400, errorBody: { type: "error", error: { type: "invalid_request_error", message: `bad header: ${stored} and ${configured}` } } }]);
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], {
      home,
      cwd: repo,
      env: { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID()}` },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("bad header: [REDACTED] and [REDACTED]");
    expect(run.stderr).not.toContain(stored);
    expect(run.stderr).not.toContain(configured);
    expect(filesContaining([join(home, ".omp", "agent", "sessions")], stored)).toEqual([]);
    expect(filesContaining([join(home, ".omp", "agent", "sessions")], configured)).toEqual([]);
  });
});

describe("rotation across stored accounts", () => {
  test("a usage limit with a reset time blocks that credential and moves the request to the next; all blocked is a clear error", async () => {
    const { home, repo } = workspace();
    const older = `omptest_rot_a_${crypto.randomUUID().replaceAll("-", "")}`;
    const newer = `omptest_rot_b_${crypto.randomUUID().replaceAll("-", "")}`;
    expect((await addKey(home, "anthropic", older)).code).toBe(0);
    expect((await addKey(home, "anthropic", newer)).code).toBe(0);
    const resetsAt = Math.floor(Date.now() / 1000) + 3600;
    const limit = { status: 429, errorBody: { type: "error", error: { type: "rate_limit_error", message: "usage limit reached", resets_at: resetsAt } } };
    const env = { ANTHROPIC_BASE_URL: standin.url };
    const args = ["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"];

    const before = standin.requests.length;
    standin.setScript([limit, { text: "answered by the other account" }]);
    const first = await runAgent(args, { home, cwd: repo, env });
    expect(first.stdout).toBe("answered by the other account\n");
    const sent = standin.requests.slice(before).map((request) => request.headers["x-api-key"]);
    expect(sent).toEqual([newer, older]);

    // The block is kept in the vault: the next run starts on the account that still works.
    const again = standin.requests.length;
    standin.setScript([{ text: "still fine" }]);
    expect((await runAgent(args, { home, cwd: repo, env })).stdout).toBe("still fine\n");
    expect(standin.requests[again]!.headers["x-api-key"]).toBe(older);

    standin.setScript([limit]);
    const exhausted = await runAgent(args, { home, cwd: repo, env });
    expect(exhausted.code).not.toBe(0);
    expect(exhausted.stderr).toContain(`every stored anthropic credential has reached its usage limit; the earliest resets at ${new Date(resetsAt * 1000).toISOString()}`);
  });
});
