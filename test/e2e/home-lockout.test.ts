// Issue 39 item 7: what a user's home holds that omp cannot take whole — a config.yml with a key
// omp does not know, an agent.db that is damaged or newer than anything known — never stops a
// run: one warning naming the file and the way out, and everything else works.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, providerCases, runAgent, workspace } from "../support/agent-harness.ts";
import { runOmp } from "../support/omp.ts";
import { legacyEncodeCwd } from "../../core/session/paths.ts";

const standin = await agentTestFile();
const anthropic = providerCases()[0]!;

function agentFile(home: string, name: string): string {
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  return join(home, ".omp", "agent", name);
}

describe("config.yml with a key omp does not know", () => {
  test("runs, config list and get work, and config unset removes the key", async () => {
    const { home, repo } = workspace();
    const config = agentFile(home, "config.yml");
    writeFileSync(config, "lastChangelogVersion: 18.2.3\nthinking: low\n");
    const fix = "omp: ~/.omp/agent/config.yml: lastChangelogVersion: unknown key";

    standin.setScript([{ text: "ran" }]);
    const run = await runAgent(["-p", "hello"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("ran\n");
    expect(run.stderr).toContain(fix);
    expect(run.stderr).toContain("(ignored; `omp config unset lastChangelogVersion` removes it)");

    const list = await runOmp(["config", "list"], { home });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^thinking\s+low\s+global/m);
    expect(list.stderr).toContain(fix);
    const get = await runOmp(["config", "get", "thinking"], { home });
    expect({ code: get.code, stdout: get.stdout }).toEqual({ code: 0, stdout: "low\n" });

    const unset = await runOmp(["config", "unset", "lastChangelogVersion"], { home });
    expect(unset.code).toBe(0);
    expect(unset.stdout).toBe("lastChangelogVersion removed from ~/.omp/agent/config.yml\n");
    expect(readFileSync(config, "utf8")).toBe("thinking: low\n");
    const clean = await runOmp(["config", "list"], { home });
    expect(clean.stderr).toBe("");
  });
});

describe("agent.db that omp cannot use", () => {
  test("a damaged vault: the environment's key works, and every door says which file and what to do", async () => {
    const { home, repo } = workspace();
    const db = agentFile(home, "agent.db");
    writeFileSync(db, Buffer.alloc(16384, 0x5a));
    const damaged = "omp: the credential store ~/.omp/agent/agent.db is damaged (file is not a database); move it aside (`mv ~/.omp/agent/agent.db ~/.omp/agent/agent.db.damaged`) and store your keys again with `omp auth login`";

    standin.setScript([{ text: "env key used" }]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-5-5", "hello"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("env key used\n");
    expect(modelRequests(standin)[0]!.headers["x-api-key"]).toBe(anthropic.key);

    // Without a key anywhere else the vault is asked, and its damage is what the user reads.
    const keyless = await runAgent(["-p", "--model", "anthropic/claude-sonnet-5-5", "hello"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url } });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain(damaged);
    expect(keyless.stderr).not.toContain("this is a bug");

    const list = await runOmp(["auth", "list"], { home });
    expect(list.stderr).toContain(damaged);
    const doctor = await runOmp(["doctor", "--json"], { home });
    expect(JSON.parse(doctor.stdout).credentials).toMatchObject({ state: "unusable" });
    expect(JSON.parse(doctor.stdout).credentials.error).toContain("is damaged");
    // Nothing was written over the damaged file: it is the user's to keep or move.
    expect(readFileSync(db).equals(Buffer.alloc(16384, 0x5a))).toBe(true);
  });

  test("a vault newer than anything known: its key is used, nothing is written, one warning", async () => {
    const { home, repo } = workspace();
    const path = agentFile(home, "agent.db");
    const db = new Database(path);
    db.run("CREATE TABLE auth_schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
    db.run("INSERT INTO auth_schema_version VALUES (1, 12)");
    db.run("CREATE TABLE auth_credentials (id INTEGER PRIMARY KEY AUTOINCREMENT, provider TEXT NOT NULL, credential_type TEXT NOT NULL, data TEXT NOT NULL, disabled_cause TEXT, identity_key TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, future_column TEXT)");
    db.run("INSERT INTO auth_credentials (provider, credential_type, data, created_at, updated_at) VALUES ('anthropic', 'api_key', ?, 0, 0)", [JSON.stringify({ key: anthropic.key })]);
    db.close();
    const before = readFileSync(path);

    standin.setScript([{ text: "stored key used" }]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-5-5", "hello"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("stored key used\n");
    expect(modelRequests(standin)[0]!.headers["x-api-key"]).toBe(anthropic.key);
    expect(run.stderr.match(/credential schema 12, newer than any omp known here/g)).toHaveLength(1);

    const add = await runOmp(["auth", "add", "openai"], { home });
    expect(add.code).not.toBe(0);
    expect(readFileSync(path).equals(before)).toBe(true);
    const doctor = await runOmp(["doctor"], { home });
    expect(doctor.stdout).toMatch(/credentials\s+~\/\.omp\/agent\/agent\.db: schema 12 of unknown newer omp, read only; reads anthropic API key/);
  });
});

describe("a damaged session of the original omp", () => {
  test("-r lists it as damaged, -c passes over it naming it and the way out, -r <it> says what is wrong", async () => {
    const { home, repo } = workspace();
    const dir = join(home, ".omp", "agent", "sessions", legacyEncodeCwd(repo, { home }));
    mkdirSync(dir, { recursive: true });
    const name = "2026-12-07T10-00-00-000Z_01a25000-0000-7000-8000-000000000000.jsonl";
    writeFileSync(join(dir, name), '{"type":"title","v":1,"title":"broken one","pad":"   "}\n{"type":"sess\n');
    const list = await runAgent(["-r"], { home, cwd: repo });
    expect(list.stdout).toContain(`damaged   ${join(dir, name).replace(home, "~")} (no session header on its first line, nor after the original omp's title line)`);
    const cont = await runAgent(["-c", "-p", "hi"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(cont.code).toBe(2);
    expect(cont.stderr).toContain(`${name}: damaged (no session header on its first line, nor after the original omp's title line); move it out of its folder to silence this`);
    expect(cont.stderr).toContain("no session to continue");
    const resume = await runAgent(["-r", "01a25000", "-p", "hi"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(resume.code).not.toBe(0);
    expect(resume.stderr).toContain(`${name} is not an omp session file (no session header on its first line, nor after the original omp's title line); resume another one`);
  });
});
