// `omp auth-broker serve` and omp clients in broker mode, each in its own HOME, through the
// compiled binary: the HTTP API and its bearer, SSE, refresh single-flight across fifty triggers
// and across two brokers on one vault, the encrypted snapshot cache keeping a client working while
// the broker is down, graceful shutdown, CLIProxyAPI import and migrate.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, runAgent, workspace } from "../support/agent-harness.ts";
import { runOmp, tempDir } from "../support/omp.ts";
import { type RunningBroker, startBroker as startBrokerIn, stopBrokers } from "../support/broker.ts";
import { loginExpiring, loginViaBrowser } from "../support/oauth-login.ts";
import { startOAuthStandin } from "../support/oauth-standin.ts";

afterAll(stopBrokers);

const standin = await agentTestFile();
const oauth = await startOAuthStandin();
afterAll(() => oauth.close());

/** A broker whose OAuth endpoints are the stand-in authorization server. */
const startBroker = (home: string, env: Record<string, string> = {}) => startBrokerIn(home, { ...oauth.env(), ...env });
const anyOf = (value: unknown): any => value;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const clientEnv = (broker: RunningBroker, extra: Record<string, string> = {}) => ({ OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token, ANTHROPIC_BASE_URL: standin.url, ...extra });
const firstId = async (broker: RunningBroker): Promise<number> => (await (await fetch(`${broker.url}/v1/snapshot`, { headers: bearer(broker.token) })).json().then(anyOf)).credentials[0].id;
const refreshVia = (broker: RunningBroker, id: number) => fetch(`${broker.url}/v1/credential/${id}/refresh`, { method: "POST", headers: bearer(broker.token) }).then((response) => response.json().then(anyOf));
const refreshCount = () => oauth.tokenRequests.filter((request) => request.grant === "refresh_token").length;

