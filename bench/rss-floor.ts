/**
 * The peak RSS `omp -p hi` cannot go under on this Bun (`bun bench/rss-floor.ts`): a program that
 * does nothing of omp's own but what a print-mode run needs of the runtime (a streamed request to a
 * loopback server, a child process as git is, a JSON body, a line on stdout), compiled with omp's
 * flags, each part added in turn; beside it `omp -p hi` against the stand-in, warm (its natives
 * already extracted). Medians of 5 runs. Writes bench/results/rss-floor.json and .md.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { COMPILE_FLAGS } from "../embed/build.ts";
import { startStandin } from "../test/support/standin/index.ts";
import { median, round } from "./stats.ts";

const ROOT = resolve(import.meta.dir, "..");
const OMP = process.env.OMP_BIN ?? join(ROOT, "dist", "omp");
const WORK = join(ROOT, "bench", "work", "rss-floor");
const RESULTS = join(ROOT, "bench", "results");
const RUNS = 5;
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const STEPS: { label: string; parts: string[] }[] = [
  { label: "nothing (bench/empty.ts's floor, plus reading its own status)", parts: [] },
  { label: "a streamed request to a loopback server", parts: ["fetch"] },
  { label: "… and a child process", parts: ["fetch", "spawn"] },
  { label: "… and a JSON body and a line on stdout", parts: ["fetch", "spawn", "json", "stdout"] },
];

function mib(kb: string | undefined): number {
  if (!kb) throw new Error("no VmHWM in the program's output");
  return Number(kb) / 1024;
}

async function main(): Promise<void> {
  const loadBefore = load();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const program = join(WORK, "floor");
  const built = Bun.spawnSync([process.execPath, "build", ...COMPILE_FLAGS, join(ROOT, "bench", "rss-floor-program.ts"), "--outfile", program], { stdio: ["ignore", "ignore", "inherit"] });
  if (built.exitCode !== 0) throw new Error("bun build --compile failed");
  const floors = STEPS.map((step) => {
    const peaks = Array.from({ length: RUNS }, () => mib(/VmHWM (\d+)/.exec(Bun.spawnSync([program, ...step.parts], { stdout: "pipe", stderr: "inherit" }).stdout.toString())?.[1]));
    return { ...step, peakMib: round(median(peaks), 1) };
  });
  const standin = await startStandin({ fast: true, loop: true });
  standin.setScript([{ text: "hello" }]);
  const home = join(WORK, "home");
  mkdirSync(home, { recursive: true });
  const ompPeaks: number[] = [];
  try {
    for (let run = 0; run <= RUNS; run++) {
      // Not spawnSync: the stand-in answers from this process's event loop.
      const child = Bun.spawn(["/usr/bin/time", "-f", "MAX_RSS_KB=%M", OMP, "-p", "--model", "anthropic/claude-sonnet-5-5", "hi"], { cwd: WORK, env: { PATH: process.env.PATH, HOME: home, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-bench-0123456789" }, stdout: "ignore", stderr: "pipe" });
      const [stderr] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      // The first run extracts the natives into the home: the rest are a user's every run.
      if (run > 0) ompPeaks.push(mib(/MAX_RSS_KB=(\d+)/.exec(stderr)?.[1]));
    }
  } finally {
    await standin.close();
  }
  const omp = round(median(ompPeaks), 1);
  const results = { date: new Date().toISOString(), bun: Bun.version, runs: RUNS, loadBefore, loadAfter: load(), floors, ompWarmPeakMib: omp };
  writeFileSync(join(RESULTS, "rss-floor.json"), `${JSON.stringify(results, null, 2)}\n`);
  const md = `# The runtime's floor under \`omp -p hi\`

\`bun bench/rss-floor.ts\` on Bun ${Bun.version}, ${results.date}; medians of ${RUNS} runs. Load average (1, 5, 15 min)
before: ${loadBefore}; after: ${results.loadAfter}. Peak RSS is what the kernel counts (VmHWM, GNU time's max), so it
moves little with load.

A program with none of omp's code (bench/rss-floor-program.ts), compiled with omp's flags, doing only what a
print-mode run needs of Bun; each row adds a part:

| the program does | peak RSS |
|---|---|
${floors.map((floor) => `| ${floor.label} | ${floor.peakMib} MiB |`).join("\n")}
| \`omp -p hi\` against the stand-in, natives already extracted | ${omp} MiB |

Most of the floor is Bun's own machine code paged in from the executable (its HTTP client, process spawning,
the JIT tiers), which no change to omp's code can leave out; what omp adds on top is its bundle's loaded
modules and their heap.
`;
  writeFileSync(join(RESULTS, "rss-floor.md"), md);
  console.log(md);
}

await main();
