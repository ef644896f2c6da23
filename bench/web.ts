/**
 * Benchmarks of the web and document tools in dist/omp (`bun bench/web.ts`), against the provider
 * stand-in and a page server on loopback. Writes bench/results/web.json and web.md.
 *
 * 1. Start-up: spawn to the first request byte of `omp -p hello` with every tool (web_fetch, and
 *    web_search with a provider configured) against `--tools` without them, runs interleaved.
 * 2. Fetch-to-Markdown of a 2 MB HTML page and the text of a 100-page PDF: the time from the
 *    stand-in's answer carrying the call to the next request (the tool's whole cost inside omp),
 *    less the same span for an `ls` call, and the run's peak RSS (GNU time) against the `ls` run's.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Standin, type Turn, startStandin } from "../test/support/standin/index.ts";
import { PEERS, peerBin, peerEnv, toolResults } from "./edits-peers.ts";
import { posts, timeToRequest } from "./startup-timing.ts";
import { median, percentile, round } from "./stats.ts";
import { OMP, RESULTS, workDir } from "./paths.ts";

const WORK = workDir("web");
const MODEL = "anthropic/claude-sonnet-4-5";
const WITHOUT_WEB = "read,write,edit,bash,grep,find,ls,todo";

/** A documentation page of about `bytes`: site chrome around an article of many sections with code and tables. */
function bigHtml(bytes: number): string {
  const section = (i: number) =>
    `<h2 id="s${i}">Section ${i}</h2><p>${"The stream API reads chunks lazily and applies back-pressure when the consumer is slow. ".repeat(6)}</p>` +
    `<pre><code class="language-ts">const s${i} = await openStream("log-${i}", { highWaterMark: ${i} });\nfor await (const c of s${i}) use(c);</code></pre>` +
    `<table><tr><th>option</th><th>default</th></tr><tr><td>limit${i}</td><td>${i}</td></tr></table><ul><li>item ${i}a</li><li>item ${i}b</li></ul>`;
  const chrome = `<header><nav>${Array.from({ length: 40 }, (_, i) => `<a href="/n${i}">Nav ${i}</a>`).join(" ")}</nav></header>`;
  let body = "";
  for (let i = 0; body.length < bytes; i++) body += section(i);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Big docs page</title></head><body>${chrome}<main><article><h1>Streams</h1>${body}</article></main><footer>© 2025 footer</footer></body></html>`;
}

/** A plain PDF 1.4 of `pages` pages of text in Helvetica, written object by object with its xref table. */
function textPdf(pages: number): Uint8Array {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add(""); // pages, filled below
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const kids: number[] = [];
  for (let p = 1; p <= pages; p++) {
    const lines = Array.from({ length: 40 }, (_, l) => `(Page ${p} line ${l + 1}: quarterly figures for region ${l % 7} rose by ${(p * l) % 13} percent.) Tj T*`).join("\n");
    const stream = `BT /F1 10 Tf 12 TL 40 800 Td\n${lines}\nET`;
    add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    const contents = objects.length;
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contents} 0 R >>`);
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${pages} >>`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

interface Context {
  standin: Standin;
  home: string;
  repo: string;
}

const env = (ctx: Context, extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ctx.home, LANG: "C.UTF-8", ANTHROPIC_BASE_URL: ctx.standin.url, ANTHROPIC_API_KEY: "bench-key", ...extra });

type Call = { name: string; arguments: Record<string, unknown> };

/** An agent in print mode against the stand-in: omp, or a peer from npm. */
interface Runner {
  name: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The call that reads `path` (relative to cwd): the baseline, and the PDF. */
  read(path: string): Call;
  fetch(url: string): Call;
}

/** One print-mode run making `call` then answering: the tool's span inside the agent (ms), the run's peak RSS (bytes) and the result the model got. */
async function toolRun(standin: Standin, runner: Runner, call: Call): Promise<{ spanMs: number; rss: number; result?: { text: string; isError: boolean } }> {
  standin.setScript([{ toolCalls: [{ id: "toolu_bench_1", ...call }] }, { text: "done" }] as Turn[]);
  standin.requests.length = 0;
  const child = Bun.spawn(["/usr/bin/time", "-f", "OMP_MAX_RSS_KB=%M", ...runner.argv], { cwd: runner.cwd, env: runner.env, stdin: "ignore", stdout: "ignore", stderr: "pipe", timeout: 300_000 });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${runner.name} failed: ${stderr.slice(-1000)}`);
  const [first, second] = posts(standin);
  if (!second) throw new Error(`${runner.name} did not send the tool's result`);
  const kb = Number(/OMP_MAX_RSS_KB=(\d+)/.exec(stderr)?.[1]);
  return { spanMs: second.receivedAt - first!.respondedAt!, rss: kb * 1024, result: toolResults(second).get("toolu_bench_1") };
}

