// Long-running clients follow the auth broker live (`GET /v1/snapshot/stream`), through the compiled
// binary: a gateway in broker mode serves with a credential added on the broker and moves off one
// disabled there, without a restart; it rides out a broker restart (reconnecting, idle while the
// broker is down); an rpc session uses a provider key added after it started; a usage limit met
// in broker mode (by the agent or a gateway) shows in the broker's `GET /v1/usage` and `omp auth-broker status`.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { agentTestFile, runAgent, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { type GatewayProcess, gatewayHome, startGatewayProcess } from "../support/gateway.ts";
import { runOmp, tempDir } from "../support/omp.ts";
import { loginViaBrowser } from "../support/oauth-login.ts";
import { startOAuthStandin } from "../support/oauth-standin.ts";
import { type RunningBroker, startBroker, stopBrokers } from "../support/broker.ts";

afterAll(stopBrokers);

const standin = await agentTestFile();
const oauth = await startOAuthStandin();
const gateways: GatewayProcess[] = [];
afterAll(async () => {
  await oauth.close();
  for (const gateway of gateways) if (gateway.proc.exitCode === null) await gateway.stop();
});

const key = (name: string) => `sk-ant-api03-${name}${crypto.randomUUID().replaceAll("-", "")}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

async function post(broker: RunningBroker, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${broker.url}${path}`, { method: "POST", headers: bearer(broker.token), body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return response.json();
}
const addKey = async (broker: RunningBroker, provider: string, value: string): Promise<number> =>
  (await post(broker, "/v1/credential", { provider, credential: { type: "api_key", key: value } })).entries[0].id;
const disable = (broker: RunningBroker, id: number) => post(broker, `/v1/credential/${id}/disable`, { cause: "test" });

async function brokerHolding(home: string, provider: string, value: string, bind?: string): Promise<RunningBroker> {
  expect((await runOmp(["auth", "add", provider, "--key", value], { home })).code).toBe(0);
  return startBroker(home, {}, bind);
}

const ask = (gateway: GatewayProcess, text = "hello") =>
  new Anthropic({ apiKey: gateway.token, baseURL: gateway.url, maxRetries: 0 }).messages.create({ model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user", content: text }] });
const lastKey = () => standin.requests.at(-1)!.headers["x-api-key"];

/** CPU time the process used so far, in clock ticks (utime + stime of /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop(true);
  return port;
}

/** Asks until the answer came with `wanted` (the gateway has caught up), at most `ms`. */
async function askUntilKey(gateway: GatewayProcess, wanted: string, ms: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    standin.setScript([{ text: "poll" }]);
    await ask(gateway, "poll").catch(() => undefined);
    if (lastKey() === wanted) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`the gateway still used ${lastKey()} after ${ms} ms`);
    await Bun.sleep(250);
  }
}

