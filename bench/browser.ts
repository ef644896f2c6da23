/**
 * The browser tool in dist/omp (`bun bench/browser.ts`), against the provider stand-in and a page
 * on loopback whose text only its JavaScript writes, side by side with the original omp
 * (`@oh-my-pi/pi-coding-agent`, its own browser tool on the same system Chromium). Writes
 * bench/results/browser.json and browser.md.
 *
 * 1. Open → text: one print run whose model opens the page, then runs `return await tab.extract()`;
 *    the time from the stand-in's answer carrying the open to the request carrying the text (a
 *    cold browser: launch, page load, script, extraction), and the run alone (a warm tab).
 * 2. Start-up: spawn to the first request byte of `omp -p hello` with browser and inspect_image
 *    offered against `--tools` without them (their code loads on first call only).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Standin, type Turn, startStandin } from "../test/support/standin/index.ts";
import { PEERS, peerBin, peerEnv, toolResults } from "./edits-peers.ts";
import { posts, timeToRequest } from "./startup-timing.ts";
import { median, round } from "./stats.ts";
import { OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("browser");
const MODEL = "anthropic/claude-sonnet-4-5";
const WITHOUT_BROWSER = "read,write,edit,bash,grep,find,ls,todo,job,web_fetch,lsp,ast_grep,ast_edit";
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PROBE = "Rendered by script 42";
const PAGE = `<!doctype html><html><head><title>Dev app</title></head><body><main id="root">loading</main>
<script>setTimeout(() => { document.getElementById("root").innerHTML = "<article><h1>Rendered by script " + (6 * 7) + "</h1><p>Only the page's JavaScript writes this paragraph, so a plain fetch of the HTML never sees it; it is long enough for a reader view to take it as the article.</p></article>"; }, 20);</script></body></html>`;

interface Runner {
  name: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The agent's own calls: open the page in tab "main", then its text as Markdown. */
  open(url: string): { name: string; arguments: Record<string, unknown> };
  extract: { name: string; arguments: Record<string, unknown> };
}

const OMP_CALLS = {
  open: (url: string) => ({ name: "browser", arguments: { action: "open", url } }),
  extract: { name: "browser", arguments: { action: "run", code: "await tab.waitFor('h1'); return await tab.extract();" } },
};
/** 18.2.3's browser is a prelude of its eval tool: \`browser.open()\` and a tab's helpers in a JS cell. */
const ORIGINAL_CALLS = {
  open: (url: string) => ({ name: "eval", arguments: { language: "js", code: `const t = await browser.open({ url: ${JSON.stringify(url)} }); return await t.title();` } }),
  extract: { name: "eval", arguments: { language: "js", code: `const t = browser.tab("main"); await t.waitFor("h1"); return await t.extract();` } },
};

interface Measure {
  name: string;
  openToTextMs?: number;
  runMs?: number;
  holdsText?: boolean;
  resultStart?: string;
  error?: string;
}