/**
 * The call's cost against reading a small text file, runs interleaved; with what the model got:
 * its size, its start, and which of `probes` (name: text) it holds.
 */
async function toolCost(standin: Standin, runner: Runner, call: Call, runs: number, probes: Record<string, string>) {
  const baseline = runner.read("small.txt");
  const spans: number[] = [];
  const base: number[] = [];
  const rss: number[] = [];
  const baseRss: number[] = [];
  const warm = await toolRun(standin, runner, call);
  for (let i = 0; i < runs; i++) {
    const a = await toolRun(standin, runner, call);
    const b = await toolRun(standin, runner, baseline);
    spans.push(a.spanMs);
    rss.push(a.rss);
    base.push(b.spanMs);
    baseRss.push(b.rss);
  }
  return {
    toolMs: round(median(spans) - median(base)),
    toolP90Ms: round(percentile(spans, 90) - median(base)),
    peakRssMB: round(median(rss) / 1e6, 1),
    baselinePeakRssMB: round(median(baseRss) / 1e6, 1),
    resultChars: warm.result?.text.length ?? 0,
    resultIsError: warm.result?.isError ?? true,
    resultStart: (warm.result?.text ?? "(no result)").slice(0, 160),
    holds: Object.fromEntries(Object.entries(probes).map(([name, text]) => [name, warm.result?.text.includes(text) === true])),
  };
}

/** The peers, each with a home and a project of its own holding the same PDF. */
function peerRunners(url: string, pdf: Uint8Array): { runners: Runner[]; missing: string[] } {
  const runners: Runner[] = [];
  const missing: string[] = [];
  for (const peer of PEERS) {
    const bin = peerBin(peer);
    if (!bin) {
      missing.push(`${peer.name} (${peer.pkg} did not install from npm)`);
      continue;
    }
    const home = join(WORK, `${peer.bin}-home`);
    const repo = join(WORK, `${peer.bin}-repo`);
    mkdirSync(home, { recursive: true });
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, "hundred.pdf"), pdf);
    writeFileSync(join(repo, "small.txt"), SMALL);
    runners.push({ name: `${peer.name} (${peer.pkg})`, argv: [bin, ...peer.args], cwd: repo, env: peerEnv(peer, repo, home, url), read: (path) => ({ name: "read", arguments: peer.read(path, join(repo, path)) }), fetch: (url) => peer.fetch(url) });
  }
  return { runners, missing };
}

