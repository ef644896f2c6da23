/**
 * How fast /tree opens on a 1,000-turn session (issue 28's goal: under 200 ms), `bun bench/session-tree.ts`:
 * in process, what the command does (load the file, build the turn tree, draw the panel), and the
 * same load and tree in dist/omp through rpc get_tree, timed at its pipe. (The tmux test
 * test/e2e/interactive-tree.test.ts opens the same session's /tree on the binary.) Writes
 * bench/results/session-tree.json and session-tree.md.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TreePanel } from "../cli/interactive/widgets/tree-panel.ts";
import { Theme } from "../cli/interactive/render/theme.ts";
import { loadSession } from "../core/session/loader.ts";
import { turnTree } from "../core/session/tree.ts";
import { writeLongSession } from "../test/support/long-session.ts";
import { median, percentile, round } from "./stats.ts";
import { OMP, RESULTS } from "./paths.ts";

const TURNS = 1000;

function stats(samples: number[]) {
  return { runs: samples.length, medianMs: round(median(samples), 2), p90Ms: round(percentile(samples, 90), 2), maxMs: round(Math.max(...samples), 2) };
}

function inProcess(path: string, runs: number) {
  const theme = new Theme("dark", "truecolor");
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const loaded = loadSession(path);
    const panel = new TreePanel(turnTree(loaded, loaded.leafId), "go", new Set(), { pick: () => {}, label: () => {}, changed: () => {} });
    panel.render(120, 20, theme);
    samples.push(performance.now() - started);
  }
  return stats(samples.slice(3));
}

/** get_tree over `omp --mode rpc` on the session: the same load and tree in the compiled binary, timed at its pipe. */
async function overRpc(home: string, path: string, runs: number) {
  const child = Bun.spawn([OMP, "--mode", "rpc", "--model", "anthropic/claude-sonnet-4-5", "-r", path], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ANTHROPIC_API_KEY: "sk-ant-bench-0123456789", OMP_NO_UPDATE_CHECK: "1" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const frame = async (test: (frame: any) => boolean) => {
    for (;;) {
      const newline = buffer.indexOf("\n");
      if (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const parsed = JSON.parse(line);
        if (test(parsed)) return parsed;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("omp --mode rpc ended");
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const samples: number[] = [];
  try {
    await frame((f) => f.type === "ready");
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      child.stdin.write(`${JSON.stringify({ id: `t${i}`, type: "get_tree" })}\n`);
      child.stdin.flush();
      const response = await frame((f) => f.id === `t${i}`);
      samples.push(performance.now() - started);
      if (!response.success || response.data.nodes.length < TURNS * 2) throw new Error(`get_tree: ${JSON.stringify(response).slice(0, 200)}`);
    }
  } finally {
    child.kill();
  }
  return stats(samples.slice(2));
}

async function main(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), "omp-bench-tree-"));
  const long = writeLongSession({ sessionDir: join(cwd, "sessions"), cwd, turns: TURNS, branchEvery: 100 });
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const loadBefore = load();
  const bytes = readFileSync(long.path).length;
  const result = { date: new Date().toISOString(), loadBefore, turns: long.turns, fileKb: Math.round(bytes / 1024), inProcess: inProcess(long.path, 33), rpc: await overRpc(cwd, long.path, 17), loadAfter: load() };
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, "session-tree.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, "session-tree.md"), markdown(result));
  console.log(markdown(result));
}

function markdown(r: any): string {
  return `# Session tree

${r.date}; load average ${r.loadBefore} before, ${r.loadAfter} after (2-core machine shared with other work).
A session of ${r.turns} user turns (1,000 on the main line, a side branch every 100), ${r.fileKb} KB.
Goal: the tree opens in under 200 ms.

| what | median | p90 | max | runs |
|---|---|---|---|---|
| load + turn tree + first draw (in process, what /tree does) | ${r.inProcess.medianMs} ms | ${r.inProcess.p90Ms} ms | ${r.inProcess.maxMs} ms | ${r.inProcess.runs} |
| rpc \`get_tree\` on dist/omp, command written to response read (${r.turns * 2}+ nodes) | ${r.rpc.medianMs} ms | ${r.rpc.p90Ms} ms | ${r.rpc.maxMs} ms | ${r.rpc.runs} |
`;
}

await main();
