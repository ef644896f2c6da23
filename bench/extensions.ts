/**
 * `bun bench/extensions.ts`: what skills, commands, agents and hooks on disk cost a session's
 * start. Spawn of `omp -p hello` to the arrival of its first request at the zero-latency provider
 * stand-in, in a repository and HOME with 200 skills, 100 commands, 50 agents and 10 hooks, against
 * the same with none of them; runs interleaved, so load from elsewhere hits both alike. Also the
 * first request of a run that sends a markdown command (`omp -p "/cmd-042 x"`). Writes
 * bench/results/extensions.json and extensions.md.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { startStandin } from "../test/support/standin/index.ts";
import { median, now, percentile, round } from "./stats.ts";
import { OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("extensions");
const RUNS = Number(process.env.BENCH_RUNS ?? 60);
const TARGET = 1.15;

function put(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

function git(cwd: string, ...args: string[]): void {
  const result = Bun.spawnSync(["git", ...args], { cwd, env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@example.com" }, stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
}

const description = (what: string, i: number) =>
  `Use this ${what} when the user works on area ${i} of the product: it knows the conventions, the common pitfalls and the checks to run before calling the work done.`;

/** A HOME and a repository; with `full`, the extensions spread over the user and project folders as users keep them. */
function setup(name: string, full: boolean): { home: string; repo: string } {
  const home = join(WORK, name, "home");
  const repo = join(WORK, name, "repo");
  mkdirSync(home, { recursive: true });
  put(repo, "src/index.ts", "export const x = 1;\n");
  put(repo, "README.md", "# bench\n");
  git(repo, "init", "-q", "-b", "main");
  // The baseline holds the same files where omp does not look for extensions, so git (whose status
  // the system prompt carries) walks the same tree in both and the difference is omp's own.
  addExtensions(home, repo, full ? (dir) => dir : (dir) => `not-extensions/${dir.replace(/^\./, "")}`);
  // A project's skills and commands are checked in, as teams share them.
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "initial");
  return { home, repo };
}

function addExtensions(home: string, repo: string, place: (dir: string) => string): void {
  const body = (title: string) => `# ${title}\n\n${"Follow these steps carefully and check each result before moving on.\n".repeat(30)}`;
  for (let i = 0; i < 200; i++) {
    const [root, dir] = i % 2 === 0 ? [home, ".omp/agent/skills"] : [repo, ".claude/skills"];
    const allowed = i % 3 === 0 ? "allowed-tools:\n  - Read\n  - Bash(git status:*)\n" : "";
    put(root, `${place(dir)}/skill-${i}/SKILL.md`, `---\nname: skill-${i}\ndescription: ${description("skill", i)}\n${allowed}---\n${body(`Skill ${i}`)}`);
    put(root, `${place(dir)}/skill-${i}/references/notes.md`, "notes\n");
  }
  for (let i = 0; i < 100; i++) {
    const id = String(i).padStart(3, "0");
    const [root, dir] = i % 2 === 0 ? [home, `.claude/commands${i % 4 === 0 ? "/team" : ""}`] : [repo, ".omp/commands"];
    put(root, `${place(dir)}/cmd-${id}.md`, `---\ndescription: ${description("command", i)}\nargument-hint: <file>\nallowed-tools: Bash(git status:*), Bash(git diff:*)\n---\nReview $ARGUMENTS.\n\nStatus: !\`git status --short\`\n`);
  }
  for (let i = 0; i < 50; i++) {
    const [root, dir] = i % 2 === 0 ? [home, ".omp/agent/agents"] : [repo, ".claude/agents"];
    put(root, `${place(dir)}/agent-${i}.md`, `---\nname: agent-${i}\ndescription: ${description("agent", i)}\ntools: Read, Grep, Glob\nmodel: sonnet\n---\nYou are agent ${i}. ${body("Agent")}`);
  }
  const hooks = Array.from({ length: 10 }, (_, i) => ({ matcher: i % 2 ? "Bash" : "Edit|Write", hooks: [{ type: "command", command: `echo hook-${i}`, timeout: 10 }] }));
  put(home, `${place(".omp/agent/hooks")}/hooks.json`, `${JSON.stringify({ hooks: { PreToolUse: hooks.slice(0, 5), PostToolUse: hooks.slice(5) } }, null, 2)}\n`);
}

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  const loadBefore = loadAverage();
  const standin = await startStandin({ script: [{ text: "ok" }], loop: true, fast: true });
  const none = setup("none", false);
  const full = setup("full", true);
  const key = "bench-key-0123456789";
  const firstRequest = async (where: { home: string; repo: string }, prompt: string) => {
    standin.requests.length = 0;
    const started = now();
    const child = Bun.spawn([OMP, "-p", "--model", "anthropic/claude-sonnet-5-5", prompt], {
      cwd: where.repo,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: where.home, LANG: "C.UTF-8", ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: key },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`omp -p failed: ${stderr}`);
    const post = standin.requests.find((r) => r.method === "POST");
    if (!post) throw new Error("no request reached the stand-in");
    const usage = child.resourceUsage();
    // CPU time (µs) of the whole run: unlike wall time, barely moved by other load on the machine.
    const cpuMs = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000 : Number.NaN;
    return { ms: post.receivedAt - started, cpuMs, body: post.body };
  };
  // The full setup's first request must really carry the skills: otherwise the comparison means nothing.
  const check = await firstRequest(full, "hello");
  const system = JSON.stringify(check.body.system);
  if (!system.includes("skill-0:") || !check.body.tools.some((t: any) => t.name === "skill")) throw new Error("the skills did not reach the system prompt");
  const withCommand = await firstRequest(full, "/cmd-042 src/index.ts");
  if (!JSON.stringify(withCommand.body.messages).includes("Review src/index.ts.")) throw new Error("the command was not expanded");

  for (let i = 0; i < 5; i++) {
    await firstRequest(none, "hello");
    await firstRequest(full, "hello");
  }
  const times = { none: [] as number[], full: [] as number[], command: [] as number[] };
  const cpu = { none: [] as number[], full: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    const plain = await firstRequest(none, "hello");
    const loaded = await firstRequest(full, "hello");
    times.none.push(plain.ms);
    times.full.push(loaded.ms);
    cpu.none.push(plain.cpuMs);
    cpu.full.push(loaded.cpuMs);
    times.command.push((await firstRequest(full, "/cmd-042 src/index.ts")).ms);
  }
  await standin.close();
  const stats = (values: number[]) => ({ median: round(median(values)), p90: round(percentile(values, 90)), min: round(Math.min(...values)) });
  const result = {
    date: new Date().toISOString(),
    runs: RUNS,
    cpu: cpuName(),
    none: stats(times.none),
    full: stats(times.full),
    fullWithCommand: stats(times.command),
    ratio: round(median(times.full) / median(times.none), 3),
    cpuMs: { none: round(median(cpu.none)), full: round(median(cpu.full)), ratio: round(median(cpu.full) / median(cpu.none), 3) },
    loadBefore,
    loadAfter: loadAverage(),
    target: TARGET,
    systemPromptSkillsChars: system.length,
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, "extensions.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, "extensions.md"), markdown(result));
  rmSync(WORK, { recursive: true, force: true });
  console.log(markdown(result));
}