describe("clients follow the broker live", () => {
  test("a gateway uses a credential added on the broker and moves off one disabled there, then rides out a broker restart without spinning", async () => {
    const brokerHome = tempDir("omp-broker-");
    const first = key("first");
    const port = await freePort();
    let broker = await brokerHolding(brokerHome, "anthropic", first, `127.0.0.1:${port}`);
    const home = gatewayHome();
    const gatewayEnv = { ANTHROPIC_BASE_URL: standin.url, OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token };
    let gateway = await startGatewayProcess(home, gatewayEnv);
    gateways.push(gateway);
    standin.setScript([{ text: "one" }]);
    await ask(gateway);
    expect(lastKey()).toBe(first);
    const firstId = (await (await fetch(`${broker.url}/v1/snapshot`, { headers: bearer(broker.token) })).json() as any).credentials[0].id;

    // Added on the broker, and the one this conversation was on disabled there: the same conversation moves to the new one.
    const second = key("second");
    const secondId = await addKey(broker, "anthropic", second);
    await disable(broker, firstId);
    expect(await askUntilKey(gateway, second, 3000)).toBeLessThan(3000);
    standin.setScript([{ text: "same conversation" }]);
    await ask(gateway);
    expect(lastKey()).toBe(second);

    // The broker goes away: the gateway keeps serving from what it has and waits on timers, not a busy loop.
    // With a client's stream open the broker still stops at once (its keepalive timers stop with it).
    const stopping = Date.now();
    broker.child.kill("SIGTERM");
    expect(await broker.child.exited).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(5000);
    standin.setScript([{ text: "broker down" }]);
    await ask(gateway);
    expect(lastKey()).toBe(second);
    const before = cpuTicks(gateway.proc.pid);
    await Bun.sleep(3000);
    const spent = cpuTicks(gateway.proc.pid) - before;
    expect(spent).toBeLessThan(15);

    // What the stream brought was written to the encrypted cache: a gateway started now, with the broker still down, serves with it.
    await gateway.stop();
    gateway = await startGatewayProcess(home, gatewayEnv);
    gateways.push(gateway);
    standin.setScript([{ text: "restarted from the cache" }]);
    await ask(gateway);
    expect(lastKey()).toBe(second);

    // Back on the same address with a change made while the gateway was cut off: it reconnects and catches up.
    broker = await startBroker(brokerHome, {}, `127.0.0.1:${port}`);
    const third = key("third");
    await addKey(broker, "anthropic", third);
    await disable(broker, secondId);
    await askUntilKey(gateway, third, 20_000);
    expect(gateway.stderr()).not.toContain(third);
  });

  test("an rpc session uses a provider key added on the broker after it started", async () => {
    const brokerHome = tempDir("omp-broker-");
    const broker = await brokerHolding(brokerHome, "anthropic", key("rpc"));
    const { home, repo } = workspace();
    const openaiKey = `omptest_oai_${crypto.randomUUID().replaceAll("-", "")}`;
    const rpc = new RpcProcess(["--model", "anthropic/claude-sonnet-4-5"], {
      home,
      cwd: repo,
      env: { ANTHROPIC_BASE_URL: standin.url, OPENAI_BASE_URL: `${standin.url}/v1`, OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token },
    });
    try {
      const refused = await rpc.send({ type: "set_model", provider: "openai", modelId: "gpt-6.2-sol" });
      expect(refused.success).toBe(false);
      expect(JSON.stringify(refused)).toContain("No API key for openai");

      await addKey(broker, "openai", openaiKey);
      let switched: any;
      for (let tries = 0; tries < 20; tries++) {
        switched = await rpc.send({ type: "set_model", provider: "openai", modelId: "gpt-6.2-sol" });
        if (switched.success) break;
        await Bun.sleep(100);
      }
      expect(switched.success).toBe(true);
      const mark = rpc.mark;
      standin.setScript([{ text: "hello from openai" }]);
      await rpc.send({ type: "prompt", message: "hi" });
      await rpc.waitFrame((frame) => frame.type === "agent_end", mark);
      expect(standin.requests.at(-1)!.headers.authorization).toBe(`Bearer ${openaiKey}`);
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });

  test("an rpc session whose login was refreshed on the broker since it started goes on with the new token when the old one is refused", async () => {
    const brokerHome = tempDir("omp-broker-");
    // Short-lived tokens and a fast sweep: the broker refreshes the login every second while the session runs.
    oauth.expiresIn = 200;
    try {
      expect((await loginViaBrowser(oauth, brokerHome, "anthropic")).code).toBe(0);
      const broker = await startBroker(brokerHome, { ...oauth.env(), OMP_AUTH_BROKER_REFRESH_INTERVAL_MS: "1000" });
      const { home, repo } = workspace();
      const rpc = new RpcProcess(["--model", "anthropic/claude-sonnet-4-5"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url, OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token } });
      try {
        const prompt = async (message: string) => {
          const mark = rpc.mark;
          await rpc.send({ type: "prompt", message });
          return rpc.waitFrame((frame) => frame.type === "agent_end", mark);
        };
        standin.setScript([{ text: "first" }]);
        await prompt("one");
        const used = standin.requests.at(-1)!.headers.authorization;
        const issuedBefore = oauth.issued.length;
        for (let waited = 0; oauth.issued.length < issuedBefore + 2 && waited < 10_000; waited += 100) await Bun.sleep(100);
        await Bun.sleep(300);

        const sent = standin.requests.length;
        standin.setScript([{ status: 401, errorBody: { type: "error", error: { type: "authentication_error", message: "OAuth token has expired" } } }, { text: "second" }]);
        const end = await prompt("two");
        expect(end.stopReason).toBe("stop");
        const [refused, retried] = standin.requests.slice(sent).map((request) => request.headers.authorization);
        expect(refused).toBe(used);
        expect(retried).not.toBe(used);
        expect(oauth.issued.slice(issuedBefore).map((token) => `Bearer ${token.access}`)).toContain(retried!);
      } finally {
        expect(await rpc.close()).toBe(0);
      }
    } finally {
      oauth.expiresIn = 3600;
    }
  });

  test("a usage limit met through broker mode blocks the credential for every client and shows in GET /v1/usage and `omp auth-broker status`", async () => {
    const brokerHome = tempDir("omp-broker-");
    const older = key("older");
    const newer = key("newer");
    const broker = await brokerHolding(brokerHome, "anthropic", older);
    const newerId = await addKey(broker, "anthropic", newer);
    const { home, repo } = workspace();
    const env = { ANTHROPIC_BASE_URL: standin.url, OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token };

    const empty: any = await (await fetch(`${broker.url}/v1/usage`, { headers: bearer(broker.token) })).json();
    expect(empty.reports).toEqual([]);

    const resetsAt = Math.floor(Date.now() / 1000) + 3600;
    const limit = { status: 429, errorBody: { type: "error", error: { type: "rate_limit_error", message: "usage limit reached", resets_at: resetsAt } } };
    const before = standin.requests.length;
    standin.setScript([limit, { text: "answered by the other account" }]);
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env });
    expect(run.stdout).toBe("answered by the other account\n");
    expect(standin.requests.slice(before).map((request) => request.headers["x-api-key"])).toEqual([newer, older]);

    const usage: any = await (await fetch(`${broker.url}/v1/usage`, { headers: bearer(broker.token) })).json();
    expect(usage.reports).toHaveLength(1);
    expect(usage.reports[0]).toMatchObject({
      provider: "anthropic",
      limits: [{ id: "usage-limit", scope: { provider: "anthropic", credentialId: newerId }, window: { resetsAt: resetsAt * 1000 }, status: "exhausted", amount: { usedFraction: 1 } }],
    });
    expect(JSON.stringify(usage)).not.toContain(newer);

    // The block is the broker's now: a client in another HOME starts on the account that still works.
    const other = workspace();
    const again = standin.requests.length;
    standin.setScript([{ text: "elsewhere" }]);
    expect((await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home: other.home, cwd: other.repo, env })).stdout).toBe("elsewhere\n");
    expect(standin.requests[again]!.headers["x-api-key"]).toBe(older);

    const status = await runOmp(["auth-broker", "status"], { home, env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`usage limit reached, resets ${new Date(resetsAt * 1000).toISOString()}`);
    const json = JSON.parse((await runOmp(["auth-broker", "status", "--json"], { home, env })).stdout);
    expect(json.usage[0].limits[0].status).toBe("exhausted");

    // The same through a gateway in broker mode: it moves the request to the other account and tells the broker.
    const gatewayBroker = await brokerHolding(tempDir("omp-broker-"), "anthropic", older);
    const gatewayNewerId = await addKey(gatewayBroker, "anthropic", newer);
    const gateway = await startGatewayProcess(gatewayHome(), { ANTHROPIC_BASE_URL: standin.url, OMP_AUTH_BROKER_URL: gatewayBroker.url, OMP_AUTH_BROKER_TOKEN: gatewayBroker.token });
    gateways.push(gateway);
    const sent = standin.requests.length;
    standin.setScript([limit, { text: "the gateway's other account" }]);
    await ask(gateway, "through the gateway");
    expect(standin.requests.slice(sent).map((request) => request.headers["x-api-key"])).toEqual([newer, older]);
    const seen: any = await (await fetch(`${gatewayBroker.url}/v1/usage`, { headers: bearer(gatewayBroker.token) })).json();
    expect(seen.reports).toMatchObject([{ provider: "anthropic", limits: [{ scope: { credentialId: gatewayNewerId }, status: "exhausted", window: { resetsAt: resetsAt * 1000 } }] }]);

    const bad = await fetch(`${broker.url}/v1/credential/${newerId}/block`, { method: "POST", headers: bearer(broker.token), body: JSON.stringify({ untilMs: "soon" }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toContain("untilMs");
  });
});
