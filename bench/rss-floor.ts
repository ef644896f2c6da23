/**
 * The peak RSS `omp -p hi` cannot go under on this Bun (`bun bench/rss-floor.ts`): a program that
 * does nothing of omp's own but what a print-mode run needs of the runtime (a streamed request to a
 * loopback server, two child processes as git is, node:fs reading files, a JSON body, a line on
 * stdout), compiled with omp's flags, each part added in turn; beside it `omp -p hi` against the
 * stand-in, warm (its natives already extracted). Then the runtime's levers, each on the whole
 * floor program and on omp: Node's process.stdout instead of a FileSink, the floor built without
 * omp's start-up JIT policy, and JavaScriptCore without its JIT (BUN_JSC_useJIT=0, read when the
 * process starts). Every executable is measured as a run reads it back from disk, its written pages
 * dropped from the page cache (bench/page-cache.ts); omp also as a fresh copy, cached as written.
 * Medians of 5 runs. Writes bench/results/rss-floor.json and .md.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { COMPILE_FLAGS, START_UP_JIT_POLICY } from "../embed/build.ts";
import { startStandin } from "../test/support/standin/index.ts";
import { settle } from "./page-cache.ts";
import { median, round } from "./stats.ts";

const ROOT = resolve(import.meta.dir, "..");
const OMP = process.env.OMP_BIN ?? join(ROOT, "dist", "omp");
const WORK = join(ROOT, "bench", "work", "rss-floor");
const RESULTS = join(ROOT, "bench", "results");
const RUNS = 5;
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const ALL = ["fetch", "spawn", "fs", "json", "stdout"];
const STEPS: { label: string; parts: string[] }[] = [
  { label: "nothing (bench/empty.ts's floor, plus reading its own status)", parts: [] },
  { label: "a streamed request to a loopback server", parts: ["fetch"] },
  { label: "… and two child processes read through pipes (git)", parts: ["fetch", "spawn"] },
  { label: "… and node:fs and node:path reading and probing files", parts: ["fetch", "spawn", "fs"] },
  { label: "… and a 16 KB JSON body and a line on stdout through a FileSink (print mode's)", parts: ALL },
];
/** The whole floor program with one thing changed: what each of the runtime's levers is worth. */
const VARIANTS: { label: string; parts: string[]; program?: "default-jit"; env?: Record<string, string> }[] = [
  { label: "the line on stdout through Node's process.stdout instead (omp does not create it)", parts: [...ALL.filter((part) => part !== "stdout"), "node-stdout"] },
  { label: `built without omp's start-up JIT policy (--compile-jit-policy=${START_UP_JIT_POLICY})`, parts: ALL, program: "default-jit" },
  { label: "JavaScriptCore without its JIT (BUN_JSC_useJIT=0)", parts: ALL, env: { BUN_JSC_useJIT: "0" } },
];

function mib(kb: string | undefined): number {
  if (!kb) throw new Error("no VmHWM in the program's output");
  return Number(kb) / 1024;
}

