/**
 * Benchmarks of `omp auth-gateway serve` (`bun bench/gateway.ts`) against the zero-latency provider
 * stand-in (test/support/standin, `fast` and `loop`), and of claude-code-router doing the same
 * Anthropic → OpenAI translation in the same run when it can be installed:
 * time to first byte through each gateway minus direct to the stand-in, and 200 concurrent
 * streaming requests (all must complete; throughput and peak RSS). Writes bench/results/gateway.json
 * and gateway.md.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { writeUpstreamModels } from "../test/support/gateway-models.ts";
import { startStandin } from "../test/support/standin/index.ts";
import type { ModelsConfig } from "../core/config/models-schema.ts";
import { startGateway } from "../core/gateway/server.ts";
// Loaded up front: core/broker/credential-source.ts require()s it when the in-process gateway first looks
// for a credential, and in Bun 1.4.5 a require() while this top-level-await script is still being
// evaluated never returns (the in-process run hung there).
import "../core/broker/config.ts";
import { Upstream } from "../core/gateway/upstream.ts";
import { ROOT, OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("gateway");
const CCR_PREFIX = join(ROOT, "bench", "work", "ccr");
const CCR = join(CCR_PREFIX, "node_modules", "@musistudio", "claude-code-router", "dist", "cli.js");
const TTFB_RUNS = Number(process.env.TTFB_RUNS ?? 300);
const CONCURRENCY = 200;
const ROUNDS = 5;

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!;

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  pid?: number;
}

/** Milliseconds from sending the request to the first body byte. */
async function ttfb(target: Target): Promise<number> {
  const started = performance.now();
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
  const reader = response.body!.getReader();
  await reader.read();
  const elapsed = performance.now() - started;
  await reader.cancel();
  if (!response.ok) throw new Error(`${target.name}: HTTP ${response.status}`);
  return elapsed;
}

async function whole(target: Target, end: string): Promise<boolean> {
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
  const text = await response.text();
  return response.ok && text.includes(end);
}

function peakRss(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? round(Number(kb) / 1024, 1) : undefined;
  } catch {
    return undefined;
  }
}

async function waitForUrl(url: string, headers: Record<string, string> = {}): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(url, { headers });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing answered at ${url}`);
      await Bun.sleep(100);
    }
  }
}

async function startOmp(home: string): Promise<{ url: string; token: string; proc: Bun.Subprocess }> {
  const env = { PATH: process.env.PATH!, HOME: home, UPSTREAM_KEY: "bench-key", NO_PROXY: "127.0.0.1" };
  const token = Bun.spawnSync([OMP, "auth-gateway", "token"], { env }).stdout.toString().trim();
  const proc = Bun.spawn([OMP, "auth-gateway", "serve", "--bind", "127.0.0.1:0"], { env, stdio: ["ignore", "ignore", "pipe"] });
  const reader = proc.stderr.getReader();
  let text = "";
  while (!/listening on (http:\/\/\S+)/.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the gateway did not start: ${text}`);
    text += new TextDecoder().decode(value);
  }
  // Keep draining the request log so the pipe never fills.
  (async () => {
    while (!(await reader.read()).done);
  })();
  return { url: /listening on (http:\/\/\S+)/.exec(text)![1]!, token, proc };
}

/** claude-code-router, installed the way the brief allows; undefined with the reason when it cannot be. */
async function startCcr(standinUrl: string): Promise<{ url: string; proc: Bun.Subprocess; version: string } | { error: string }> {
  if (!existsSync(CCR)) {
    const install = Bun.spawnSync(["npm", "install", "--prefix", CCR_PREFIX, "--omit=optional", "--no-save", "@musistudio/claude-code-router"], { stdio: ["ignore", "pipe", "pipe"] });
    if (install.exitCode !== 0 || !existsSync(CCR)) return { error: `npm install failed: ${install.stderr.toString().trim().split("\n").slice(-3).join(" ")}` };
  }
  const version = JSON.parse(readFileSync(join(CCR, "..", "..", "package.json"), "utf8")).version as string;
  const home = join(WORK, "ccr-home");
  rmSync(home, { recursive: true, force: true });
  mkdirSync(join(home, ".claude-code-router"), { recursive: true });
  const port = 3900 + Math.floor(Math.random() * 90);
  const config = {
    PORT: port,
    APIKEY: "bench",
    LOG: false,
    Providers: [{ name: "standin", api_base_url: `${standinUrl}/v1/chat/completions`, api_key: "bench-key", models: ["chat-up"] }],
    Router: { default: "standin,chat-up" },
  };
  writeFileSync(join(home, ".claude-code-router", "config.json"), JSON.stringify(config));
  const proc = Bun.spawn(["node", CCR, "start"], { env: { PATH: process.env.PATH!, HOME: home }, stdio: ["ignore", "ignore", "ignore"] });
  await waitForUrl(`http://127.0.0.1:${port}/`);
  return { url: `http://127.0.0.1:${port}`, proc, version };
}

