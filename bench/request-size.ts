/**
 * Request economy (`bun bench/request-size.ts`): the bytes of the first request `omp -p hi` sends in
 * each wire API with every tool available (rarely needed ones deferred to search_tool_bm25), in json
 * mode, plan mode and rpc, and what the same request weighs with `tools.discoveryMode: off` and with
 * three server-everything MCP servers configured; with OMP_BASELINE=<another omp binary>, the same
 * cases on it beside. Writes bench/results/request-size.json and .md.
 * Limits (checked by test/e2e/agent-request-size.test.ts): 16 KB in print mode, 24 KB in any mode.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Standin, startStandin } from "../test/support/standin/index.ts";
import { providerCases } from "../test/support/provider-cases.ts";
import { builtinToolDefinitions } from "../core/tools/builtin-specs.ts";
import { ROOT, OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("request-size");
const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

interface Row {
  case: string;
  bytes: number;
  toolBytes: number;
  tools: number;
}

function setup(name: string, config?: string, mcpServers = 0): { home: string; repo: string } {
  const home = join(WORK, name, "home");
  const repo = join(WORK, name, "repo");
  rmSync(join(WORK, name), { recursive: true, force: true });
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  mkdirSync(repo, { recursive: true });
  Bun.spawnSync(["git", "init", "-q", "-b", "main"], { cwd: repo });
  if (config) writeFileSync(join(home, ".omp", "agent", "config.yml"), config);
  if (mcpServers > 0) {
    const entries = Object.fromEntries(Array.from({ length: mcpServers }, (_, i) => [`everything${i + 1}`, { command: "node", args: [EVERYTHING, "stdio"] }]));
    writeFileSync(join(home, ".omp", "agent", "mcp.json"), JSON.stringify({ mcpServers: entries }));
  }
  return { home, repo };
}

function envFor(home: string, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", OMP_NO_UPDATE_CHECK: "1", ...extra };
}

/** The first model request of a run that `start` begins, measured. */
async function measureRun(standin: Standin, name: string, start: () => Promise<void>): Promise<Row> {
  standin.setScript([{ text: "ok" }]);
  const before = standin.requests.filter((r) => r.method === "POST").length;
  await start();
  const body = standin.requests.filter((r) => r.method === "POST")[before]?.body as any;
  if (!body) throw new Error(`${name}: no request reached the stand-in`);
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const count = tools.flatMap((t: any) => t.functionDeclarations ?? [t]).filter((t: any) => t.name || t.function).length;
  return { case: name, bytes: Buffer.byteLength(JSON.stringify(body)), toolBytes: Buffer.byteLength(JSON.stringify(tools)), tools: count };
}

async function print(bin: string, args: string[], home: string, repo: string, env: Record<string, string>): Promise<void> {
  const child = Bun.spawn([bin, "-p", ...args, "hi"], { cwd: repo, env: envFor(home, env), stdout: "ignore", stderr: "pipe" });
  if ((await child.exited) !== 0) throw new Error(`omp ${args.join(" ")} failed: ${await new Response(child.stderr).text()}`);
}

async function rpc(bin: string, args: string[], home: string, repo: string, env: Record<string, string>, standin: Standin): Promise<void> {
  const child = Bun.spawn([bin, "--mode", "rpc", ...args], { cwd: repo, env: envFor(home, env), stdin: "pipe", stdout: "ignore", stderr: "ignore" });
  const before = standin.requests.length;
  child.stdin.write(`${JSON.stringify({ type: "prompt", message: "hi" })}\n`);
  child.stdin.flush();
  while (standin.requests.length === before) await Bun.sleep(20);
  child.stdin.end();
  await child.exited;
}