describe("auth-broker serve", () => {
  test("bearer checks, health without auth, 400 naming the field, the token file 0600, refresh tokens never sent", async () => {
    const home = tempDir("omp-broker-");
    expect((await loginViaBrowser(oauth, home, "anthropic")).code).toBe(0);
    const refresh = oauth.issued.at(-1)!.refresh;
    const broker = await startBroker(home);
    expect(statSync(join(home, ".omp", "auth-broker.token")).mode & 0o777).toBe(0o600);
    expect(broker.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse((await runOmp(["auth-broker", "token", "--json"], { home })).stdout)).toEqual({ token: broker.token, path: join(home, ".omp", "auth-broker.token") });

    expect(await (await fetch(`${broker.url}/v1/healthz`)).json().then(anyOf)).toMatchObject({ ok: true });
    for (const headers of [{}, bearer("wrong"), bearer(`${broker.token}x`)]) {
      const response = await fetch(`${broker.url}/v1/snapshot`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json().then(anyOf)).toEqual({ error: "missing or wrong bearer token", code: "unauthorized" });
    }
    const bad = await fetch(`${broker.url}/v1/credential`, { method: "POST", headers: bearer(broker.token), body: JSON.stringify({ provider: "openai", credential: { type: "api_key" } }) });
    expect(bad.status).toBe(400);
    expect((await bad.json().then(anyOf)).error).toContain("credential.key");

    const snapshot: any = await (await fetch(`${broker.url}/v1/snapshot`, { headers: bearer(broker.token) })).json();
    expect(snapshot.credentials).toMatchObject([{ provider: "anthropic", identityKey: "email:user@example.com", credential: { type: "oauth", refresh: "__remote__" } }]);
    expect(JSON.stringify(snapshot)).not.toContain(refresh);
    expect(snapshot.refresher).toMatchObject({ enabled: true, intervalMs: 60000, skewMs: 300000 });

    broker.child.kill("SIGTERM");
    expect(await broker.child.exited).toBe(0);
    expect(broker.output()).toContain("auth-broker stopped");
  });

  test("a client in another HOME runs the agent with the broker's login, keeps working from its encrypted cache with the broker down, and ignores a tampered cache", async () => {
    const brokerHome = tempDir("omp-broker-");
    expect((await loginViaBrowser(oauth, brokerHome, "anthropic")).code).toBe(0);
    const access = oauth.issued.at(-1)!.access;
    const broker = await startBroker(brokerHome);
    const { home, repo } = workspace();
    const env = clientEnv(broker);

    standin.setScript([{ text: "via broker" }, { text: "from the cache" }]);
    const first = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env });
    expect(first.stdout).toBe("via broker\n");
    expect(standin.requests.at(-1)!.headers.authorization).toBe(`Bearer ${access}`);
    const cache = join(home, ".omp", "cache", "auth-broker-snapshot.enc");
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(readFileSync(cache).toString("latin1")).not.toContain(access);

    const listed = await runOmp(["auth", "list"], { home, env });
    expect(listed.stdout).toContain("anthropic  user@example.com  (auth broker)");
    const refused = await runOmp(["auth", "add", "openai", "--key", "sk-proj-abcdefghijklmnopqrstuvwxyz0123"], { home, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`this omp uses the auth broker at ${broker.url}`);
    expect(refused.stderr).toContain("omp auth-broker migrate --from-local");

    broker.child.kill("SIGTERM");
    await broker.child.exited;
    const down = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env });
    expect(down.stdout).toBe("from the cache\n");

    const bytes = readFileSync(cache);
    bytes[bytes.length - 3]! ^= 0xff;
    writeFileSync(cache, bytes);
    const tampered = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env });
    expect(tampered.code).not.toBe(0);
    expect(tampered.stderr).toContain(`the auth broker at ${broker.url} cannot be reached`);

    const noToken = await runAgent(["-p", "hello"], { home, cwd: repo, env: { OMP_AUTH_BROKER_URL: broker.url } });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("~/.omp/auth-broker.token");
  });

  test("50 concurrent refresh triggers make exactly one token request", async () => {
    const home = tempDir("omp-broker-");
    await loginExpiring(oauth, home, "openai-codex");
    const before = refreshCount();
    oauth.refreshDelayMs = 500;
    try {
      const broker = await startBroker(home, { OMP_AUTH_BROKER_REFRESH_INTERVAL_MS: "3600000" });
      const id = await firstId(broker);
      const answers = await Promise.all(Array.from({ length: 50 }, () => refreshVia(broker, id)));
      expect(refreshCount() - before).toBe(1);
      const fresh = oauth.issued.at(-1)!.access;
      for (const answer of answers) expect(answer.entry.credential.access).toBe(fresh);
      const missing = await fetch(`${broker.url}/v1/credential/9999/refresh`, { method: "POST", headers: bearer(broker.token) });
      expect(missing.status).toBe(404);
      expect(await missing.json().then(anyOf)).toEqual({ error: "no active credential 9999", code: "credential_not_found", id: 9999 });
    } finally {
      oauth.refreshDelayMs = 0;
    }
  });

  test("two brokers on one vault never double-refresh and see each other's changes", async () => {
    const home = tempDir("omp-broker-");
    await loginExpiring(oauth, home, "anthropic");
    const before = refreshCount();
    oauth.refreshDelayMs = 300;
    try {
      const [one, two] = await Promise.all([startBroker(home), startBroker(home)]);
      const id = await firstId(one!);
      const answers = await Promise.all([one!, two!, one!, two!].map((broker) => refreshVia(broker, id)));
      expect(refreshCount() - before).toBe(1);
      expect(new Set(answers.map((answer) => answer.entry.credential.access)).size).toBe(1);

      const added = await fetch(`${one!.url}/v1/credential`, {
        method: "POST",
        headers: { ...bearer(one!.token), "content-type": "application/json" },
        body: JSON.stringify({ provider: "openai", credential: { type: "api_key", key: "sk-proj-sharedsharedsharedshared0001" } }),
      });
      expect(added.status).toBe(200);
      const seen: any = await (await fetch(`${two!.url}/v1/snapshot`, { headers: bearer(two!.token) })).json();
      expect(seen.credentials.map((entry: { provider: string }) => entry.provider).sort()).toEqual(["anthropic", "openai"]);
    } finally {
      oauth.refreshDelayMs = 0;
    }
  });

  test("the SSE stream sends the snapshot, then entry and removed events with a rising generation", async () => {
    const home = tempDir("omp-broker-");
    const broker = await startBroker(home, { OMP_AUTH_BROKER_KEEPALIVE_MS: "200" });
    const response = await fetch(`${broker.url}/v1/snapshot/stream`, { headers: bearer(broker.token) });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    let text = "";
    const events: any[] = [];
    const next = async (count: number) => {
      while (events.length < count) {
        const { value } = await reader.read();
        text += new TextDecoder().decode(value);
        let end: number;
        while ((end = text.indexOf("\n\n")) >= 0) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          if (frame.startsWith("data: ")) events.push(JSON.parse(frame.slice(6)));
          else if (frame.startsWith(": keepalive")) events.push({ kind: "keepalive" });
        }
      }
    };
    await next(1);
    expect(events[0]).toMatchObject({ kind: "snapshot", credentials: [] });
    const post = await fetch(`${broker.url}/v1/credential`, {
      method: "POST",
      headers: { ...bearer(broker.token), "content-type": "application/json" },
      body: JSON.stringify({ provider: "groq", credential: { type: "api_key", key: "gsk_streamstreamstreamstream01" } }),
    });
    const id = (await post.json().then(anyOf)).entries[0].id;
    await fetch(`${broker.url}/v1/credential/${id}/disable`, { method: "POST", headers: bearer(broker.token), body: JSON.stringify({ cause: "rotated" }) });
    await next(4);
    const changes = events.filter((event) => event.kind === "entry" || event.kind === "removed");
    expect(changes.map((event) => event.kind)).toEqual(["entry", "removed"]);
    expect(changes[1].generation).toBe(changes[0].generation + 1);
    expect(events.some((event) => event.kind === "keepalive")).toBe(true);
    await reader.cancel();
  });
});

