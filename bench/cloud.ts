/**
 * Cloud accounts (`bun bench/cloud.ts`): (1) what signing costs per request — SigV4 over a
 * first-request-sized body, in process; and a Vertex service account's RS256 JWT, made once an
 * hour; (2) start to the first request, print mode, for an Anthropic key user on this build and
 * on a baseline build (OMP_BASE, e.g. the main branch's dist/omp: the cloud code must not load for
 * them), and for a Bedrock user (SigV4 and the event-stream framing loaded on use). Interleaved
 * rounds against the zero-latency stand-in. Writes bench/results/cloud.json and cloud.md.
 */
import { generateKeyPairSync, createSign } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { signV4 } from "../core/ai/cloud/sigv4.ts";
import { startStandin } from "../test/support/standin/index.ts";
import { timeToRequest } from "./startup-timing.ts";
import { median, now, percentile, round } from "./stats.ts";
import { OMP, RESULTS, workDir } from "./paths.ts";

const BASE = process.env.OMP_BASE;
const WORK = workDir("cloud");
const ROUNDS = 30;

function signingCost(): { sigv4P50Us: number; sigv4P99Us: number; jwtP50Us: number } {
  const body = JSON.stringify({ messages: [{ role: "user", content: "x".repeat(16_000) }] });
  const url = new URL("https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-opus-5-5-v1%3A0/invoke-with-response-stream");
  const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret", sessionToken: "token" };
  const sig: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const start = now();
    signV4({ method: "POST", url, headers: { "content-type": "application/json" }, body, region: "us-east-1", service: "bedrock", credentials });
    sig.push((now() - start) * 1000);
  }
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwt: number[] = [];
  for (let i = 0; i < 200; i++) {
    const start = now();
    createSign("RSA-SHA256").update("header.claims").sign(privateKey);
    jwt.push((now() - start) * 1000);
  }
  const tail = sig.slice(100);
  return { sigv4P50Us: round(median(tail)), sigv4P99Us: round(percentile(tail, 99)), jwtP50Us: round(median(jwt.slice(10))) };
}

async function startUp() {
  const aws = { accessKeyId: "AKIAOMPBENCH00000001", secretAccessKey: "bench-secret", region: "us-east-1" };
  const standin = await startStandin({ fast: true, loop: true, script: [{ text: "ok" }], cloud: { aws } });
  mkdirSync(join(WORK, "home"), { recursive: true });
  const env = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(WORK, "home"), OMP_RETRY_BASE_MS: "20", ...extra });
  const anthropic = env({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "bench-key" });
  const bedrock = env({ AWS_REGION: aws.region, AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standin.url, AWS_ACCESS_KEY_ID: aws.accessKeyId, AWS_SECRET_ACCESS_KEY: aws.secretAccessKey, AWS_EC2_METADATA_DISABLED: "true" });
  const args = (model: string) => ["-p", "--no-session", "--model", model, "hi"];
  const runs: Record<string, number[]> = { anthropic: [], bedrock: [], ...(BASE ? { baseline: [] } : {}) };
  try {
    for (let i = 0; i < ROUNDS; i++) {
      runs.anthropic!.push(await timeToRequest(standin, [OMP, ...args("anthropic/claude-sonnet-5-5")], { cwd: WORK, env: anthropic }));
      if (BASE) runs.baseline!.push(await timeToRequest(standin, [BASE, ...args("anthropic/claude-sonnet-5-5")], { cwd: WORK, env: anthropic }));
      runs.bedrock!.push(await timeToRequest(standin, [OMP, ...args("amazon-bedrock/anthropic.claude-sonnet-5-5-v1:0")], { cwd: WORK, env: bedrock }));
    }
  } finally {
    await standin.close();
  }
  return Object.fromEntries(Object.entries(runs).map(([name, values]) => [name, round(median(values.slice(3)))]));
}

mkdirSync(WORK, { recursive: true });
if (!existsSync(OMP)) throw new Error(`${OMP} is missing: run bun run build first`);
const signing = signingCost();
const start = await startUp();
const machine = { cpus: cpus().length, load: loadavg().map((l) => round(l)) };
writeFileSync(join(RESULTS, "cloud.json"), `${JSON.stringify({ date: new Date().toISOString(), machine, signing, startMs: start }, null, 2)}\n`);
const lines = [
  "# Cloud accounts",
  "",
  `Measured ${new Date().toISOString().slice(0, 10)} on ${machine.cpus} cores, load ${machine.load.join(" ")} (other work on the machine moves the start-up numbers).`,
  "",
  "| what | measured | target | |",
  "|---|---|---|---|",
  `| SigV4 signing of a 16 KB request body, per request (p50 / p99) | ${signing.sigv4P50Us} µs / ${signing.sigv4P99Us} µs | reported | |`,
  `| Vertex service-account JWT (RS256), once an hour | ${signing.jwtP50Us} µs | reported | |`,
  `| print mode, start to first request, Anthropic key | ${start.anthropic} ms${start.baseline !== undefined ? ` (baseline build ${start.baseline} ms: ${round(start.anthropic! / start.baseline)}×)` : ""} | unchanged (≤ 1.05× the baseline) | ${start.baseline === undefined ? "no baseline given" : start.anthropic! / start.baseline <= 1.05 ? "met" : "missed"} |`,
  `| print mode, start to first request, Bedrock (credentials read, request signed, cloud code loaded on use) | ${start.bedrock} ms | reported | |`,
  "",
  `Medians of ${ROUNDS - 3} interleaved runs after 3 warm-ups, against the zero-latency stand-in. The baseline is OMP_BASE (here the main branch's build before the cloud providers).`,
  "",
];
writeFileSync(join(RESULTS, "cloud.md"), lines.join("\n"));
console.log(lines.join("\n"));
