/**
 * The tool loop side by side (`bun bench/tool-loop.ts [--runs 3]`): omp (dist/omp, default sandbox
 * and checkpoints), Claude Code and Codex (node_modules/.bin) each run print-mode sessions against
 * the zero-latency provider stand-in, whose every reply is one tool call:
 *
 * - 40 bash calls (`echo i > out.txt`, a change, so omp's checkpoints snapshot it) in a committed
 *   1,000-file git repository, and the same in a plain folder with the same files;
 * - 100 bash calls in the plain folder; 100 read calls of a 5 KB file (omp and Claude Code: Codex
 *   reads through its shell);
 * - `-p hi` (one request, no tool call) and an 11-request session of reads and `ls`, for the peak
 *   RSS (GNU time, every run) and the bytes every request body carried in all.
 *
 * And in process, what a command's checkpoint costs on the same repository (core/session/checkpoints):
 * the time around a command that changes one file, and around one that changes nothing.
 *
 * Per call: (last request's arrival − first request's arrival − the stand-in's own time) / calls,
 * so start-up is left out; whole runs are wall time from spawn to exit. Runs are interleaved so
 * that load from the machine's other work hits every agent alike. Writes bench/results/tool-loop.json and .md.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { type ScriptedToolCall, type Standin, type Turn, startStandin } from "../test/support/standin/index.ts";
import { writeToolLoopTree } from "../test/support/fixture-tree.ts";
import { perStepOutsideProvider, posts } from "./startup-timing.ts";
import { aroundCommand } from "../core/session/checkpoints/commands.ts";
import { median, percentile, round } from "./stats.ts";
import { ROOT, OMP, RESULTS, workDir } from "./paths.ts";
import { packageExecutables, settle } from "./page-cache.ts";

const BIN = join(ROOT, "node_modules", ".bin");
// The folders are outside omp's own repository: under bench/work the "plain" folder sat in a git
// work tree, so every command there was checkpointed against the whole omp checkout and the
// system prompt carried omp's own git log. The homes stay out of the temp dir, as a user's home
// is: the sandbox grants each entry of a folder that holds a denied path (~/.ssh) one by one, and
// a shared /tmp holds thousands. The work folder is this run's own (two runs at once must not wipe
// each other's trees) and goes at its end; one a killed run leaves, the test preload's sweep of
// stale omp-* folders removes.
const WORK = mkdtempSync(join(tmpdir(), "omp-bench-tool-loop-"));
const HOMES = workDir("tool-loop-homes");
// Each run has a home of its own, but omp's native parts (the addon, the sandbox launcher) are
// extracted once per install, not per session: every run shares one natives folder, filled by the
// warm-up run, so no timed run pays a first run's extraction.
const NATIVES = join(HOMES, "natives");
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;
/** `--only hi,session11` and `--agents omp`: a subset while working on one row; the results files are then left alone. */
const listArg = (flag: string) => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1]!.split(",") : undefined);
const ONLY = listArg("--only");
const ONLY_AGENTS = listArg("--agents");
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

interface Agent {
  name: string;
  argv(standin: Standin): string[];
  env(standin: Standin, home: string): Record<string, string>;
  bash(command: string): ScriptedToolCall;
  read?(absolute: string, relative: string): ScriptedToolCall;
}

const BASE_ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", NO_PROXY: "127.0.0.1,localhost" };

