/**
 * Prompt to first event through the session host (`bun bench/host-entry.ts`), for dist/omp against
 * BASELINE_OMP (the binary before every front end went through SessionHost.submit), against the
 * zero-latency provider stand-in:
 * - print: spawn of `omp -p hi` (the prompt is on the command line) to the first byte of the answer on stdout;
 * - rpc: in a running `omp --mode rpc`, a prompt line written to its `agent_start` frame (the host
 *   took the message and the run began) and to the first `message_update` (the model's first delta).
 * Binaries interleaved so that the load of a shared machine falls on both alike; the load average is
 * recorded beside the numbers. Writes bench/results/host-entry.json and host-entry.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { startStandin } from "../test/support/standin/index.ts";
import { median, now, round } from "./stats.ts";

const ROOT = resolve(import.meta.dir, "..");
const OMP = process.env.OMP_BIN ?? join(ROOT, "dist", "omp");
const BASELINE = process.env.BASELINE_OMP;
const WORK = join(ROOT, "bench", "work", "host-entry");
const RUNS = Number(process.env.RUNS ?? 15);
/** Prompts per rpc process and round. */
const RPC_PROMPTS = 5;
const MODEL = "anthropic/claude-sonnet-4-5";

/** Spawn → first byte on stdout of `omp -p hi`, in ms. */
async function printFirstByte(binary: string, env: Record<string, string>): Promise<number> {
  const started = now();
  const child = Bun.spawn([binary, "-p", "--no-session", "--model", MODEL, "hi"], { cwd: WORK, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = child.stdout.getReader();
  const first = await reader.read();
  const at = now();
  if (first.done) throw new Error(`${binary} -p printed nothing: ${(await new Response(child.stderr).text()).slice(-400)}`);
  while (!(await reader.read()).done) {}
  if ((await child.exited) !== 0) throw new Error(`${binary} -p failed: ${(await new Response(child.stderr).text()).slice(-400)}`);
  return at - started;
}

/** In one rpc process, per prompt: written → agent_start, and written → first message_update, in ms. */
async function rpcFirstEvents(binary: string, env: Record<string, string>, prompts: number): Promise<{ start: number[]; delta: number[] }> {
  const child = Bun.spawn([binary, "--mode", "rpc", "--no-session", "--model", MODEL], { cwd: WORK, env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const decoder = new TextDecoder();
  const waiting: { type: string; resolve: (at: number) => void }[] = [];
  const pump = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout) {
      const at = now();
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const type = (JSON.parse(buffer.slice(0, newline)) as { type: string }).type;
        buffer = buffer.slice(newline + 1);
        const index = waiting.findIndex((w) => w.type === type);
        if (index !== -1) waiting.splice(index, 1)[0]!.resolve(at);
        newline = buffer.indexOf("\n");
      }
    }
  })();
  const frame = (type: string) => new Promise<number>((resolve) => waiting.push({ type, resolve }));
  const start: number[] = [];
  const delta: number[] = [];
  try {
    await frame("ready");
    for (let i = 0; i < prompts; i++) {
      const [started, updated, ended] = [frame("agent_start"), frame("message_update"), frame("agent_end")];
      const sent = now();
      child.stdin.write(`${JSON.stringify({ type: "prompt", message: "hi" })}\n`);
      child.stdin.flush();
      start.push((await started) - sent);
      delta.push((await updated) - sent);
      await ended;
    }
  } finally {
    child.stdin.end();
    await child.exited;
    await pump;
  }
  return { start, delta };
}

mkdirSync(WORK, { recursive: true });
const home = join(WORK, "home");
mkdirSync(home, { recursive: true });
const standin = await startStandin();
const env = { PATH: process.env.PATH ?? "", HOME: home, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "bench-key-0123456789", OMP_NO_UPDATE_CHECK: "1" };
const binaries = [["dist/omp", OMP], ...(BASELINE ? [["baseline", BASELINE]] : [])] as [string, string][];
const samples = binaries.map(() => ({ print: [] as number[], rpcStart: [] as number[], rpcDelta: [] as number[] }));
const loadBefore = loadavg()[0]!;
try {
  for (let i = 0; i < RUNS; i++) {
    for (const [index, [, binary]] of binaries.entries()) {
      standin.setScript(Array.from({ length: RPC_PROMPTS + 1 }, () => ({ text: "hello" })));
      samples[index]!.print.push(await printFirstByte(binary, env));
      standin.setScript(Array.from({ length: RPC_PROMPTS + 1 }, () => ({ text: "hello" })));
      const rpc = await rpcFirstEvents(binary, env, RPC_PROMPTS);
      samples[index]!.rpcStart.push(...rpc.start);
      samples[index]!.rpcDelta.push(...rpc.delta);
    }
  }
} finally {
  await standin.close();
}
const loadAfter = loadavg()[0]!;
const rows = binaries.map(([name], index) => {
  const s = samples[index]!;
  return { binary: name, printFirstByteMs: round(median(s.print), 1), rpcAgentStartMs: round(median(s.rpcStart), 2), rpcFirstDeltaMs: round(median(s.rpcDelta), 2) };
});
const results = { date: new Date().toISOString(), runs: RUNS, rpcPromptsPerRun: RPC_PROMPTS, load: { before: round(loadBefore, 1), after: round(loadAfter, 1), cores: navigator.hardwareConcurrency }, rows };
writeFileSync(join(ROOT, "bench", "results", "host-entry.json"), `${JSON.stringify(results, null, 2)}\n`);
const md = [
  "# Prompt to first event through the session host",
  "",
  `Against the zero-latency stand-in, medians (\`bun bench/host-entry.ts\`, ${RUNS} rounds, binaries interleaved). print: spawn of \`omp -p hi\` → first byte of the answer on stdout (${RUNS} runs). rpc: a prompt line written → its \`agent_start\` frame, and → the first \`message_update\` (${RUNS * RPC_PROMPTS} prompts, ${RPC_PROMPTS} per process). The baseline is BASELINE_OMP.`,
  "",
  "| binary | print: first byte (ms) | rpc: agent_start (ms) | rpc: first delta (ms) |",
  "| --- | ---: | ---: | ---: |",
  ...rows.map((r) => `| ${r.binary} | ${r.printFirstByteMs} | ${r.rpcAgentStartMs} | ${r.rpcFirstDeltaMs} |`),
  "",
  `Machine load (1-minute average) ${results.load.before} before and ${results.load.after} after, on ${results.load.cores} cores.`,
  "",
].join("\n");
writeFileSync(join(ROOT, "bench", "results", "host-entry.md"), md);
console.log(md);