const SMALL = "one line of text\n";
/** Runs of each measure per agent (BENCH_RUNS), after one to warm the page cache of the OS. */
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** Peers take up to a minute a run here, so fewer of them (BENCH_PEER_RUNS). */
const PEER_RUNS = Number(process.env.BENCH_PEER_RUNS ?? 3);
type Cost = Awaited<ReturnType<typeof toolCost>>;
/** The article's prose in the Markdown, and the site's navigation links (which main-content extraction drops). */
const PAGE_PROBES = { article: "applies back-pressure when the consumer is slow", navigation: "[Nav 17]" };
/** The first page's first line, as text. */
const PDF_PROBES = { text: "Page 1 line 1: quarterly figures" };

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  const home = join(WORK, "home");
  const repo = join(WORK, "repo");
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  mkdirSync(repo, { recursive: true });
  // No page cache: every run converts the page again.
  writeFileSync(join(home, ".omp", "agent", "config.yml"), 'web:\n  allowHosts: ["127.0.0.1"]\n  cacheTtlSeconds: 0\n');
  const html = bigHtml(2 * 1024 * 1024);
  const pdf = textPdf(100);
  writeFileSync(join(repo, "hundred.pdf"), pdf);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => (new URL(request.url).pathname === "/big.html" ? new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }) : new Response("", { status: 404 })),
  });
  const standin = await startStandin({ fast: true, loop: true });
  const ctx: Context = { standin, home, repo };
  try {
    console.error("start-up with and without the web tools…");
    const withWeb: number[] = [];
    const withSearch: number[] = [];
    const without: number[] = [];
    const first = (args: string[], extra: Record<string, string> = {}) => timeToRequest(standin, [OMP, "-p", "--model", MODEL, "--no-session", ...args, "hello"], { cwd: repo, env: env(ctx, extra) });
    standin.setScript([{ text: "ok" }]);
    for (let i = 0; i < 5; i++) await first([]);
    for (let i = 0; i < 30; i++) {
      withWeb.push(await first([]));
      withSearch.push(await first([], { SEARXNG_URL: "http://127.0.0.1:9" }));
      without.push(await first(["--tools", WITHOUT_WEB]));
    }
    const startup = {
      withWebMs: round(median(withWeb)),
      withWebAndSearchMs: round(median(withSearch)),
      withoutWebMs: round(median(without)),
      ratio: round(median(withWeb) / median(without), 3),
      ratioWithSearch: round(median(withSearch) / median(without), 3),
    };
    console.error(`  ${startup.withWebMs} ms with web tools, ${startup.withoutWebMs} ms without: ${startup.ratio}×`);

    writeFileSync(join(repo, "small.txt"), SMALL);
    const omp: Runner = {
      name: "omp",
      argv: [OMP, "-p", "--model", MODEL, "--no-session", "go"],
      cwd: repo,
      env: env(ctx),
      read: (path) => ({ name: "read", arguments: { path } }),
      fetch: (url) => ({ name: "web_fetch", arguments: { url } }),
    };
    const { runners: peers, missing } = peerRunners(standin.url, pdf);
    const url = `${server.url.href}big.html`;
    const measured: { name: string; fetchToMarkdown: Cost | string; pdfText: Cost | string }[] = [];
    for (const runner of [omp, ...peers]) {
      const attempt = async (what: string, call: Call, probes: Record<string, string>): Promise<Cost | string> => {
        console.error(`${runner.name}: ${what}…`);
        try {
          const cost = await toolCost(standin, runner, call, runner === omp ? RUNS : PEER_RUNS, probes);
          console.error(`  ${cost.toolMs} ms, peak RSS ${cost.peakRssMB} MB; ${cost.resultChars} chars${cost.resultIsError ? " (an error)" : ""}: ${JSON.stringify(cost.resultStart.slice(0, 80))}`);
          return cost;
        } catch (error) {
          console.error(`  failed: ${(error as Error).message}`);
          return (error as Error).message.slice(0, 300);
        }
      };
      measured.push({ name: runner.name, fetchToMarkdown: await attempt("fetch-to-Markdown of a 2 MB page", runner.fetch(url), PAGE_PROBES), pdfText: await attempt("text of a 100-page PDF", runner.read("hundred.pdf"), PDF_PROBES) });
    }

    const result = { date: new Date().toISOString(), load: (await Bun.file("/proc/loadavg").text()).split(" ")[0], htmlBytes: html.length, pdfBytes: pdf.length, startup, runs: RUNS, agents: measured, missing };
    writeFileSync(join(RESULTS, "web.json"), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(join(RESULTS, "web.md"), markdown(result));
  } finally {
    server.stop(true);
    standin.close();
  }
}

function agentTable(r: any): string {
  const mb = (cost: any) => `${cost.peakRssMB} MB (${cost.baselinePeakRssMB} MB)`;
  const got = (cost: any) =>
    `${(cost.resultChars / 1000).toFixed(1)} K chars${cost.resultIsError ? ", an error" : ""}; ${Object.entries(cost.holds)
      .map(([name, held]) => `${name} ${held ? "yes" : "no"}`)
      .join(", ")}`;
  const cell = (cost: any) => (typeof cost === "string" ? `failed: ${cost.replace(/\|/g, "/").replace(/\s+/g, " ").slice(0, 120)} | | ` : `${cost.toolMs} ms (p90 ${cost.toolP90Ms}) | ${mb(cost)} | ${got(cost)}`);
  return [
    `| agent | HTML ${(r.htmlBytes / 1e6).toFixed(1)} MB → Markdown: time | peak RSS (one-line read) | what the model got | PDF ${(r.pdfBytes / 1e3).toFixed(0)} KB, 100 pages → text: time | peak RSS | what the model got |`,
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...r.agents.map((agent: any) => `| ${agent.name} | ${cell(agent.fetchToMarkdown)} | ${cell(agent.pdfText)} |`),
    "",
    "How each result begins:",
    "",
    ...r.agents.flatMap((agent: any) => [agent.fetchToMarkdown, agent.pdfText].flatMap((cost, i) => (typeof cost === "string" ? [] : [`- ${agent.name}, ${i === 0 ? "page" : "PDF"}: \`${cost.resultStart.replace(/\s+/g, " ").replace(/`/g, "'").slice(0, 90)}\``]))),
  ].join("\n");
}