function loadAverage(): string {
  try {
    return (require("node:fs").readFileSync("/proc/loadavg", "utf8") as string).split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

function cpuName(): string {
  try {
    const info = require("node:fs").readFileSync("/proc/cpuinfo", "utf8") as string;
    return /model name\s*:\s*(.+)/.exec(info)?.[1]?.trim() ?? process.arch;
  } catch {
    return process.arch;
  }
}

function markdown(r: any): string {
  return `# Extension benchmarks

\`bun bench/extensions.ts\` on ${r.cpu} (${navigator.hardwareConcurrency} cores, ${process.platform}-${process.arch}, Bun ${Bun.version}), ${r.date}.
Provider: the test stand-in in zero-latency mode, on loopback. ${r.runs} runs of each case, interleaved.
Load average (1, 5, 15 min) before: ${r.loadBefore}; after: ${r.loadAfter}. Other work on this machine stretches the
wall times; the CPU time each run used (user + system, from the kernel) is much less affected by it. Under heavy
load the absolute times mean little (bench/results/agent.md has the quiet-machine start-up); the ratios are the result.

| Benchmark | Measured | Target | Result |
|---|---|---|---|
| Start to first request with 200 skills, 100 commands, 50 agents, 10 hooks on disk | ${r.full.median} ms = ${r.ratio}× the same without them (${r.none.median} ms) | ≤ ${r.target}× | ${r.ratio <= r.target ? "met" : "not met"} |

| case (\`omp -p\`, spawn to first request byte) | median | p90 | min |
|---|---|---|---|
| no extensions | ${r.none.median} ms | ${r.none.p90} ms | ${r.none.min} ms |
| 200 skills, 100 commands, 50 agents, 10 hooks | ${r.full.median} ms | ${r.full.p90} ms | ${r.full.min} ms |
| the same, sending \`/cmd-042 src/index.ts\` (commands loaded, its !\`git status\` run) | ${r.fullWithCommand.median} ms | ${r.fullWithCommand.p90} ms | ${r.fullWithCommand.min} ms |

CPU time of the whole \`omp -p hello\` run (median): ${r.cpuMs.none} ms without extensions, ${r.cpuMs.full} ms with them (${r.cpuMs.ratio}×).

Half of the skills are in \`~/.omp/agent/skills\`, half in the repository's \`.claude/skills\` (each a folder
with a ~2 KB SKILL.md and a reference file); the commands are split between \`~/.claude/commands\` (some in a
subfolder) and \`.omp/commands\`; agents in \`~/.omp/agent/agents\` and \`.claude/agents\`; the hooks in
\`~/.omp/agent/hooks/hooks.json\`. The skill list went into the first request's system prompt (the skill tool
offered); the commands are read only when a prompt starts with \`/\`. Agents and hooks are files on disk
here: their loaders live on another branch.
`;
}

await main();
