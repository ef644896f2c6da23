/**
 * Plugin benchmarks (`bun bench/plugins.ts`) on dist/omp: start to the first provider request with
 * 20 installed marketplace plugins (each with skills, commands and agents) against none, and the
 * wall time of `omp plugin install` from a local marketplace. Writes bench/results/plugins.json
 * and plugins.md.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Standin, startStandin } from "../test/support/standin/index.ts";
import { writeTree } from "../test/support/plugin-fixtures.ts";
import { median, now, round } from "./stats.ts";
import { OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("plugins");
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const PLUGINS = 20;


/** A marketplace of `count` plugins, each with 3 skills, 3 commands and 2 agents. */
function makeMarketplace(dir: string, count: number): string[] {
  const names = Array.from({ length: count }, (_, i) => `plugin-${i}`);
  const files: Record<string, string> = {
    ".claude-plugin/marketplace.json": JSON.stringify({ name: "bench", owner: { name: "bench" }, plugins: names.map((name) => ({ name, source: `./${name}`, version: "1.0.0" })) }),
  };
  for (const name of names) {
    for (let i = 0; i < 3; i++) {
      files[`${name}/skills/skill-${i}/SKILL.md`] = `---\nname: skill-${i}\ndescription: skill ${i} of ${name}\n---\nDo the thing ${i}.\n`;
      files[`${name}/commands/cmd-${i}.md`] = `---\ndescription: command ${i}\n---\nRun step ${i} on $ARGUMENTS\n`;
    }
    for (let i = 0; i < 2; i++) files[`${name}/agents/agent-${i}.md`] = `---\nname: agent-${i}\ndescription: agent ${i}\n---\nYou check things.\n`;
  }
  writeTree(dir, files);
  return names;
}

async function omp(args: string[], home: string, env: Record<string, string> = {}): Promise<{ started: number; ended: number; code: number; stderr: string }> {
  const started = now();
  const child = Bun.spawn([OMP, ...args], { cwd: WORK, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", OMP_NO_UPDATE_CHECK: "1", ...env }, stdio: ["ignore", "ignore", "pipe"] });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  return { started, ended: now(), code, stderr };
}

async function firstRequest(home: string, standin: Standin): Promise<number> {
  standin.requests.length = 0;
  standin.setScript([{ text: "ok" }]);
  const run = await omp(["-p", "--no-session", "--model", "anthropic/claude-sonnet-5-5", "hello"], home, { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "bench-key-0123456789" });
  if (run.code !== 0) throw new Error(`omp -p failed: ${run.stderr}`);
  return standin.requests.find((request) => request.method === "POST")!.receivedAt - run.started;
}

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const market = join(WORK, "market");
  const names = makeMarketplace(market, PLUGINS);
  const bare = join(WORK, "home-none");
  const loaded = join(WORK, "home-20");
  mkdirSync(bare, { recursive: true });
  if ((await omp(["plugin", "marketplace", "add", market], loaded)).code !== 0) throw new Error("marketplace add failed");

  const installs: number[] = [];
  for (const name of names) {
    const run = await omp(["plugin", "install", `${name}@bench`], loaded);
    if (run.code !== 0) throw new Error(`install ${name} failed: ${run.stderr}`);
    installs.push(run.ended - run.started);
  }
  const reinstalls: number[] = [];
  for (const name of names.slice(0, 5)) {
    const run = await omp(["plugin", "install", `${name}@bench`], loaded);
    reinstalls.push(run.ended - run.started);
  }

  const standin = await startStandin({ script: [] });
  const none: number[] = [];
  const twenty: number[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      await firstRequest(bare, standin);
      await firstRequest(loaded, standin);
    }
    for (let i = 0; i < RUNS; i++) {
      none.push(await firstRequest(bare, standin));
      twenty.push(await firstRequest(loaded, standin));
    }
  } finally {
    await standin.close();
  }
  const result = {
    date: new Date().toISOString(),
    runs: RUNS,
    plugins: PLUGINS,
    firstRequestMs: {
      none: round(median(none)),
      twentyPlugins: round(median(twenty)),
      ratio: round(median(twenty) / median(none), 3),
      minNone: round(Math.min(...none)),
      minTwentyPlugins: round(Math.min(...twenty)),
      minRatio: round(Math.min(...twenty) / Math.min(...none), 3),
    },
    installMs: { median: round(median(installs), 1), min: round(Math.min(...installs), 1), max: round(Math.max(...installs), 1), reinstallMedian: round(median(reinstalls), 1) },
  };
  writeFileSync(join(RESULTS, "plugins.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(
    join(RESULTS, "plugins.md"),
    [
      "# Plugin benchmarks",
      "",
      `\`bun bench/plugins.ts\` on dist/omp, ${result.date.slice(0, 10)}; ${RUNS} interleaved runs per case against the zero-latency provider stand-in.`,
      "",
      "| measure | value |",
      "| --- | --- |",
      `| start to first request, no plugins (median) | ${result.firstRequestMs.none} ms |`,
      `| start to first request, ${PLUGINS} plugins (3 skills, 3 commands, 2 agents each) | ${result.firstRequestMs.twentyPlugins} ms |`,
      `| ratio of medians (target ≤ 1.15×) | ${result.firstRequestMs.ratio}× |`,
      `| ratio of the fastest runs (${result.firstRequestMs.minTwentyPlugins} / ${result.firstRequestMs.minNone} ms) | ${result.firstRequestMs.minRatio}× |`,
      `| \`omp plugin install <p>@<local marketplace>\` wall time (median of ${PLUGINS}) | ${result.installMs.median} ms (min ${result.installMs.min}, max ${result.installMs.max}) |`,
      `| reinstall of the same version (median of 5) | ${result.installMs.reinstallMedian} ms |`,
      "",
      "With 20 plugins a session reads their state once, resolves each plugin's folders, lists their 60 skills in the system prompt, indexes their 60 commands and loads their 40 agents (skills and agents through their caches). The machine is shared (2 cores, several builds and test runs at once), so single runs vary by ±20%.",
      "",
    ].join("\n"),
  );
  console.log(JSON.stringify(result, null, 2));
}

await main();