/** One run: open, then extract; spans from the stand-in's answers to the next requests. */
async function once(standin: Standin, runner: Runner, url: string): Promise<{ openToText: number; run: number; text: string }> {
  standin.setScript([
    { toolCalls: [{ id: "toolu_open", ...runner.open(url) }] },
    { toolCalls: [{ id: "toolu_run", ...runner.extract }] },
    { text: "done" },
  ] as Turn[]);
  standin.requests.length = 0;
  const child = Bun.spawn(runner.argv, { cwd: runner.cwd, env: runner.env, stdin: "ignore", stdout: "ignore", stderr: "pipe", timeout: 300_000 });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${runner.name} exited ${code}: ${stderr.slice(-800)}`);
  const [first, second, third] = posts(standin);
  if (!third) throw new Error(`${runner.name} sent ${posts(standin).length} requests, not 3: ${stderr.slice(-800)}`);
  const text = toolResults(third).get("toolu_run")?.text ?? toolResults(second).get("toolu_open")?.text ?? "(no result)";
  return { openToText: third.receivedAt - first!.respondedAt!, run: third.receivedAt - second!.respondedAt!, text };
}

async function measure(standin: Standin, runner: Runner, url: string, runs: number): Promise<Measure> {
  console.error(`${runner.name}: open → text…`);
  try {
    const warm = await once(standin, runner, url);
    const all = [];
    for (let i = 0; i < runs; i++) all.push(await once(standin, runner, url));
    const result: Measure = {
      name: runner.name,
      openToTextMs: round(median(all.map((r) => r.openToText))),
      runMs: round(median(all.map((r) => r.run))),
      holdsText: warm.text.includes(PROBE),
      resultStart: warm.text.replace(/\s+/g, " ").slice(0, 120),
    };
    console.error(`  ${result.openToTextMs} ms open→text, ${result.runMs} ms the run alone; text ${result.holdsText ? "found" : "MISSING"}: ${JSON.stringify(result.resultStart)}`);
    return result;
  } catch (error) {
    console.error(`  failed: ${(error as Error).message}`);
    return { name: runner.name, error: (error as Error).message.slice(0, 400) };
  }
}

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const home = join(WORK, "home");
  const repo = join(WORK, "repo");
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(home, ".omp", "agent", "config.yml"), 'web:\n  allowHosts: ["127.0.0.1"]\n');
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  const standin = await startStandin({ fast: true, loop: true });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "bench-key" };
  try {
    console.error("start-up with and without browser and inspect_image…");
    const withBrowser: number[] = [];
    const without: number[] = [];
    const first = (args: string[]) => timeToRequest(standin, [OMP, "-p", "--model", MODEL, "--no-session", ...args, "hello"], { cwd: repo, env });
    standin.setScript([{ text: "ok" }]);
    for (let i = 0; i < 3; i++) await first([]);
    for (let i = 0; i < 20; i++) {
      withBrowser.push(await first([]));
      without.push(await first(["--tools", WITHOUT_BROWSER]));
    }
    const startup = { withBrowserMs: round(median(withBrowser)), withoutMs: round(median(without)), ratio: round(median(withBrowser) / median(without), 3) };
    console.error(`  ${startup.withBrowserMs} ms with, ${startup.withoutMs} ms without: ${startup.ratio}×`);

    const url = `${server.url.href}app`;
    const agents: Measure[] = [await measure(standin, { name: "omp", argv: [OMP, "-p", "--model", MODEL, "--no-session", "go"], cwd: repo, env, ...OMP_CALLS }, url, RUNS)];
    const missing: string[] = [];
    const original = PEERS.find((peer) => peer.bin === "omp")!;
    const bin = peerBin(original);
    if (!bin) missing.push(`original omp (${original.pkg} did not install from npm)`);
    else {
      const peerHome = join(WORK, "peer-home");
      const peerRepo = join(WORK, "peer-repo");
      mkdirSync(peerHome, { recursive: true });
      mkdirSync(peerRepo, { recursive: true });
      // The original offers its browser only when the setting turns it on.
      mkdirSync(join(peerHome, ".omp", "agent"), { recursive: true });
      writeFileSync(join(peerHome, ".omp", "agent", "config.yml"), "browser:\n  enabled: true\n  headless: true\neval:\n  js: true\n");
      const peerArgs = ["-p", "--model", MODEL, "go"];
      agents.push(await measure(standin, { name: `original omp (${original.pkg})`, argv: [bin, ...peerArgs], cwd: peerRepo, env: { ...peerEnv(original, peerRepo, peerHome, standin.url), PUPPETEER_EXECUTABLE_PATH: Bun.which("chromium") ?? "" }, ...ORIGINAL_CALLS }, url, RUNS));
    }
    const result = { date: new Date().toISOString(), load: (await Bun.file("/proc/loadavg").text()).split(" ")[0] ?? "?", runs: RUNS, startup, agents, missing };
    writeFileSync(join(RESULTS, "browser.json"), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(join(RESULTS, "browser.md"), markdown(result));
  } finally {
    server.stop(true);
    standin.close();
  }
}

function markdown(r: { date: string; load: string; runs: number; startup: { withBrowserMs: number; withoutMs: number; ratio: number }; agents: Measure[]; missing: string[] }): string {
  const cell = (agent: Measure, value: number | undefined) => (agent.error ? "failed" : `${value} ms`);
  return `# Browser tool

${r.date}, load ${r.load}, median of ${r.runs} runs after one warm-up. \`bun bench/browser.ts\`.

| Agent | Open → text of a JS-rendered loopback page (cold browser) | The \`run\` with \`tab.extract()\` alone (warm tab) | Text found |
| --- | --- | --- | --- |
${r.agents.map((agent) => `| ${agent.name} | ${cell(agent, agent.openToTextMs)} | ${cell(agent, agent.runMs)} | ${agent.error ? agent.error.replace(/\|/g, "/").replace(/\n/g, " ").slice(0, 200) : agent.holdsText ? "yes" : "no"} |`).join("\n")}
${r.missing.length > 0 ? `\nNot measured: ${r.missing.join("; ")}.\n` : ""}
| Start-up to first request byte | Value | Goal | Status |
| --- | --- | --- | --- |
| With browser and inspect_image offered | ${r.startup.withBrowserMs} ms = ${r.startup.ratio}× without them (${r.startup.withoutMs} ms) | ≤ 1.03× | ${r.startup.ratio <= 1.03 ? "met" : "missed"} |

Each agent's span runs from the stand-in's answer carrying \`browser {action: "open"}\` to the request
carrying the result of \`browser {action: "run", code: "await tab.waitFor('h1'); return await
tab.extract();"}\`: Chromium's launch, the page's load and script, and the extraction to Markdown.
The original omp 18.2.3 has its browser as a prelude of its \`eval\` tool, so it gets the same two
steps as JS cells (\`browser.open({url})\`, then \`browser.tab("main")\`'s \`waitFor\` and \`extract\`),
through Puppeteer on the same system Chromium. omp runs Chromium and the page code in its command
sandbox behind its egress proxy; the original runs them unconfined. The start-up ratio is measured
on a shared, loaded machine (load above): under 1 is noise, not a gain.
`;
}

if (process.argv.includes("--markdown")) writeFileSync(join(RESULTS, "browser.md"), markdown(await Bun.file(join(RESULTS, "browser.json")).json()));
else await main();
