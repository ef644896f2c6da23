/**
 * The eval tool's round trip (`bun bench/eval.ts [--calls 20]`): a print-mode run whose stand-in
 * model calls eval with one trivial cell (`1+1`) again and again; each call's round trip is the time
 * from the stand-in handing over the reply that asks for it to the next request carrying its result
 * (reading the stream, running the cell in the warm kernel, building the request). The first call
 * (which starts the kernel) is reported apart. The same for the original omp from npm
 * (@oh-my-pi/pi-coding-agent 18.2.3, on this project's bun) when it installs. Writes
 * bench/results/eval.json and eval.md.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startStandin } from "../test/support/standin/index.ts";
import { PEERS, peerBin, peerEnv } from "./edits-peers.ts";
import { median, percentile, round } from "./stats.ts";
import { OMP, RESULTS } from "./paths.ts";

const callsArg = process.argv.indexOf("--calls");
const CALLS = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 20;

interface Measured {
  name: string;
  language: "py" | "js";
  firstMs: number;
  warm: { medianMs: number; p90Ms: number; minMs: number; runs: number };
  /** Whether the cells' output came back right. */
  correct: boolean;
}

/** The call's arguments: omp takes the documented `cells` list; 18.2.3 of the original still takes one cell's fields at the top. */
type Shape = "cells" | "single";

async function measure(name: string, language: "py" | "js", shape: Shape, argv: string[], env: (url: string, home: string) => Record<string, string>): Promise<Measured> {
  const standin = await startStandin({ fast: true });
  try {
    const home = mkdtempSync(join(tmpdir(), "bench-eval-home-"));
    const repo = mkdtempSync(join(tmpdir(), "bench-eval-repo-"));
    standin.setScript([...Array.from({ length: CALLS + 1 }, (_, i) => ({ toolCalls: [{ id: `toolu_eval_${i}`, name: "eval", arguments: shape === "cells" ? { cells: [{ language, code: "1+1" }] } : { language, code: "1+1" } }] })), { text: "done" }]);
    const child = Bun.spawn(argv, { cwd: repo, env: env(standin.url, home), stdout: "pipe", stderr: "pipe", timeout: 300_000 });
    const [, stderr, exit] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (exit !== 0) throw new Error(`${name} exited ${exit}: ${stderr.slice(-2000)}`);
    const posts = standin.requests.filter((r) => r.method === "POST");
    if (posts.length !== CALLS + 2) throw new Error(`${name}: ${posts.length} requests, expected ${CALLS + 2}`);
    const gaps = posts.slice(1).map((request, i) => request.receivedAt - posts[i]!.respondedAt!);
    const last = JSON.stringify(posts.at(-1)!.body.messages.at(-1));
    const warm = gaps.slice(1);
    return {
      name,
      language,
      firstMs: round(gaps[0]!, 1),
      warm: { medianMs: round(median(warm), 1), p90Ms: round(percentile(warm, 90), 1), minMs: round(Math.min(...warm), 1), runs: warm.length },
      correct: /"(text|content)":"2"/.test(last),
    };
  } finally {
    await standin.close();
  }
}

const rows: Measured[] = [];
const load = loadavg().map((n) => n.toFixed(2)).join(" ");
const ompEnv = (url: string, home: string) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-bench" });
for (const language of ["py", "js"] as const) rows.push(await measure("omp", language, "cells", [OMP, "-p", "--model", "anthropic/claude-sonnet-5-5", "go"], ompEnv));

const original = PEERS.find((peer) => peer.bin === "omp")!;
const bin = peerBin(original);
let peerNote = "";
if (!bin) peerNote = `The original omp (${original.pkg}) could not be installed here, so it was not measured.`;
else {
  for (const language of ["py", "js"] as const) {
    try {
      rows.push(await measure("original omp 18.2.3", language, "single", [bin, "-p", "--model", "anthropic/claude-sonnet-4-5", "go"], (url, home) => peerEnv(original, home, home, url)));
    } catch (error) {
      peerNote += `The original omp's ${language} run failed: ${(error as Error).message.split("\n")[0]} `;
    }
  }
}

/** Spawn → first request of `omp -p hi`, with eval offered and with every other tool but it (`--tools`), interleaved. */
async function startUp(rounds: number) {
  const standin = await startStandin({ fast: true, loop: true, script: [{ text: "hi" }] });
  const others = "read,write,edit,bash,grep,find,ls,todo,job,web_fetch,lsp,ast_grep,ast_edit,task";
  const samples: Record<"with" | "without", number[]> = { with: [], without: [] };
  try {
    const home = mkdtempSync(join(tmpdir(), "bench-eval-home-"));
    const repo = mkdtempSync(join(tmpdir(), "bench-eval-repo-"));
    for (let i = 0; i < rounds; i++) {
      for (const kind of ["with", "without"] as const) {
        const before = standin.requests.length;
        const started = performance.timeOrigin + performance.now();
        const child = Bun.spawn([OMP, "-p", "--model", "anthropic/claude-sonnet-5-5", ...(kind === "without" ? ["--tools", others] : []), "hi"], { cwd: repo, env: ompEnv(standin.url, home), stdout: "ignore", stderr: "ignore" });
        await child.exited;
        const first = standin.requests.slice(before).find((r) => r.method === "POST");
        if (!first) throw new Error("omp -p hi sent no request");
        if (i > 0) samples[kind].push(first.receivedAt - started);
      }
    }
  } finally {
    await standin.close();
  }
  return { withMs: round(median(samples.with), 1), withoutMs: round(median(samples.without), 1), runs: samples.with.length };
}
const start = await startUp(11);

mkdirSync(RESULTS, { recursive: true });
const when = new Date().toISOString();
writeFileSync(join(RESULTS, "eval.json"), `${JSON.stringify({ when, load, calls: CALLS, rows, startUp: start, peerNote }, null, 2)}\n`);
const table = rows.map((r) => `| ${r.name} | ${r.language} | ${r.warm.medianMs} ms | ${r.warm.p90Ms} ms | ${r.warm.minMs} ms | ${r.firstMs} ms | ${r.warm.runs} | ${r.correct ? "yes" : "no"} |`);
writeFileSync(
  join(RESULTS, "eval.md"),
  [
    "# eval round trip",
    "",
    `${when}; load average ${load} before (2-core machine shared with other work).`,
    "",
    "Per call: from the stand-in handing over the reply that asks for `eval {cells:[{language, code:\"1+1\"}]}` to the next request carrying the result (print mode, zero-latency stand-in). Warm: the kernel already running; first: the call that starts it. omp's kernels run inside the command sandbox (Landlock launcher here); the original's run unconfined.",
    "",
    "| agent | cell | warm median | warm p90 | warm min | first call (kernel start) | warm runs | result right |",
    "|---|---|---|---|---|---|---|---|",
    ...table,
    "",
    "18.2.3 of the original takes one cell's `{language, code}` at the top of the call (its later docs describe the `cells` list omp takes), so it is called that way.",
    peerNote,
    "",
    `Start-up (spawn → first request of \`omp -p hi\`, median of ${start.runs} interleaved runs): ${start.withMs} ms with eval offered, ${start.withoutMs} ms with every other tool but it (${round(start.withMs / start.withoutMs, 2)}×); none of eval's code loads before its first call.`,
    "",
  ].join("\n"),
);
console.log(table.join("\n"));
console.log(`start-up: ${start.withMs} ms with eval, ${start.withoutMs} ms without`);
if (peerNote) console.log(peerNote);