describe("import and migrate", () => {
  test("CLIProxyAPI files are imported; migrate uploads a client's local keys once", async () => {
    const brokerHome = tempDir("omp-broker-");
    const dir = join(brokerHome, "cliproxy");
    mkdirSync(dir);
    writeFileSync(join(dir, "claude-a.json"), JSON.stringify({ type: "claude", access_token: "sk-ant-oat01-imported", refresh_token: "rt-imported", email: "a@example.com", expired: "2030-01-01T00:00:00Z" }));
    writeFileSync(join(dir, "gemini-b.json"), JSON.stringify({ type: "gemini", token: { access_token: "ya29.x", refresh_token: "1//rt", expiry: "2030-01-01T00:00:00Z" }, project_id: "proj-1", email: "b@example.com" }));
    writeFileSync(join(dir, "odd.json"), JSON.stringify({ type: "mystery" }));
    const imported = await runOmp(["auth-broker", "import", dir, "--json"], { home: brokerHome });
    expect(JSON.parse(imported.stdout).map((row: { result: string; provider?: string }) => [row.provider, row.result])).toEqual([
      ["anthropic", "imported"],
      ["google-gemini-cli", "imported"],
      [undefined, 'skipped: unknown type "mystery" (use --provider)'],
    ]);
    const broker = await startBroker(brokerHome);

    const clientHome = tempDir("omp-client-");
    const key = "sk-proj-migratemigratemigrate0001";
    expect((await runOmp(["auth", "add", "openai", "--key", key], { home: clientHome })).code).toBe(0);
    chmodSync(join(clientHome, ".omp", "agent"), 0o700);
    const env = clientEnv(broker);
    const migrated = await runOmp(["auth-broker", "migrate", "--from-local", "--json"], { home: clientHome, env });
    expect(JSON.parse(migrated.stdout)).toMatchObject([{ provider: "openai", result: "uploaded" }]);
    const again = await runOmp(["auth-broker", "migrate", "--from-local", "--json"], { home: clientHome, env });
    expect(JSON.parse(again.stdout)).toMatchObject([{ provider: "openai", result: "already on the broker" }]);
    const status = await runOmp(["auth-broker", "status", "--json"], { home: clientHome, env });
    expect(JSON.parse(status.stdout)).toMatchObject({ ok: true, credentials: 3, providers: ["anthropic", "google-gemini-cli", "openai"] });
  });
});