/**
 * The gateway's own work, apart from the operating system scheduling a second process: the same
 * code (from source) in this process, against the stand-in directly and a bare Bun proxy (the cost
 * of one more loopback hop alone).
 */
async function inProcessTtfb(standinUrl: string): Promise<Record<string, number>> {
  const config: ModelsConfig = { providers: { "up-anthropic": { baseUrl: standinUrl, api: "anthropic-messages", apiKey: "k", models: [{ id: "claude-up" }] } } };
  const gateway = startGateway({ bind: { hostname: "127.0.0.1", port: 0 }, token: "t", upstream: new Upstream(config, {}), log: () => {} });
  const proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const upstream = await fetch(`${standinUrl}/v1/messages`, { method: "POST", body: await req.text(), headers: req.headers });
      return new Response(upstream.body, { headers: upstream.headers });
    },
  });
  const headers = { "content-type": "application/json", "x-api-key": "t" };
  const body = anthropicBody("claude-up");
  const targets: Target[] = [
    { name: "direct", url: `${standinUrl}/v1/messages`, headers, body },
    { name: "bare Bun proxy", url: `http://127.0.0.1:${proxy.port}/v1/messages`, headers, body },
    { name: "omp gateway", url: `${gateway.url}/v1/messages`, headers, body },
  ];
  for (let i = 0; i < 30; i++) for (const t of targets) await ttfb(t);
  const samples: number[][] = targets.map(() => []);
  for (let i = 0; i < TTFB_RUNS; i++) for (const [n, t] of targets.entries()) samples[n]!.push(await ttfb(t));
  await gateway.stop(0);
  await proxy.stop(true);
  return Object.fromEntries(targets.map((t, n) => [t.name, round(median(samples[n]!), 3)]));
}

const anthropicBody = (model: string) =>
  JSON.stringify({ model, max_tokens: 256, stream: true, messages: [{ role: "user", content: "Say hello to the benchmark." }] });