async function main(): Promise<void> {
  const loadBefore = load();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const program = compileFloor("floor", COMPILE_FLAGS);
  const defaultJit = compileFloor("floor-default-jit", COMPILE_FLAGS.filter((flag) => !flag.startsWith("--compile-jit-policy")));
  // The same omp as a file just written, as a build or an install leaves it.
  const freshOmp = join(WORK, "omp-fresh");
  copyFileSync(OMP, freshOmp);
  settle([program, defaultJit, OMP]);
  const floorPeak = (binary: string, parts: string[], env: Record<string, string> = {}) =>
    round(median(Array.from({ length: RUNS }, () => mib(/VmHWM (\d+)/.exec(Bun.spawnSync([binary, ...parts], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, stdout: "pipe", stderr: "inherit" }).stdout.toString())?.[1]))), 1);
  const floors = STEPS.map((step) => ({ ...step, peakMib: floorPeak(program, step.parts) }));
  const variants = VARIANTS.map((variant) => ({ ...variant, peakMib: floorPeak(variant.program ? defaultJit : program, variant.parts, variant.env) }));
  const standin = await startStandin({ fast: true, loop: true });
  standin.setScript([{ text: "hello" }]);
  const home = join(WORK, "home");
  mkdirSync(home, { recursive: true });
  const ompPeak = async (env: Record<string, string> = {}, binary = OMP) => {
    const peaks: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      // Not spawnSync: the stand-in answers from this process's event loop.
      const child = Bun.spawn(["/usr/bin/time", "-f", "MAX_RSS_KB=%M", binary, "-p", "--model", "anthropic/claude-sonnet-5-5", "hi"], { cwd: WORK, env: { PATH: process.env.PATH, HOME: home, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-bench-0123456789", ...env }, stdout: "ignore", stderr: "pipe" });
      const [stderr] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      // The first run extracts the natives into the home: the rest are a user's every run.
      if (run > 0) peaks.push(mib(/MAX_RSS_KB=(\d+)/.exec(stderr)?.[1]));
    }
    return round(median(peaks), 1);
  };
  let omp: number;
  let ompWithoutJit: number;
  let ompFresh: number;
  try {
    omp = await ompPeak();
    ompWithoutJit = await ompPeak({ BUN_JSC_useJIT: "0" });
    ompFresh = await ompPeak({}, freshOmp);
  } finally {
    await standin.close();
  }
  const results = { date: new Date().toISOString(), bun: Bun.version, runs: RUNS, loadBefore, loadAfter: load(), floors, variants, ompWarmPeakMib: omp, ompWithoutJitPeakMib: ompWithoutJit, ompFreshCopyPeakMib: ompFresh };
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

The runtime's levers: the whole floor program (the last row above) with one thing changed, and omp the same way.

| the floor program (${floors.at(-1)!.peakMib} MiB), … | peak RSS |
|---|---|
${variants.map((variant) => `| ${variant.label} | ${variant.peakMib} MiB |`).join("\n")}
| \`omp -p hi\` with JavaScriptCore without its JIT (BUN_JSC_useJIT=0) | ${ompWithoutJit} MiB |
| \`omp -p hi\` from a fresh copy of dist/omp, cached as written (as a build or an install leaves it) | ${ompFresh} MiB |

Every executable above is measured as a run reads it back from disk: its written pages are dropped from the
page cache first (bench/page-cache.ts). A file just written is cached as the writes left it, and a run of it
maps several MiB more of it — the last row against the omp row, the same bytes; the floor program the same way
(36.9 against 31.8 MiB). A program a user runs every day is read back from disk once the kernel has dropped
the written pages; until then (right after an install or an update, on a machine with memory to spare) it
peaks as the last row.

Most of the floor is Bun's own machine code paged in from the executable (its HTTP client, process spawning,
node:fs, the JIT tiers), which no change to omp's code can leave out; what omp adds on top is its bundle's
loaded modules, the bytecode and machine code they run, and their heap.

What the floor taught (each measured on a program compiled with omp's flags, medians of 5):
- Node's process.stdout (or stderr, stdin, node:tty) loads Node's stream machinery: ~7.5 MiB in a bare
  program, ~2 MiB once node:fs is in. It was most of the "+8 MiB for a JSON body and a line on stdout" an
  earlier version of this table showed (the rest a JSON round trip of 2,000 messages, ~1.5 MiB of heap, a
  hundred times omp's first request); omp writes through a FileSink and asks the tty binding instead.
- Naming a built-in module costs even where the code never runs: a chunk that imports node:fs statically
  ~4.3 MiB, one that only has \`require("node:fs")\` in a function never called ~1.7 MiB, node:net ~4.2 and
  ~0.7 MiB. omp's start-up path names node:fs and node:path (they are in the floor above) and no longer
  node:net or node:dns (core/web/address.ts loads them on first use; test/unit/start-up-imports.test.ts).
- The runtime's levers on \`omp -p hi\`, one at a time on the build before them (2026-12-08, load 2–6, the
  binary as written): the bytecode laid out by a recorded run (embed/bytecode-order.txt) 56.7 → 52.4 MiB;
  the start-up JIT policy (100× tier-up thresholds until the first reply) 52.4 → 48.5 MiB, with 10× 49.5
  and 1000× 48.6. Both on the binary read back from disk: 51.7 → 42.7 MiB. Together -p hi's CPU time
  0.86× and wall time 0.88× of before (20 interleaved pairs). No JIT at all is 2–3 MiB lower again, but
  JavaScriptCore reads that option only as the process starts, from its environment, before any of
  omp's code runs — setting it from omp would take a second exec — and it would leave every long
  session without a JIT. Without effect (within ±0.3 MiB): \`--compile-exec-argv=--smol\` (also with the
  levers above), mimalloc's options (MIMALLOC_PURGE_DELAY=0, MIMALLOC_ARENA_EAGER_COMMIT=0,
  MIMALLOC_ARENA_RESERVE=0), BUN_GARBAGE_COLLECTOR_LEVEL=2, \`minChunkSize\` 16 and 64 KB, a full
  collection before the first request (5 ms), Error.stackTraceLimit = 0, and loading each wire API's
  stream code on its first request: code that is loaded but never run costs no measurable peak.
- The JIT policy (2026-12-08, load 1.7–3.4, interleaved runs of builds that differ in it alone, read back
  from disk). The start-up scale: \`-p hi\` peaks at 42.8, 42.8 and 42.9 MiB built with 100×, 1,000× and
  100,000× (medians of 20; the normal policy 46.0): at 100× one function reaches the baseline JIT on
  \`-p hi\` (44 at 1×, none at 100,000×), so no higher scale is left to gain. What still separates omp
  from its no-JIT peak is the JIT being there, not what it compiles: \`BUN_JSC_useBaselineJIT=0\` 41.5,
  \`useJIT=0\` 39.3, \`useRegExpJIT=0\` 42.6, \`useDFGJIT=0\` 42.8 (medians of 12), and JavaScriptCore reads
  those only from the environment as the process starts. After start-up, the policy a run returns to
  after its first reply (medians of 8 unless said, CPU time of the whole run including its commands; 200- and 600-turn
  sessions alternate an edit of a 3,000-line file and a read of a 5 KB module):

  | workload | back to 1× | 3× | 10× | kept at 100× | 1× without the DFG tier |
  |---|---|---|---|---|---|
  | 100 bash calls: CPU, wall, peak (medians of 12) | 1,135 ms, 1.34 s, 62.0 MiB | | | 907, 1.20, 55.2 | 997, 1.41, 57.4 |
  | 100 reads: CPU, wall, peak (medians of 12) | 489 ms, 502 ms, 62.4 MiB | | | 360, 401, 58.2 | 388, 380, 57.8 |
  | 100 bash calls, an earlier run with the homes in /tmp (the sandbox's grant of its 4,000 entries dominates) | 3,013 ms, 4.57 s, 60.8 MiB | 2,783, 4.63, 60.0 | 2,836, 4.81, 58.5 | 2,795, 4.67, 54.6 | 2,808, 4.38, 56.7 |
  | 100 reads, the earlier run | 575 ms, 559 ms, 61.9 MiB | 545, 532, 62.6 | 499, 505, 60.1 | 471, 506, 58.5 | 562, 537, 58.1 |
  | 200 turns, print mode: CPU, wall, peak | 2,534 ms, 3.26 s, 71.0 MiB | | 2,134, 2.76, 66.8 | 2,086, 2.92, 65.4 | |
  | 600 turns in one \`--mode rpc\` process (medians of 6) | 25.8 s, 24.9 s, 119 MiB | | 24.0, 24.7, 119 | 23.7, 24.4, 110 | |

  The normal policy did not pay back its compiling even over 600 turns, so print, rpc and acp keep the
  start-up policy to their end (code hot enough still tiers up, a hundred times later), and \`-p hi\`
  peaks lower too: 42.8 → 41.6 MiB (20 pairs, CPU 34.0 against 34.7 ms), 43.4 → 42.3 in a git repository.
  The interactive mode returns to the normal policy at its first frame, where the JIT does pay: keystroke
  to screen while an answer streams 0.78 and 0.97 ms (median) against 1.08 and 1.15 ms kept at 100×
  (bench/interactive.ts, two runs each, load 1.4–1.9); the other commands return to it at once
  (core/agent/start-up-jit.ts). In \`bench/tool-loop.ts --only bash100,read100\` (3 runs, load 2.5–3.3,
  one run after the other) Claude Code's whole run over omp's went from 3.62× to 4.34× on the bash calls
  and from 9.12× to 15.6× on the reads (omp 1,660 → 1,409 ms and 642 → 338 ms); \`bun bench/agent.ts memory\`
  (200 turns, the worst of four APIs' rpc and print peaks) 75.3 MB for the build before, 73.3 and 70.6 after.
  The bytecode order re-recorded on this build (embed/bytecode-order.txt) took \`-p hi\` from 42.5 to 41.8 MiB
  in a git repository and from 41.8 to 40.9 in a plain folder (12 interleaved pairs each, load 2.7–2.8).
- Where omp's ~11 MiB above the floor program go (/proc/self/smaps at exit, both read back from disk):
  ~5.4 MiB more anonymous memory (the JS heap of its start-up: 133 modules' records and environments
  ~1.4 MiB, the 673 functions it runs ~1.2 MiB of code blocks, objects, strings, and what the collector
  has not reclaimed yet), ~3.1 MiB more of Bun's machine code (the native functions its start-up calls
  that the floor does not: spawnSync, file locks, fsync, hashing, regular expressions), ~1.7 MiB of its
  bundle's pages (the bytecode it runs and its chunks' source). None of it is one module or one table:
  loading code that never runs costs no measurable peak (the yaml parser's 116 KB chunk, every wire API's
  stream code, a run's SQLite and node:os use: each within ±0.2 MiB), and 40 MiB is under what omp's
  start-up work costs on this Bun unless the JIT is off altogether (the row above: 39.8).
- What \`-p hi\` builds, stage by stage (2026-12-08, load 1–5, a diagnosis build of this tree that exits at
  each stage, not committed; medians of 5, read back from disk): the entry, payload and cli/main.ts (which
  names node:fs) 23.1 MiB; the agent command's static graph loaded (118 chunks, 469 KB of source, 315
  source modules) 28.4; git started (findRepo, the first spawn) 32.6; up to the session's assembly 33.0;
  settings, tools, extensions, skills, MCP and plugin look-ups and the model chosen 36.7; the agent made
  38.4; the request, its stream, the session file and the printed answer 42.3. A stage's step is not
  what it alone costs: the first spawn, file read or socket pages in Bun's shared native code, which a
  later stage would otherwise pay (the same \`-p hi\` without the launcher's \`--probe\` spawnSync: 42.1 against
  42.0 MiB, 8 interleaved pairs).
- Where it sits at exit (/proc/self/smaps and pagemap, read back from disk): 25.0 MiB of Bun's machine
  code and 5.2 of its read-only data, 2.4 of the executable's data (2.0 of it the embedded bundle: 768 KB
  of the recorded bytecode in one run, the module graph's names and strings, and six 64 KB runs of
  other bytecode — the kernel maps a file's pages 64 KB around each fault, so a sparse touch costs 16
  pages), 8.2 anonymous. The JS heap is 2.1 MB of it (heapStats; 16,500 cells): 132 module records
  0.69 MB (the largest, the agent loop's chunk, 116 KB), 2,270 structures 0.25, 1,440 function
  executables and their unlinked forms 0.32, 204 code blocks 0.24, 3,450 strings 0.13, 2,390 functions
  0.08; no table, schema or registry over 30 KB (no zod object exists in a \`-p hi\` run: tool schemas are
  declarations made at build time). What is left is Bun's own memory around that: bytecode, allocator
  pages, threads, buffers.
- The bytecode order recorded in a git repository (embed/record-bytecode-order.ts; it was recorded in
  a folder outside any, so the git summary's functions sat with the unused ones): -p hi in a
  repository 41.90 → 41.50 MiB (14 interleaved pairs), in a plain folder 41.07 → 40.84. Bun's
  \`bytecodeOrderStats()\` (bun:jsc) at exit showed why: 37 functions decoded from the cold region
  before, 2 after, each cold one paging in 64 KB. Of the embedded bundle a run now touches ~1.55 MiB:
  0.7 of the bundle's shared string table (the strings of start-up code lie among all the others),
  0.77 the module heads and the recorded functions, 0.25 the two cold functions and the start of
  the expression info (line and column data, read when an error is made), the module table.
- Of the 8.2 MiB anonymous, mimalloc holds most (Bun.unsafe.mimallocDump at exit): 8.2 MiB in small
  and medium blocks against the floor program's 2.4 — JavaScriptCore's own 16 KB heap blocks are only
  1.2 against 1.0 MiB of it; the rest is what the engine mallocs around the code it loads and runs
  (code blocks and their metadata, symbol tables, module records, identifiers). Loading modules also
  holds ~1.5 MiB of 10 KB blocks at once (167 of them, about one per module), freed by the end.
- What loading code costs, measured: a print run that also loads the interactive mode's static graph
  (55 more modules, 140 KB minified, their top-level code run) peaks 1.6 MiB higher (43.9 against 42.2,
  6 pairs); a run without the session listing (8 KB the agent loop imported for one constant, now left
  out: core/session/name-entry.ts, test/unit/start-up-imports.test.ts) the same as with it (41.92
  against 41.89 MiB, wall 36.6 against 37.5 ms, 20 pairs at load 5.7). No locale code runs (Intl,
  localeCompare, normalize and the toLocale methods wrapped in a diagnosis build: none called on
  \`-p hi\`).
- What single uses of Bun cost on top of the whole floor program (the program with one call added,
  compiled alike, medians of 7, load ~5; an experiment, not part of this bench): the first regular
  expression run +0.65 MiB (a \`replace\` and a \`split\` with one +1.0), a local-time Date method
  (getTimezoneOffset, getHours, toString, …) +3.7 MiB — ICU's time zones; \`-p hi\` calls none, its
  dates are UTC (at exit a first getTimezoneOffset still adds 3.4 MiB), so none may join the
  start-up path —, loading bun:sqlite +0.5, file writes with fsync, rename and link +0.4, an
  AbortController +0.4, a sha256 +0.3, crypto random values +0.3, structuredClone +0.2, spawnSync
  +0.2, four Bun.which +0.1. omp's start-up needs most of these; one left out while the run reaches
  the same native code another way saves nothing: a first prompt without a memory database no longer
  loads the memory store and bun:sqlite (core/memory/session-block.ts), and \`-p hi\` peaks the same
  (41.44 against 41.45 MiB, 14 pairs).
- Tried this round without effect: the bytecode order re-recorded on an unchanged tree (42.06 against
  41.92 MiB, 8 pairs), the launcher's probe left out (above). Bun.shrink() (a full collection that
  also drops compiled code and gives freed pages back) before the first request lowers the peak a
  little, 41.97 against 42.20 MiB (14 pairs), but costs 1.7–3.3 ms itself and the run's wall time rose
  from 56 to 74 ms in those pairs (load 4.6): not taken. Running less JavaScript cannot reach 40 MiB on its own: all of omp's JS heap is
  2.1 MB, the engine's memory around it scales with the code loaded and run (above: ~1.6 MiB for 140
  KB), and what \`-p hi\` loads is what its request needs — the tools' declarations, the settings,
  extension, skill, MCP and plugin look-ups, the agent loop, the wire API — each module small.
- A first run (a fresh home: the sandbox launcher is extracted) peaked 3.7 MiB above a warm one; a full
  collection right after the extraction gives its buffers back (core/natives/extract.ts), 45.3 → 43.0.
`;
  writeFileSync(join(RESULTS, "rss-floor.md"), md);
  console.log(md);
}

/** The floor program compiled with `flags` into the work folder. */
function compileFloor(name: string, flags: string[]): string {
  const outfile = join(WORK, name);
  const built = Bun.spawnSync([process.execPath, "build", ...flags, join(ROOT, "bench", "rss-floor-program.ts"), "--outfile", outfile], { stdio: ["ignore", "ignore", "inherit"] });
  if (built.exitCode !== 0) throw new Error("bun build --compile failed");
  return outfile;
}

await main();