/** Why a PDF result holds no text, for the peers whose reason is known. */
function pdfNotes(r: any): string {
  const without = (name: string) => r.agents.some((agent: any) => agent.name.startsWith(name) && typeof agent.pdfText !== "string" && !agent.pdfText.holds.text);
  const notes: string[] = [];
  if (without("original omp")) notes.push("The original omp's reader (mupdf) finds no text in this PDF, whose Helvetica is one of the standard 14 fonts and so not embedded (as PDF allows); it does read a PDF LibreOffice wrote (test/fixtures/documents/report.pdf).");
  if (without("opencode")) notes.push("opencode's read extracts no text from a PDF: it hands the file to the model as a document attachment.");
  return notes.length > 0 ? `\n${notes.join("\n")}\n` : "";
}

function markdown(r: any): string {
  return `# Web and document tools

Measured by \`bun bench/web.ts\` on dist/omp, on this 2-core machine shared with other work (medians; load average
${r.load} as it ended: other work on the machine moves the times, several-fold at a load of 12 and more).

| measure | result | goal | |
| --- | --- | --- | --- |
| Start-up to first request byte with web_fetch offered | ${r.startup.withWebMs} ms = ${r.startup.ratio}× without the web tools (${r.startup.withoutWebMs} ms) | ≤ 1.03× | ${r.startup.ratio <= 1.03 ? "met" : "missed"} |
| … with web_search offered too (SEARXNG_URL set) | ${r.startup.withWebAndSearchMs} ms = ${r.startup.ratioWithSearch}× | ≤ 1.03× | ${r.startup.ratioWithSearch <= 1.03 ? "met" : "missed"} |

## The 2 MB page to Markdown and the 100-page PDF to text, against the original omp and opencode

${agentTable(r)}

Start-up: 30 interleaved runs of \`omp -p hello\` each way, spawn to the stand-in's receipt of the first request.
The web and document libraries (Readability, linkedom, Turndown, unpdf, mammoth) load on a tool's first
use only, which test/unit/start-up-imports.test.ts guards; what remains is the tools' specs in the request.

Tool cost: each agent in its print mode against the same provider stand-in, the model's one call
being that agent's own tool for the job (omp \`web_fetch\` and \`read\`; opencode \`webfetch\` with
\`format: markdown\` and \`read\`; the original omp \`read\` of the URL and of the file). The time is from
the stand-in handing over the reply with the call to the next request's arrival, less the same span for a
\`read\` of a one-line file (so it covers loading libraries, the fetch or file read, the conversion, the
paging), the median of ${r.runs} runs for omp and of fewer for the peers (a run of theirs takes up to a
minute here); peak RSS is GNU time's for the whole run, against the one-line read's. "What the model got":
the result's size, and whether it holds the article's prose, the site's navigation links (left out by
main-content extraction), or the PDF's first line as text. The page is a documentation page of repeated
sections (prose, code, a table, a list) inside site navigation; the PDF has 40 lines of text in Helvetica
on each of its 100 pages, written by the benchmark. Peers: ${PEERS.map((peer) => peer.pkg).join(", ")}
(from npm, as bench/edits.ts installs them${r.missing.length > 0 ? `; not run: ${r.missing.join(", ")}` : ""}).
${pdfNotes(r)}`;
}

// `--markdown`: rewrite web.md from the recorded web.json (after editing the prose above).
if (process.argv.includes("--markdown")) writeFileSync(join(RESULTS, "web.md"), markdown(await Bun.file(join(RESULTS, "web.json")).json()));
else await main();
