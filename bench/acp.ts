/**
 * ACP start-up (`bun bench/acp.ts`): a client spawns the agent, sends initialize, session/new and a
 * trivial prompt, and the clock stops at the first session/update chunk of the answer; the model is
 * the zero-latency provider stand-in. omp against the ACP adapters of Claude Code and Codex when
 * they are installed here (each skipped with the reason otherwise). Also print mode's spawn to
 * first request for dist/omp against BASELINE_OMP (the binary before the session host), which the
 * refactor must keep within 1.05x. Writes bench/results/acp.json and acp.md.
 */
import * as acp from "@agentclientprotocol/sdk";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startStandin } from "../test/support/standin/index.ts";
import { timeToRequest } from "./startup-timing.ts";
import { median, now, round } from "./stats.ts";
import { ROOT, OMP, workDir } from "./paths.ts";

const BASELINE = process.env.BASELINE_OMP;
const WORK = workDir("acp");
const RUNS = Number(process.env.RUNS ?? 15);
const KEY = "bench-key-0123456789";

interface Peer {
  name: string;
  argv: string[] | undefined;
  /** The agent's environment beyond PATH and HOME: how it is pointed at the stand-in. */
  env(url: string, home: string): Record<string, string>;
}

const bin = (path: string) => (existsSync(join(ROOT, "node_modules", ".bin", path)) ? [join(ROOT, "node_modules", ".bin", path)] : undefined);
const PEERS: Peer[] = [
  { name: "omp acp", argv: [OMP, "acp", "--model", "anthropic/claude-sonnet-5-5"], env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: KEY }) },
  {
    name: "@zed-industries/claude-code-acp",
    argv: bin("claude-code-acp"),
    // Root in this container: Claude Code refuses to skip permissions as root unless told it is sandboxed.
    env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: KEY, IS_SANDBOX: "1", DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }),
  },
  {
    name: "@zed-industries/codex-acp",
    argv: bin("codex-acp"),
    env: (url, home) => {
      const codexHome = join(home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      // Codex's Linux sandbox helper fails in this container (ACP.md): full access, as a user of it here would set.
      writeFileSync(
        join(codexHome, "config.toml"),
        `model = "gpt-6.2-sol"\nmodel_provider = "standin"\nsandbox_mode = "danger-full-access"\napproval_policy = "never"\n\n[model_providers.standin]\nname = "standin"\nbase_url = "${url}/v1"\nenv_key = "OPENAI_API_KEY"\nwire_api = "responses"\n`,
      );
      return { CODEX_HOME: codexHome, OPENAI_API_KEY: KEY };
    },
  },
];

/** Spawn → first agent_message_chunk, in ms. */
async function firstChunk(argv: string[], env: Record<string, string>): Promise<number> {
  const started = now();
  // A process group of its own: the adapters start helpers (Claude Code's CLI, codex) that must end with them.
  const child = Bun.spawn(argv, { cwd: WORK, env, stdin: "pipe", stdout: "pipe", stderr: process.env.BENCH_STDERR ? "inherit" : "ignore", detached: true });
  const stdin = child.stdin;
  let first: number | undefined;
  let resolveChunk = () => {};
  const chunk = new Promise<void>((resolve) => (resolveChunk = resolve));
  const app = acp.client({ name: "bench" }).onNotification(acp.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk" && first === undefined) {
      first = now();
      resolveChunk();
    }
  });
  const connection = app.connect(
    acp.ndJsonStream(
      new WritableStream({
        write(bytes) {
          stdin.write(bytes);
          stdin.flush();
        },
      }),
      child.stdout,
    ),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no agent_message_chunk within 60 s")), 60_000)));
  try {
    const run = async () => {
      await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: WORK, mcpServers: [] });
      void connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] }).catch(() => undefined);
      await chunk;
    };
    await Promise.race([run(), timeout]);
    return first! - started;
  } finally {
    clearTimeout(timer);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await child.exited;
  }
}

mkdirSync(WORK, { recursive: true });
const standin = await startStandin();
const home = join(WORK, "home");
mkdirSync(home, { recursive: true });
const env = { PATH: process.env.PATH ?? "", HOME: home, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: KEY };
const rows: { name: string; medianMs?: number; skipped?: string }[] = [];
try {
  // PRINT_ONLY=1: the print-mode comparison alone, printed and not recorded.
  for (const peer of process.env.PRINT_ONLY ? [] : PEERS) {
    if (!peer.argv) {
      rows.push({ name: peer.name, skipped: "not in node_modules (npm ci installs it as a devDependency)" });
      continue;
    }
    const times: number[] = [];
    try {
      for (let i = 0; i < RUNS; i++) {
        // Claude Code also asks the model for a title and a quota check: enough replies for all of them.
        standin.setScript(Array.from({ length: 20 }, () => ({ text: "hello" })));
        times.push(await firstChunk(peer.argv, { PATH: env.PATH, HOME: home, ...peer.env(standin.url, home) }));
      }
      rows.push({ name: peer.name, medianMs: round(median(times), 1) });
    } catch (error) {
      rows.push({ name: peer.name, skipped: `did not answer here: ${(error as Error).message.slice(0, 200)}` });
    }
  }
  const binaries = [["dist/omp", OMP], ...(BASELINE ? [["baseline", BASELINE]] : [])] as [string, string][];
  const printTimes = binaries.map(() => [] as number[]);
  // Interleaved, so that the load of a shared machine falls on both alike; three times the ACP runs, as a start is short.
  for (let i = 0; i < RUNS * 3; i++) {
    for (const [index, [, binary]] of binaries.entries()) {
      standin.setScript([{ text: "hello" }, { text: "hello" }]);
      printTimes[index]!.push(await timeToRequest(standin, [binary, "-p", "--model", "anthropic/claude-sonnet-5-5", "hi"], { cwd: WORK, env }));
    }
  }
  const print = binaries.map(([name], index) => ({ binary: name, medianMs: round(median(printTimes[index]!), 1) }));
  const results = { date: new Date().toISOString(), runs: RUNS, acp: rows, print };
  if (!process.env.PRINT_ONLY) writeFileSync(join(ROOT, "bench", "results", "acp.json"), `${JSON.stringify(results, null, 2)}\n`);
  const ratio = print.length === 2 ? round(print[0]!.medianMs / print[1]!.medianMs, 3) : undefined;
  const md = [
    "# ACP start-up",
    "",
    `Spawn → initialize → session/new → prompt "hi" → first agent_message_chunk, against the zero-latency stand-in; median of ${RUNS} runs (\`bun bench/acp.ts\`).`,
    "",
    "| agent | first chunk (ms) |",
    "| --- | ---: |",
    ...rows.map((r) => `| ${r.name} | ${r.medianMs ?? `skipped: ${r.skipped}`} |`),
    "",
    "## Print mode after the session host",
    "",
    `Spawn → first model request for \`omp -p hi\`, median of ${RUNS * 3} interleaved runs; the baseline is BASELINE_OMP (recorded: this branch's parent commit d3e61a2, before the session host, built the same way).`,
    "",
    "| binary | first request (ms) |",
    "| --- | ---: |",
    ...print.map((p) => `| ${p.binary} | ${p.medianMs} |`),
    ...(ratio === undefined ? [] : ["", `Ratio: ${ratio}x (goal: within 1.05x).`]),
    "",
  ].join("\n");
  if (!process.env.PRINT_ONLY) writeFileSync(join(ROOT, "bench", "results", "acp.md"), md);
  console.log(md);
} finally {
  standin.close();
}