const AGENTS: Agent[] = [
  {
    name: "omp",
    argv: () => [OMP, "-p", "--model", "anthropic/claude-sonnet-5-5", "go"],
    env: (standin, home) => ({ ...BASE_ENV, HOME: home, OMP_NATIVES_DIR: NATIVES, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-bench-0123456789" }),
    bash: (command) => ({ name: "bash", arguments: { command } }),
    read: (_absolute, relative) => ({ name: "read", arguments: { path: relative } }),
  },
  {
    name: "Claude Code",
    argv: () => [join(BIN, "claude"), "-p", "go", "--allowedTools", "Bash,Read"],
    // Offline: the stand-in as its API, none of its other traffic.
    env: (standin, home) => ({ ...BASE_ENV, HOME: home, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-bench-0123456789", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1", CLAUDE_CODE_MAX_RETRIES: "0" }),
    bash: (command) => ({ name: "Bash", arguments: { command, description: "write the counter" } }),
    read: (absolute) => ({ name: "Read", arguments: { file_path: absolute } }),
  },
  {
    name: "Codex",
    argv: (standin) => [
      join(BIN, "codex"),
      "exec",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "-m",
      "gpt-5",
      "-c",
      "model_provider=standin",
      "-c",
      `model_providers.standin={name="standin",base_url="${standin.url}/v1",env_key="STANDIN_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0}`,
      "go",
    ],
    env: (_standin, home) => ({ ...BASE_ENV, HOME: home, CODEX_HOME: join(home, "codex"), STANDIN_KEY: "sk-bench" }),
    bash: (command) => ({ name: "exec_command", arguments: { cmd: command } }),
  },
];

function sh(cwd: string, ...args: string[]): void {
  const result = Bun.spawnSync(args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@example.com" }, stdout: "ignore", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr.toString()}`);
}

/** The tool-loop tree (1,000 small source files and a 5 KB module), committed to a repository when `git`. */
function makeTree(dir: string, git: boolean): void {
  rmSync(dir, { recursive: true, force: true });
  writeToolLoopTree(dir);
  if (!git) return;
  sh(dir, "git", "init", "-q", "-b", "main");
  sh(dir, "git", "add", "-A");
  sh(dir, "git", "commit", "-q", "-m", "initial");
}

interface Sample {
  perCallMs: number;
  /** The request bodies the run sent, in all. */
  inputBytes: number;
  wallMs: number;
  maxRssMb?: number;
}

async function runLoop(standin: Standin, agent: Agent, cwd: string, calls: Turn[], home: string): Promise<Sample> {
  standin.setScript([...calls, { text: "done" }, ...Array.from({ length: 4 }, () => ({ text: "done" }))]);
  standin.requests.length = 0;
  mkdirSync(join(home, "codex"), { recursive: true });
  const timed = existsSync("/usr/bin/time");
  const argv = [...(timed ? ["/usr/bin/time", "-f", "MAX_RSS_KB=%M"] : []), ...agent.argv(standin)];
  const started = performance.now();
  const child = Bun.spawn(argv, { cwd, env: agent.env(standin, home), stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`${agent.name} exited ${code}: ${stderr.slice(-1500)}`);
  const requests = posts(standin);
  if (requests.length < calls.length + 1) throw new Error(`${agent.name}: ${requests.length} requests for ${calls.length} calls`);
  const kb = /MAX_RSS_KB=(\d+)/.exec(stderr)?.[1];
  const sent = requests.slice(0, calls.length + 1);
  return { perCallMs: calls.length > 0 ? perStepOutsideProvider(sent) : 0, inputBytes: sent.reduce((sum, r) => sum + Buffer.byteLength(r.rawBody ?? ""), 0), wallMs, ...(kb ? { maxRssMb: Number(kb) / 1024 } : {}) };
}

interface Loop {
  key: string;
  label: string;
  calls: number;
  dir: "git" | "plain";
  /** mixed: reads of the 5 KB module and `ls src` in turn (Codex reads through its shell). */
  kind: "bash" | "read" | "mixed";
}

const LOOPS: Loop[] = [
  { key: "bashGit", label: "40 bash calls, 1,000-file git repository", calls: 40, dir: "git", kind: "bash" },
  { key: "bashPlain", label: "40 bash calls, the same files in a plain folder", calls: 40, dir: "plain", kind: "bash" },
  { key: "bash100", label: "100 bash calls, plain folder", calls: 100, dir: "plain", kind: "bash" },
  { key: "read100", label: "100 read calls (5 KB file), plain folder", calls: 100, dir: "plain", kind: "read" },
  { key: "hi", label: "`-p hi`: one request, no tool call", calls: 0, dir: "plain", kind: "bash" },
  { key: "session11", label: "an 11-request session: 10 calls, reads of the 5 KB module and `ls src` in turn", calls: 10, dir: "plain", kind: "mixed" },
];

/** The tool call of step `i` of `loop` in `agent`'s own tools. */
function callOf(agent: Agent, loop: Loop, cwd: string, i: number): Turn {
  const read = (): ScriptedToolCall => (agent.read ? agent.read(join(cwd, "module.ts"), "module.ts") : agent.bash("cat module.ts"));
  const call = loop.kind === "bash" ? agent.bash(`echo ${i} > out.txt`) : loop.kind === "read" || i % 2 === 0 ? read() : agent.bash("ls src");
  return { toolCalls: [call] };
}

/** CPU seconds of this process's reaped children (git), from /proc: clock ticks, so only a sum over many commands means much. */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[14]) + Number(fields[15])) * 1000) / 100;
}

