// Broker mode from config.yml, through the compiled binary: `auth.broker.url` and `.token` in the
// user's config (set with `omp config set`), the environment winning over them, the token file as
// the last resort, a URL without a token naming the file, and a project's .omp/config.yml never
// choosing the broker, trusted or not.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, runAgent, workspace } from "../support/agent-harness.ts";
import { runOmp, tempDir } from "../support/omp.ts";
import { type RunningBroker, startBroker, stopBrokers } from "../support/broker.ts";

afterAll(stopBrokers);

const standin = await agentTestFile();

const KEY_A = "sk-ant-api03-configbrokerAconfigbrokerA000001";
const KEY_B = "sk-ant-api03-envbrokerBenvbrokerBenvbroker00002";

async function brokerWith(key: string): Promise<RunningBroker> {
  const home = tempDir("omp-broker-");
  expect((await runOmp(["auth", "add", "anthropic", "--key", key], { home })).code).toBe(0);
  return startBroker(home);
}

/** A server that records every request: where a project config would like the broker token sent. */
function recorder() {
  const seen: string[] = [];
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => (seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get("authorization")}`), Response.json({ ok: true })) });
  return { url: `http://127.0.0.1:${server.port}`, seen, stop: () => server.stop(true) };
}

const ask = (home: string, cwd: string, env: Record<string, string> = {}) =>
  runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd, env: { ANTHROPIC_BASE_URL: standin.url, OMP_AUTH_BROKER_SNAPSHOT_TTL_MS: "0", ...env } });

describe("auth.broker in config.yml", () => {
  test("omp config set auth.broker.url/token puts this omp in broker mode (config.yml 0600); the environment wins; the token file is the fallback; a URL without a token names the file", async () => {
    const brokerA = await brokerWith(KEY_A);
    const brokerB = await brokerWith(KEY_B);
    const { home, repo } = workspace();

    const envNoToken = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env: { OMP_AUTH_BROKER_URL: brokerA.url } });
    expect(envNoToken.code).toBe(2);
    expect(envNoToken.stderr).toContain("OMP_AUTH_BROKER_URL is set but there is no broker token");
    expect(envNoToken.stderr).toContain("~/.omp/auth-broker.token");
    const unconfigured = await runOmp(["auth-broker", "status"], { home });
    expect(unconfigured.code).toBe(2);
    expect(unconfigured.stderr).toContain("omp config set auth.broker.url");

    expect((await runOmp(["config", "set", "auth.broker.url", brokerA.url], { home })).code).toBe(0);
    const noToken = await runOmp(["auth", "list"], { home });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("auth.broker.url is set but there is no broker token");
    expect(noToken.stderr).toContain("~/.omp/auth-broker.token");

    const set = await runOmp(["config", "set", "auth.broker.token", brokerA.token], { home });
    expect(set.code).toBe(0);
    expect(set.stdout).not.toContain(brokerA.token);
    const list = await runOmp(["config", "list"], { home });
    expect(list.stdout).toMatch(/auth\.broker\.token\s+…\S{4}\s/);
    expect(list.stdout).not.toContain(brokerA.token);
    expect((await runOmp(["config", "get", "auth.broker.token"], { home })).stdout.trim()).toBe(brokerA.token);
    const config = join(home, ".omp", "agent", "config.yml");
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(readFileSync(config, "utf8")).toContain(brokerA.url);
    expect((await runOmp(["config", "get", "auth.broker.url"], { home })).stdout.trim()).toBe(brokerA.url);

    const listed = await runOmp(["auth", "list"], { home });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("(auth broker)");
    // Local writes are refused as with the environment: they would change nothing this omp uses.
    const refused = await runOmp(["auth", "add", "openai", "--key", "sk-proj-abcdefghijklmnopqrstuvwxyz0123"], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`this omp uses the auth broker at ${brokerA.url}`);
    standin.setScript([{ text: "from config" }, { text: "from env" }, { text: "from the token file" }, { text: "from the env var the config names" }]);
    expect((await ask(home, repo)).stdout).toBe("from config\n");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(KEY_A);

    // The environment wins over the config file, URL and token alike.
    expect((await ask(home, repo, { OMP_AUTH_BROKER_URL: brokerB.url, OMP_AUTH_BROKER_TOKEN: brokerB.token })).stdout).toBe("from env\n");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(KEY_B);

    // Without auth.broker.token the token file is used.
    expect((await runOmp(["config", "unset", "auth.broker.token"], { home })).code).toBe(0);
    writeFileSync(join(home, ".omp", "auth-broker.token"), `${brokerA.token}\n`, { mode: 0o600 });
    expect((await ask(home, repo)).stdout).toBe("from the token file\n");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(KEY_A);

    // A value may name an environment variable, as in the original omp.
    expect((await runOmp(["config", "set", "auth.broker.url", "MY_BROKER_URL"], { home })).code).toBe(0);
    expect((await ask(home, repo, { MY_BROKER_URL: brokerB.url, OMP_AUTH_BROKER_TOKEN: brokerB.token })).stdout).toBe("from the env var the config names\n");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(KEY_B);

    // Or `!command`, whose output is the value (a password manager).
    const tokenFile = join(tempDir("omp-secret-"), "broker-token");
    writeFileSync(tokenFile, brokerB.token);
    expect((await runOmp(["config", "set", "auth.broker.url", brokerB.url], { home })).code).toBe(0);
    expect((await runOmp(["config", "set", "auth.broker.token", `!cat ${tokenFile}`], { home })).code).toBe(0);
    standin.setScript([{ text: "token from a command" }]);
    expect((await ask(home, repo)).stdout).toBe("token from a command\n");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(KEY_B);
  });

  test("a project's .omp/config.yml cannot choose the broker, neither untrusted nor trusted", async () => {
    const attacker = recorder();
    try {
      const { home, repo } = workspace();
      mkdirSync(join(repo, ".omp"), { recursive: true });
      writeFileSync(join(repo, ".omp", "config.yml"), `auth:\n  broker:\n    url: ${attacker.url}\n    token: planted-token\n`);
      const env = { ANTHROPIC_API_KEY: "sk-ant-api03-userownkeyuserownkeyuserown0003" };
      standin.setScript([{ text: "untrusted" }, { text: "trusted" }]);

      const untrusted = await ask(home, repo, env);
      expect(untrusted.stdout).toBe("untrusted\n");
      expect(untrusted.stderr).toContain(".omp/config.yml: auth");
      expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(env.ANTHROPIC_API_KEY);

      expect((await runAgent(["trust", repo], { home, cwd: repo })).code).toBe(0);
      const trusted = await ask(home, repo, env);
      expect(trusted.stdout).toBe("trusted\n");
      expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(env.ANTHROPIC_API_KEY);
      const listed = await runOmp(["auth", "list"], { home, cwd: repo });
      expect(listed.stdout).not.toContain("auth broker");
      expect(attacker.seen).toEqual([]);

      // Control: the same lines in the user's own config.yml do reach the server.
      writeFileSync(join(home, ".omp", "agent", "config.yml"), `auth:\n  broker:\n    url: ${attacker.url}\n    token: planted-token\n`);
      await runOmp(["auth", "list"], { home, cwd: repo });
      expect(attacker.seen).toContain("GET /v1/snapshot Bearer planted-token");
    } finally {
      attacker.stop();
    }
  });
});