async function main(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  const standin = await startStandin({ fast: true, loop: true, script: [{ text: "Hello, benchmark! This is a short streamed reply.", usage: { input: 40, output: 12 } }] });
  const home = join(WORK, "home");
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  writeUpstreamModels(home, standin.url);
  const omp = await startOmp(home);
  const ccr = await startCcr(standin.url);
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const loadBefore = load();

  const json = { "content-type": "application/json" };
  const direct: Target = { name: "direct Anthropic", url: `${standin.url}/v1/messages`, headers: { ...json, "x-api-key": "k" }, body: anthropicBody("claude-up") };
  const directChat: Target = {
    name: "direct OpenAI",
    url: `${standin.url}/v1/chat/completions`,
    headers: { ...json, authorization: "Bearer k" },
    body: JSON.stringify({ model: "chat-up", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Say hello to the benchmark." }] }),
  };
  const ompSame: Target = { name: "omp Anthropic → Anthropic", url: `${omp.url}/v1/messages`, headers: { ...json, "x-api-key": omp.token }, body: anthropicBody("claude-up"), pid: omp.proc.pid };
  const ompChat: Target = { name: "omp Anthropic → OpenAI", url: `${omp.url}/v1/messages`, headers: { ...json, "x-api-key": omp.token }, body: anthropicBody("chat-up"), pid: omp.proc.pid };
  const ccrChat: Target | undefined =
    "url" in ccr ? { name: "claude-code-router Anthropic → OpenAI", url: `${ccr.url}/v1/messages`, headers: { ...json, "x-api-key": "bench" }, body: anthropicBody("chat-up"), pid: ccr.proc.pid } : undefined;
  const targets = [direct, directChat, ompSame, ompChat, ...(ccrChat ? [ccrChat] : [])];

  // Warm-up, then interleaved rounds so drift in machine load hits every target alike.
  for (let i = 0; i < 30; i++) for (const t of targets) await ttfb(t);
  const samples = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  for (let i = 0; i < TTFB_RUNS; i++) for (const t of targets) samples.get(t.name)!.push(await ttfb(t));
  const stat = (t: Target) => ({ median: round(median(samples.get(t.name)!), 3), p90: round(p90(samples.get(t.name)!), 3) });

  const concurrent = async (t: Target) => {
    let completed = 0;
    const started = performance.now();
    for (let r = 0; r < ROUNDS; r++) {
      const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => whole(t, "message_stop")));
      completed += results.filter(Boolean).length;
    }
    const seconds = (performance.now() - started) / 1000;
    return { requests: CONCURRENCY * ROUNDS, completed, seconds: round(seconds, 2), perSecond: round((CONCURRENCY * ROUNDS) / seconds, 0), peakRssMb: peakRss(t.pid) };
  };
  const inProcess = await inProcessTtfb(standin.url);
  const throughput = { ompSame: await concurrent(ompSame), ompChat: await concurrent(ompChat), ccrChat: ccrChat ? await concurrent(ccrChat) : undefined };

  const added = {
    ompSame: round(stat(ompSame).median - stat(direct).median, 3),
    ompChat: round(stat(ompChat).median - stat(directChat).median, 3),
    ccrChat: ccrChat ? round(stat(ccrChat).median - stat(directChat).median, 3) : undefined,
  };
  const result = {
    date: new Date().toISOString(),
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    bun: Bun.version,
    load: { before: loadBefore, after: load() },
    ttfbRuns: TTFB_RUNS,
    ttfb: Object.fromEntries(targets.map((t) => [t.name, stat(t)])),
    addedMs: added,
    inProcess,
    throughput,
    ccr: "url" in ccr ? { version: ccr.version } : ccr,
  };
  writeFileSync(join(RESULTS, "gateway.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, "gateway.md"), report(result));
  process.stdout.write(report(result));

  omp.proc.kill("SIGTERM");
  await omp.proc.exited;
  if ("proc" in ccr) {
    ccr.proc.kill("SIGTERM");
    await ccr.proc.exited;
  }
  await standin.close();
}

function report(r: any): string {
  const t = r.throughput;
  const ccrRow = (key: string) => (r.addedMs.ccrChat === undefined ? "" : key);
  const row = (name: string, s: { median: number; p90: number }) => `| ${name} | ${s.median} ms | ${s.p90} ms |`;
  const tput = (name: string, x: any) => `| ${name} | ${x.completed}/${x.requests} | ${x.seconds} s | ${x.perSecond} req/s | ${x.peakRssMb ?? "?"} MB |`;
  const verdict = (ok: boolean) => (ok ? "met" : "not met");
  const lines = [
    "# Gateway benchmarks",
    "",
    `\`bun bench/gateway.ts\` on ${r.cpu} (${r.cores} cores, Bun ${r.bun}), ${r.date}. Load average before: ${r.load.before}; after: ${r.load.after}.`,
    "The provider is the test stand-in in zero-latency mode (each response written in one piece), on loopback; the client is `fetch`",
    "in the benchmark process, reading the first body byte of a streaming request.",
    "",
    "| Benchmark | Measured | Target | Result |",
    "|---|---|---|---|",
    `| Added time to first byte, Anthropic → Anthropic (median, through omp minus direct) | ${r.addedMs.ompSame} ms | < 2 ms | ${verdict(r.addedMs.ompSame < 2)} |`,
    `| Added time to first byte, Anthropic → OpenAI Chat (median) | ${r.addedMs.ompChat} ms | < 2 ms | ${verdict(r.addedMs.ompChat < 2)} |`,
    `| ${CONCURRENCY} concurrent streams × ${ROUNDS} rounds, Anthropic → OpenAI | ${t.ompChat.completed}/${t.ompChat.requests} complete, ${t.ompChat.perSecond} req/s, peak RSS ${t.ompChat.peakRssMb} MB | all complete | ${verdict(t.ompChat.completed === t.ompChat.requests)} |`,
    ...(r.addedMs.ccrChat === undefined
      ? [`| against claude-code-router | not run: ${r.ccr.error} | | |`]
      : [
          `| Added latency vs claude-code-router ${r.ccr.version} (same translation) | omp ${r.addedMs.ompChat} ms, ccr ${r.addedMs.ccrChat} ms | lower | ${verdict(r.addedMs.ompChat < r.addedMs.ccrChat)} |`,
          `| Throughput vs claude-code-router | omp ${t.ompChat.perSecond} req/s, ccr ${t.ccrChat.perSecond} req/s | higher | ${verdict(t.ompChat.perSecond > t.ccrChat.perSecond)} |`,
        ]),
    "",
    `## Time to first byte (${r.ttfbRuns} interleaved runs each, after 30 warm-up rounds)`,
    "",
    "| Path | median | p90 |",
    "|---|---|---|",
    ...Object.entries(r.ttfb).map(([name, s]) => row(name, s as any)),
    "",
    "In one process (the gateway's code from source, no second process to schedule), median time to first byte:",
    "",
    "| direct | bare Bun proxy (one more hop) | omp gateway |",
    "|---|---|---|",
    `| ${r.inProcess.direct} ms | ${r.inProcess["bare Bun proxy"]} ms | ${r.inProcess["omp gateway"]} ms |`,
    "",
    "The gateway opens its stream only once the provider has accepted the request (so a refusal is an HTTP error in the",
    "client's format and a usage limit can move to another account first); the added time is that of one more loopback",
    "hop, parsing, and re-encoding the first event.",
    "",
    `## ${CONCURRENCY} concurrent streaming requests, ${ROUNDS} rounds`,
    "",
    "| Path | completed | wall time | throughput | peak RSS of the gateway process |",
    "|---|---|---|---|---|",
    tput("omp Anthropic → Anthropic", t.ompSame),
    tput("omp Anthropic → OpenAI", t.ompChat),
    ...(t.ccrChat ? [tput("claude-code-router Anthropic → OpenAI", t.ccrChat)] : []),
    "",
    ccrRow(`claude-code-router ${r.ccr.version} was installed with \`npm install --prefix bench/work/ccr --omit=optional --no-save\` and run with \`ccr start\`, one provider pointing at the same stand-in, routing every request to it.`),
    "",
  ];
  return `${lines.join("\n")}\n`;
}

await main();
