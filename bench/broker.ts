/**
 * Benchmarks of the auth broker in dist/omp (`bun bench/broker.ts`): start-up to the first model
 * request in broker mode with a warm snapshot cache against local credentials (the vault), and the
 * SSE fan-out of one change to 200 connected clients (time until all have it, the broker's RSS).
 * Writes bench/results/broker.json and broker.md.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startStandin } from "../test/support/standin/index.ts";
import { median, now, round as roundTo } from "./stats.ts";
import { OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("broker");
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CLIENTS = 200;

const round = (value: number, digits = 1) => roundTo(value, digits);

const KEY = "sk-ant-api03-benchbenchbenchbenchbenchbench-0001";

function env(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: home, LANG: "C.UTF-8", ...extra };
}

async function omp(args: string[], home: string, extra: Record<string, string> = {}): Promise<string> {
  const child = Bun.spawn([OMP, ...args], { cwd: home, env: env(home, extra), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`omp ${args.join(" ")} failed (${code}): ${err}`);
  return out;
}

interface Broker {
  child: ReturnType<typeof Bun.spawn>;
  url: string;
  token: string;
}

async function startBroker(home: string): Promise<Broker> {
  const child = Bun.spawn([OMP, "auth-broker", "serve", "--bind", "127.0.0.1:0"], { cwd: home, env: env(home), stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  let out = "";
  const decoder = new TextDecoder();
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { value: chunk, done } = await reader.read();
    if (done) break;
    out += decoder.decode(chunk, { stream: true });
    const match = /auth-broker listening (http:\/\/\S+)/.exec(out);
    if (match) {
      // Keep reading its log, as a terminal would.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return { child, url: match[1]!, token: readFileSync(join(home, ".omp", "auth-broker.token"), "utf8").trim() };
    }
  }
  throw new Error(`the broker did not start: ${out}`);
}

/** Spawn to the stand-in receiving the model request, in ms. */
async function startToFirstRequest(home: string, extra: Record<string, string>, standin: Awaited<ReturnType<typeof startStandin>>): Promise<number> {
  const before = standin.requests.length;
  const start = now();
  await omp(["-p", "--no-session", "--no-tools", "--model", "anthropic/claude-sonnet-5-5", "hi"], home, { ANTHROPIC_BASE_URL: standin.url, ...extra });
  const request = standin.requests.slice(before).find((r) => r.method === "POST");
  if (!request) throw new Error("no model request");
  return request.receivedAt - start;
}

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

async function fanOut(broker: Broker): Promise<{ ms: number; rssBeforeMb: number; rssAfterMb: number }> {
  const readers: Promise<number>[] = [];
  const ready: Promise<void>[] = [];
  const controllers: AbortController[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const controller = new AbortController();
    controllers.push(controller);
    let markReady!: () => void;
    ready.push(new Promise<void>((resolve) => (markReady = resolve)));
    readers.push(
      (async () => {
        const response = await fetch(`${broker.url}/v1/snapshot/stream`, { headers: { authorization: `Bearer ${broker.token}` }, signal: controller.signal });
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        let text = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) throw new Error("stream ended");
          text += decoder.decode(value, { stream: true });
          if (text.includes('"kind":"snapshot"')) markReady();
          if (text.includes('"kind":"entry"')) return now();
        }
      })(),
    );
  }
  await Promise.all(ready);
  const rssBefore = rssKb(broker.child.pid);
  const start = now();
  await fetch(`${broker.url}/v1/credential`, {
    method: "POST",
    headers: { authorization: `Bearer ${broker.token}`, "content-type": "application/json" },
    body: JSON.stringify({ provider: "groq", credential: { type: "api_key", key: "gsk_fanoutfanoutfanoutfanout0001" } }),
  });
  const arrivals = await Promise.all(readers);
  const rssAfter = rssKb(broker.child.pid);
  for (const controller of controllers) controller.abort();
  return { ms: Math.max(...arrivals) - start, rssBeforeMb: rssBefore / 1024, rssAfterMb: rssAfter / 1024 };
}

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const standin = await startStandin({ script: [{ text: "ok" }], loop: true, fast: true });

  const localHome = join(WORK, "local");
  mkdirSync(localHome, { recursive: true });
  await omp(["auth", "add", "anthropic", "--key", KEY], localHome);

  const brokerHome = join(WORK, "broker");
  mkdirSync(brokerHome, { recursive: true });
  await omp(["auth", "add", "anthropic", "--key", KEY], brokerHome);
  const broker = await startBroker(brokerHome);
  const clientHome = join(WORK, "client");
  mkdirSync(clientHome, { recursive: true });
  const brokerEnv = { OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token };

  // Alternated, so that the load of the machine weighs on both alike; the first two of each warm up (and fill the cache).
  const localTimes: number[] = [];
  const brokerTimes: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const l = await startToFirstRequest(localHome, {}, standin);
    const b = await startToFirstRequest(clientHome, brokerEnv, standin);
    if (i >= 2) {
      localTimes.push(l);
      brokerTimes.push(b);
    }
  }
  const local = median(localTimes);
  const brokerWarm = median(brokerTimes);
  const fan = await fanOut(broker);
  broker.child.kill("SIGTERM");
  await broker.child.exited;
  await standin.close();

  const results = {
    runs: RUNS,
    startToFirstRequestMs: { local: round(local), brokerWarmCache: round(brokerWarm), ratio: round(brokerWarm / local, 2) },
    fanOut: { clients: CLIENTS, msUntilAllHaveIt: round(fan.ms), brokerRssMb: { connected: round(fan.rssBeforeMb), afterChange: round(fan.rssAfterMb) } },
  };
  writeFileSync(join(RESULTS, "broker.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(
    join(RESULTS, "broker.md"),
    `# Auth broker benchmarks

\`bun bench/broker.ts\` on the compiled binary; provider stand-in on loopback in zero-latency mode; medians of ${RUNS} alternated runs of each after 2 warm-ups.

| measure | value |
|---|---|
| start to first model request, local vault key | ${results.startToFirstRequestMs.local} ms |
| start to first model request, broker mode, warm snapshot cache | ${results.startToFirstRequestMs.brokerWarmCache} ms |
| ratio broker / local (target ≤ 1.1) | ${results.startToFirstRequestMs.ratio}× |
| one change fanned out over SSE to ${CLIENTS} connected clients: until all have it | ${results.fanOut.msUntilAllHaveIt} ms |
| broker RSS with ${CLIENTS} SSE clients connected / after the change | ${results.fanOut.brokerRssMb.connected} MB / ${results.fanOut.brokerRssMb.afterChange} MB |
`,
  );
  console.log(JSON.stringify(results, null, 2));
}

await main();