/** Every case, run on `bin`. */
async function cases(standin: Standin, bin: string): Promise<(Row | undefined)[]> {
  const rows: (Row | undefined)[] = [];
  // The baseline may not know a setting (discoveryMode): its config is refused there and the row stays empty.
  const measure = (name: string, start: () => Promise<void>) => measureRun(standin, name, start).catch((error: unknown) => {
    if (bin === OMP) throw error;
    return undefined;
  });
  for (const provider of providerCases()) {
    const { home, repo } = setup(provider.api);
    rows.push(await measure(`print, ${provider.api}`, () => print(bin, ["--model", provider.model], home, repo, provider.env(standin.url))));
  }
  const anthropic = providerCases()[0]!;
  const env = anthropic.env(standin.url);
  const json = setup("json");
  rows.push(await measure("json mode, anthropic-messages", () => print(bin, ["--mode", "json", "--model", anthropic.model], json.home, json.repo, env)));
  const plan = setup("plan");
  rows.push(await measure("plan mode (print), anthropic-messages", () => print(bin, ["--approval-mode", "plan", "--model", anthropic.model], plan.home, plan.repo, env)));
  const host = setup("rpc");
  rows.push(await measure("rpc, plan mode (ask, exit_plan_mode), anthropic-messages", () => rpc(bin, ["--approval-mode", "plan", "--model", anthropic.model], host.home, host.repo, env, standin)));
  const mcp = setup("mcp", undefined, 3);
  rows.push(await measure("print, 3× server-everything, anthropic-messages", () => print(bin, ["--model", anthropic.model], mcp.home, mcp.repo, env)));
  const off = setup("off", "tools:\n  discoveryMode: off\n");
  rows.push(await measure("print, tools.discoveryMode off, anthropic-messages", () => print(bin, ["--model", anthropic.model], off.home, off.repo, env)));
  const offMcp = setup("off-mcp", "tools:\n  discoveryMode: off\n", 3);
  rows.push(await measure("print, discoveryMode off, 3× server-everything, anthropic-messages", () => print(bin, ["--model", anthropic.model], offMcp.home, offMcp.repo, env)));
  return rows;
}

const BASELINE = process.env.OMP_BASELINE;
const standin = await startStandin();
let rows: Row[];
let baseline: (Row | undefined)[] | undefined;
try {
  rows = (await cases(standin, OMP)) as Row[];
  if (BASELINE) baseline = await cases(standin, BASELINE);
} finally {
  standin.close();
}

mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, "request-size.json"), `${JSON.stringify({ date: new Date().toISOString(), binary: OMP, rows, ...(baseline ? { baseline: { binary: BASELINE, rows: baseline } } : {}) }, null, 2)}\n`);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const lines = [
  "# First request size",
  "",
  `\`bun bench/request-size.ts\` on ${new Date().toISOString()}, ${OMP}: the first request \`omp hi\` sends, as the stand-in received it.`,
  `Deferred tools (${builtinToolDefinitions().filter((tool) => tool.loadMode === "discoverable").map((tool) => tool.name).join(", ")}; MCP tools past 3) are sent as search_tool_bm25 only.`,
  "",
  ...(baseline ? [`Baseline (${BASELINE}): the same cases on the build before deferred tools.`, ""] : []),
  `| case | bytes | tools part | tools sent |${baseline ? " baseline bytes (tools sent) |" : ""} limit |`,
  `|---|---|---|---|${baseline ? "---|" : ""}---|`,
  ...rows.map((row, i) => `| ${row.case} | ${row.bytes} (${kb(row.bytes)}) | ${row.toolBytes} | ${row.tools} |${baseline ? ` ${baseline[i] ? `${baseline[i]!.bytes} (${baseline[i]!.tools})` : "—"} |` : ""} ${row.case.startsWith("print,") && !row.case.includes("off") && !row.case.includes("server-everything") ? "≤ 16 KB" : row.case.includes("off") ? "—" : "≤ 24 KB"} |`),
  "",
];
writeFileSync(join(RESULTS, "request-size.md"), `${lines.join("\n")}\n`);
console.log(lines.join("\n"));
