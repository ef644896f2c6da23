/**
 * Benchmarks of shell jobs (`bun bench/shell.ts [--seconds 20]`): the round trip of a job write and
 * the read that waits for its answer, a PTY keystroke until the rendered screen shows it (both in
 * process, on core/shell, so the model loop's own overhead — bench/agent.ts — is not counted
 * again), and the peak RSS of dist/omp while 10 background jobs each print 1 MB/s. Writes
 * bench/results/shell.json and shell.md.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jobsFor } from "../core/shell/jobs.ts";
import { startStandin } from "../test/support/standin/index.ts";
import { median, percentile, round } from "./stats.ts";
import { OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("shell");
const secondsArg = process.argv.indexOf("--seconds");
const FLOOD_SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 60;

function stats(samples: number[]) {
  return { runs: samples.length, medianMs: round(median(samples), 3), p90Ms: round(percentile(samples, 90), 3), minMs: round(Math.min(...samples), 3) };
}

/** `cat` echoes each line back: write a token, read until it shows. */
async function pollRoundTrip(runs: number) {
  const jobs = jobsFor({});
  const job = jobs.start({ command: "cat", cwd: WORK, artifactsDir: join(WORK, "artifacts"), stdin: true }, true);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    job.write(`token-${i}\n`);
    const { timedOut } = await jobs.read(job, { waitFor: `token-${i}$`, timeoutSeconds: 5 });
    if (timedOut) throw new Error(`token-${i} never came back`);
    samples.push(performance.now() - started);
  }
  await jobs.endAll();
  return stats(samples.slice(5));
}

/** Under a PTY the terminal echoes keys: write one, wait until the rendered screen has it. */
async function ptyKeystroke(runs: number) {
  const jobs = jobsFor({});
  const job = jobs.start({ command: "cat", cwd: WORK, artifactsDir: join(WORK, "artifacts"), pty: { cols: 100, rows: 30 } }, true);
  await jobs.read(job, { timeoutSeconds: 0.5 });
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    job.write(`k${i}\r`);
    const { timedOut } = await jobs.read(job, { waitFor: `^k${i}$`, timeoutSeconds: 5 });
    if (timedOut) throw new Error(`k${i} never reached the screen`);
    samples.push(performance.now() - started);
  }
  await jobs.endAll();
  return stats(samples.slice(5));
}

/** dist/omp with 10 background jobs printing 1 MB/s each (lines of 101 bytes) for FLOOD_SECONDS, under GNU time. */
async function floodRss() {
  const standin = await startStandin();
  try {
    const flood = "while :; do yes $(printf %0100d 0) | head -c 1048576; sleep 1; done";
    standin.setScript([
      { toolCalls: Array.from({ length: 10 }, (_, i) => ({ id: `b${i}`, name: "bash", arguments: { command: flood, background: true } })) },
      { toolCalls: [{ id: "w", name: "job", arguments: { action: "read", id: 1, wait_for: "never printed", timeout: FLOOD_SECONDS } }] },
      { toolCalls: [{ id: "l", name: "job", arguments: { action: "list" } }] },
      { text: "done" },
    ]);
    const home = join(WORK, "home");
    mkdirSync(home, { recursive: true });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "bench-key-0123456789" };
    const child = Bun.spawn(["/usr/bin/time", "-f", "OMP_MAX_RSS_KB=%M", OMP, "-p", "--model", "anthropic/claude-sonnet-5-5", "flood"], { cwd: WORK, env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`omp failed: ${stderr}`);
    const kb = Number(/OMP_MAX_RSS_KB=(\d+)/.exec(stderr)?.[1]);
    const last = standin.requests.filter((r) => r.method === "POST").at(-1)!;
    const results = last.body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_result" && b.tool_use_id === "l");
    const listing: string[] = results[0].content[0].text.split("\n").map((line: string) => line.replace(/ · while :.*/, ""));
    return { jobs: 10, mbPerSecondEach: 1, seconds: FLOOD_SECONDS, peakRssMb: round(kb / 1024, 1), listing };
  } finally {
    standin.close();
  }
}

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const loadBefore = load();
  const poll = await pollRoundTrip(205);
  const pty = await ptyKeystroke(105);
  const flood = await floodRss();
  const result = { date: new Date().toISOString(), loadBefore, loadAfter: load(), poll, pty, flood };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, "shell.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, "shell.md"), markdown(result));
  console.log(markdown(result));
}

function markdown(r: any): string {
  return `# Shell jobs

${r.date}; load average ${r.loadBefore} before, ${r.loadAfter} after (2-core machine shared with other work).

| what | median | p90 | min | runs |
|---|---|---|---|---|
| job write + read waiting for the echo (\`cat\`, pipes; core/shell in process) | ${r.poll.medianMs} ms | ${r.poll.p90Ms} ms | ${r.poll.minMs} ms | ${r.poll.runs} |
| PTY keystroke until the rendered screen shows it (\`cat\` under script(1) + @xterm/headless) | ${r.pty.medianMs} ms | ${r.pty.p90Ms} ms | ${r.pty.minMs} ms | ${r.pty.runs} |

Peak RSS of \`dist/omp -p\` (GNU time's max RSS) with ${r.flood.jobs} background jobs each printing ${r.flood.mbPerSecondEach} MB/s for ${r.flood.seconds} s while the model waits on one of them: **${r.flood.peakRssMb} MB** (target: bounded, < 150 MB). Jobs as the model listed them at the end: ${r.flood.listing.map((l: string) => `\`${l}\``).join(", ")}.
`;
}

await main();
