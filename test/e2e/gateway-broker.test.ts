// `omp auth-gateway serve` in broker mode, through the compiled binary: the gateway runs in a HOME
// with no credentials of its own and calls the provider with the key the auth broker (another
// HOME) holds; with the broker down it keeps serving, in memory and, after a restart, from its
// encrypted snapshot cache.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { runOmp, tempDir } from "../support/omp.ts";
import { type Standin, startStandin } from "../support/standin/index.ts";
import { type GatewayProcess, gatewayHome, startGatewayProcess } from "../support/gateway.ts";
import { startBroker, stopBrokers } from "../support/broker.ts";

afterAll(stopBrokers);

const BROKER_KEY = "sk-ant-api03-brokerheldbrokerheldbrokerheld0001";

let standin: Standin;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  standin = await startStandin();
});

afterAll(async () => {
  for (const gateway of gateways) if (gateway.proc.exitCode === null) await gateway.stop();
  await standin?.close();
});

async function startGateway(home: string, env: Record<string, string>): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(home, env);
  gateways.push(gateway);
  return gateway;
}

const ask = (gateway: GatewayProcess) =>
  new Anthropic({ apiKey: gateway.token, baseURL: gateway.url, maxRetries: 0 }).messages.create({ model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user", content: "hello" }] });
const textOf = (message: Anthropic.Message) => message.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("auth-gateway in broker mode", () => {
  test("serves with the broker's key from a HOME without credentials, and keeps serving with the broker down from memory and, after a restart, from the encrypted cache", async () => {
    const brokerHome = tempDir("omp-broker-");
    expect((await runOmp(["auth", "add", "anthropic", "--key", BROKER_KEY], { home: brokerHome })).code).toBe(0);
    const broker = await startBroker(brokerHome);
    const { url: brokerUrl, token: brokerToken } = broker;

    const home = gatewayHome();
    const upstream = { ANTHROPIC_BASE_URL: standin.url };
    const brokerEnv = { ...upstream, OMP_AUTH_BROKER_URL: brokerUrl, OMP_AUTH_BROKER_TOKEN: brokerToken };

    // Control: this HOME has no key, so without the broker the gateway cannot call Anthropic.
    const alone = await startGateway(home, upstream);
    const before = standin.requests.length;
    const refused = await ask(alone).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Anthropic.APIError);
    expect(String((refused as Error).message)).toContain("No API key for anthropic");
    expect(standin.requests.length).toBe(before);
    await alone.stop();
    expect(existsSync(join(home, ".omp", "agent", "agent.db"))).toBe(false);

    const gateway = await startGateway(home, brokerEnv);
    standin.setScript([{ text: "via the broker" }, { text: "broker down, from memory" }, { text: "broker down, from the cache" }]);
    expect(textOf(await ask(gateway))).toBe("via the broker");
    expect(standin.requests.at(-1)!.path).toBe("/v1/messages");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(BROKER_KEY);
    expect(existsSync(join(home, ".omp", "agent", "agent.db"))).toBe(false);

    const models: any = await (await fetch(`${gateway.url}/v1/models?limit=1000`, { headers: { authorization: `Bearer ${gateway.token}` } })).json();
    expect(models.data.map((model: { id: string }) => model.id)).toContain("claude-sonnet-5-5");

    const cache = join(home, ".omp", "cache", "auth-broker-snapshot.enc");
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(readFileSync(cache).toString("latin1")).not.toContain(BROKER_KEY);
    expect(gateway.stderr()).not.toContain(BROKER_KEY);

    broker.child.kill("SIGTERM");
    expect(await broker.child.exited).toBe(0);
    expect((await fetch(`${brokerUrl}/v1/healthz`).catch((error: unknown) => error)) instanceof Error).toBe(true);

    expect(textOf(await ask(gateway))).toBe("broker down, from memory");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(BROKER_KEY);
    await gateway.stop();

    const restarted = await startGateway(home, brokerEnv);
    expect(textOf(await ask(restarted))).toBe("broker down, from the cache");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(BROKER_KEY);
    await restarted.stop();

    // Control: with the cache off the same restart has nothing to serve from and says why.
    const uncached = await startGateway(home, { ...brokerEnv, OMP_AUTH_BROKER_SNAPSHOT_TTL_MS: "0" });
    const served = standin.requests.length;
    const down = await ask(uncached).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(down).toBeInstanceOf(Anthropic.APIError);
    expect(String((down as Error).message)).toContain(`the auth broker at ${brokerUrl} cannot be reached`);
    expect(standin.requests.length).toBe(served);
  });
});