/**
 * The checkpoint's own time around a command, in process: p50 and p90 over `runs` commands of one
 * turn, wall and CPU (this process's per command, p50; the git it started, averaged over the runs).
 */
async function checkpointCost(repo: string, runs: number, change: boolean) {
  const session = join(WORK, "checkpoint-session", `${change ? "change" : "none"}.jsonl`);
  mkdirSync(join(WORK, "checkpoint-session"), { recursive: true });
  writeFileSync(session, "");
  const target = { session, cwd: repo, sessionId: `bench-${change}`, entryId: "e1", turn: "t1", maxBytes: 512 * 1024 * 1024 };
  const samples: number[] = [];
  const cpu: number[] = [];
  let childrenBefore = 0;
  for (let i = 0; i < runs + 5; i++) {
    if (i === 5) childrenBefore = childrenCpuMs();
    let inside = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await aroundCommand(target, repo, "bench", undefined, async () => {
      const at = performance.now();
      if (change) writeFileSync(join(repo, "out.txt"), `${i}\n`);
      inside = performance.now() - at;
    });
    const used = process.cpuUsage(cpuBefore);
    if (i >= 5) {
      samples.push(performance.now() - started - inside);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  return { runs, p50Ms: round(median(samples), 2), p90Ms: round(percentile(samples, 90), 2), cpuP50Ms: round(median(cpu), 2), gitCpuMs: round((childrenCpuMs() - childrenBefore) / runs, 2) };
}

async function main(): Promise<void> {
  const loadBefore = load();
  rmSync(HOMES, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const dirs = { git: join(WORK, "git"), plain: join(WORK, "plain") };
  makeTree(dirs.git, true);
  makeTree(dirs.plain, false);
  const partial = ONLY !== undefined || ONLY_AGENTS !== undefined;
  const checkpoint = partial ? undefined : { changed: await checkpointCost(dirs.git, 100, true), unchanged: await checkpointCost(dirs.git, 100, false) };
  if (checkpoint) console.error(`checkpoint per command: ${checkpoint.changed.p50Ms} ms changing a file, ${checkpoint.unchanged.p50Ms} ms changing nothing (p50); CPU ${checkpoint.changed.cpuP50Ms} + git ${checkpoint.changed.gitCpuMs} ms / ${checkpoint.unchanged.cpuP50Ms} + git ${checkpoint.unchanged.gitCpuMs} ms`);
  // --checkpoint-only: the in-process measure alone (its results are printed, the files left alone).
  if (process.argv.includes("--checkpoint-only")) return;
  // Every agent's executables as a run reads them back from disk, not as a build or an install wrote them.
  settle([OMP, ...packageExecutables(join(ROOT, "node_modules", "@anthropic-ai"), ["claude-code"]), ...packageExecutables(join(ROOT, "node_modules", "@openai"), ["codex"])]);
  const standin = await startStandin({ fast: true });
  const samples: Record<string, Record<string, Sample[]>> = {};
  try {
    // One untimed run of each agent first: its executable read back into the page cache (as on any
    // run but the first after a reboot) and omp's natives extracted, so the first timed run is like the rest.
    for (const agent of AGENTS) {
      if (ONLY_AGENTS && !ONLY_AGENTS.includes(agent.name)) continue;
      const home = join(HOMES, `${agent.name.replace(/\W/g, "")}-warm-up`);
      mkdirSync(home, { recursive: true });
      await runLoop(standin, agent, dirs.git, [callOf(agent, LOOPS[0]!, dirs.git, 0)], home);
    }
    for (let run = 0; run < RUNS; run++) {
      for (const loop of LOOPS) {
        if (ONLY && !ONLY.includes(loop.key)) continue;
        for (const agent of AGENTS) {
          if (loop.kind === "read" && !agent.read) continue;
          if (ONLY_AGENTS && !ONLY_AGENTS.includes(agent.name)) continue;
          const cwd = dirs[loop.dir];
          const calls = Array.from({ length: loop.calls }, (_, i) => callOf(agent, loop, cwd, i));
          const home = join(HOMES, `${agent.name.replace(/\W/g, "")}-${loop.key}-${run}`);
          mkdirSync(home, { recursive: true });
          const sample = await runLoop(standin, agent, cwd, calls, home);
          ((samples[loop.key] ??= {})[agent.name] ??= []).push(sample);
          console.error(`run ${run + 1}/${RUNS} ${loop.key} ${agent.name}: ${round(sample.perCallMs, 2)} ms per call, ${round(sample.wallMs, 0)} ms in all${sample.maxRssMb ? `, ${round(sample.maxRssMb, 1)} MiB` : ""}`);
        }
      }
    }
  } finally {
    await standin.close();
  }
  const summary = Object.fromEntries(
    Object.entries(samples).map(([loop, byAgent]) => [
      loop,
      Object.fromEntries(
        Object.entries(byAgent).map(([agent, list]) => [
          agent,
          {
            perCallMs: round(median(list.map((s) => s.perCallMs)), 2),
            wallMs: round(median(list.map((s) => s.wallMs)), 0),
            inputKb: round(median(list.map((s) => s.inputBytes)) / 1000, 1),
            ...(list.every((s) => s.maxRssMb !== undefined) ? { maxRssMb: round(median(list.map((s) => s.maxRssMb!)), 1) } : {}),
            perCallMsAll: list.map((s) => round(s.perCallMs, 2)),
          },
        ]),
      ),
    ]),
  );
  if (partial) {
    console.log(JSON.stringify(summary, null, 2));
    return;
  }
  const results = { date: new Date().toISOString(), cpu: cpus()[0]?.model, cores: cpus().length, bun: Bun.version, runs: RUNS, loadBefore, loadAfter: load(), checkpoint, loops: LOOPS, summary };
  writeFileSync(join(RESULTS, "tool-loop.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(RESULTS, "tool-loop.md"), markdown(results));
  console.log(markdown(results));
}

function markdown(r: any): string {
  const s = r.summary;
  const omp = (loop: string) => s[loop]?.omp;
  const peer = (loop: string, name: string) => s[loop]?.[name];
  const cell = (x: any) => (x ? `${x.perCallMs} ms/call, ${x.wallMs} ms, ${x.inputKb} KB sent${x.maxRssMb ? `, ${x.maxRssMb} MiB` : ""}` : "—");
  const rows = (r.loops as Loop[]).filter((loop) => loop.calls > 0).map((loop) => `| ${loop.label} | ${cell(omp(loop.key))} | ${cell(peer(loop.key, "Claude Code"))} | ${cell(peer(loop.key, "Codex"))} |`);
  const gitOverPlain = round(omp("bashGit").perCallMs / omp("bashPlain").perCallMs, 2);
  const ratio = (loop: string, name: string) => (peer(loop, name) ? round(peer(loop, name).wallMs / omp(loop).wallMs, 2) : "—");
  return `# Tool loop: omp, Claude Code and Codex

\`bun bench/tool-loop.ts\` on ${r.cpu} (${r.cores} cores), Bun ${r.bun}, ${r.date}; ${r.runs} interleaved runs, medians.
Load average (1, 5, 15 min) before: ${r.loadBefore}; after: ${r.loadAfter} — the machine is shared, so compare ratios.
The provider is the test stand-in in zero-latency mode; every reply is one tool call. "ms/call" leaves start-up out
(request to request, minus the stand-in's time); the second number is the whole run, spawn to exit; omp's RSS is GNU time's max.
Every executable is dropped from the page cache first and each agent runs once untimed, so every timed run reads it back as a
later run does; each run has a fresh home, omp's native parts extracted once into a folder they share (as after a first run).
The read loop reads one unchanged file: from the second read on omp sends a one-line reference to the first result
(core/agent/repeated-results.ts), which is most of its lead there; a session of different files is bench/agent.ts's long session.

| loop | omp | Claude Code | Codex |
|---|---|---|---|
${rows.join("\n")}

| goal | measured | target | |
|---|---|---|---|
| a bash call in the 1,000-file git repository vs the same in a plain folder (omp) | ${gitOverPlain}× (${omp("bashGit").perCallMs} vs ${omp("bashPlain").perCallMs} ms) | ≤ 1.3× | ${gitOverPlain <= 1.3 ? "met" : "missed"} |
| the checkpoint per command in the git repository, in process (p50; p90): changing one file / changing nothing | ${r.checkpoint.changed.p50Ms} ms (${r.checkpoint.changed.p90Ms}) / ${r.checkpoint.unchanged.p50Ms} ms (${r.checkpoint.unchanged.p90Ms}) | ≤ 10 ms p50 | ${r.checkpoint.changed.p50Ms <= 10 ? "met" : "missed"} |
| its CPU time per command (omp's p50 + the git it starts, mean): changing one file / changing nothing | ${r.checkpoint.changed.cpuP50Ms} + ${r.checkpoint.changed.gitCpuMs} ms / ${r.checkpoint.unchanged.cpuP50Ms} + ${r.checkpoint.unchanged.gitCpuMs} ms | — | |
| the same seen from the loop (git − plain per call, omp) | ${round(omp("bashGit").perCallMs - omp("bashPlain").perCallMs, 2)} ms | — | |
| bash in the git repository: faster than Claude Code and Codex | omp ${omp("bashGit").perCallMs}, Claude Code ${peer("bashGit", "Claude Code")?.perCallMs}, Codex ${peer("bashGit", "Codex")?.perCallMs} ms/call | faster than both | ${omp("bashGit").perCallMs < Math.min(peer("bashGit", "Claude Code")?.perCallMs ?? Infinity, peer("bashGit", "Codex")?.perCallMs ?? Infinity) ? "met" : "missed"} |
| 100 bash calls: Claude Code's whole run over omp's | ${ratio("bash100", "Claude Code")}× | ≥ 5× | ${Number(ratio("bash100", "Claude Code")) >= 5 ? "met" : "missed"} |
| peak RSS of \`-p hi\`: omp, Claude Code, Codex | ${omp("hi").maxRssMb}, ${peer("hi", "Claude Code")?.maxRssMb}, ${peer("hi", "Codex")?.maxRssMb} MiB | ≤ 40 MiB | ${omp("hi").maxRssMb <= 40 ? "met" : "missed"} |
| input bytes of the 11-request session (every request body): omp, Claude Code, Codex | ${omp("session11").inputKb}, ${peer("session11", "Claude Code")?.inputKb}, ${peer("session11", "Codex")?.inputKb} KB | ≤ 200 KB | ${omp("session11").inputKb <= 200 ? "met" : "missed"} |
| 100 read calls: Claude Code's whole run over omp's; omp's peak RSS | ${ratio("read100", "Claude Code")}×; ${omp("read100").maxRssMb} MiB | ≥ 12×, ≤ 72 MiB | ${Number(ratio("read100", "Claude Code")) >= 12 && omp("read100").maxRssMb <= 72 ? "met" : "missed"} |
`;
}

try {
  await main();
} finally {
  rmSync(WORK, { recursive: true, force: true });
}
