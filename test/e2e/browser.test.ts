// The browser tool on the compiled omp: headless Debian Chromium in the command sandbox, driven
// over its DevTools pipe, against a real HTTP server on loopback whose text exists only after its
// JavaScript ran; tabs by name; the sandbox's deny-list and the egress policy hold for the browser.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, deferredToolNamesOf, modelRequests, runAgent, spawnOmp, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/app") {
      // Only the script writes the text: a plain fetch of the page would not find it.
      return new Response(
        `<!doctype html><html><head><title>Dev app</title></head><body><main id="root">loading</main>
<input id="q"><select id="s"><option value="a">A</option><option value="b">B</option></select><button id="go" onclick="document.getElementById('out').textContent = 'clicked:' + document.getElementById('q').value + ':' + document.getElementById('s').value">Go</button><p id="out"></p>
<script>setTimeout(() => { document.getElementById("root").innerHTML = "<h1>Rendered " + (6 * 7) + "</h1><p>Written by the page's JavaScript at run time, long enough for the reader view to take it as the article's text.</p>"; }, 50);</script></body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    }
    return new Response("not found", { status: 404 });
  },
});
afterAll(() => server.stop(true));
const base = server.url.href;

function setup() {
  const ws = workspace();
  mkdirSync(join(ws.home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(ws.home, ".omp", "agent", "config.yml"), `web: {allowHosts: ["127.0.0.1"]}\n`);
  mkdirSync(join(ws.home, ".ssh"), { recursive: true });
  writeFileSync(join(ws.home, ".ssh", "id_ed25519"), "SSH-PRIVATE-KEY-MARKER\n");
  return ws;
}

/** One turn per entry, each with its tool calls; the results each next request carried, turn by turn. */
async function turns(ws: { home: string; repo: string }, script: { name: string; arguments: Record<string, unknown> }[][], mark = "none") {
  standin.setScript([...script.map((toolCalls) => ({ toolCalls })), { text: "done" }]);
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", MODEL, "go"], { home: ws.home, cwd: ws.repo, env: { ...env, OMP_TEST_MARK: mark } });
  const requests = modelRequests(standin);
  return { result, requests, results: requests.slice(1).map((request) => toolResultsOf("anthropic-messages", request.body).slice(-script[0]!.length)) };
}

/** Chromium's processes started by the omp whose environment carried OMP_TEST_MARK=<mark> (it reaches Chromium through the driver). */
function chromiumOf(mark: string): string[] {
  const found: string[] = [];
  for (const pid of require("node:fs").readdirSync("/proc").filter((entry: string) => /^\d+$/.test(entry))) {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1");
      if (cmdline.includes("chromium") && environ.includes(`\0OMP_TEST_MARK=${mark}\0`)) found.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

describe("browser", () => {
  test("offered where Chromium is installed; opens a loopback page, returns the text its script wrote and a PNG screenshot; tabs reused by name; close", async () => {
    const ws = setup();
    const mark = crypto.randomUUID();
    const { result, requests } = await turns(ws, [
      [{ name: "browser", arguments: { action: "open", url: `${base}app`, viewport: { width: 800, height: 600 } } }],
      [{ name: "browser", arguments: { action: "run", code: "await tab.waitFor('h1'); await tab.screenshot(); return { h1: await tab.evaluate(() => document.querySelector('h1').textContent), markdown: await tab.extract(), title: await page.title() };" } }],
      [{ name: "browser", arguments: { action: "run", code: "await tab.type('#q', 'hi'); await tab.select('#s', 'b'); await tab.click('#go'); await tab.waitFor('#out:not(:empty)'); return tab.evaluate(() => document.getElementById('out').textContent);" } }],
      [{ name: "browser", arguments: { action: "open", url: `${base}app` } }],
      [{ name: "browser", arguments: { action: "close" } }],
      [{ name: "browser", arguments: { action: "run", code: "return 1" } }],
      [{ name: "browser", arguments: { action: "open", name: "docs", url: `${base}nowhere` } }],
      [{ name: "browser", arguments: { action: "run", name: "docs", code: "return document === undefined ? 0 : 1" } }],
      [{ name: "browser", arguments: { action: "run", name: "docs", code: "return [await tab.url(), await tab.evaluate(() => document.body.innerText)]" } }],
      [{ name: "browser", arguments: { action: "close", all: true } }],
    ], mark);
    expect(result.stderr).not.toContain("rror:");
    expect(deferredToolNamesOf(requests[0]!.body)).toContain("browser");
    const last = (index: number) => toolResultsOf("anthropic-messages", requests[index]!.body).at(-1)!;
    expect(last(1).text).toContain(`Opened tab "main" (headless Chromium): ${base}app — Dev app`);
    const ran = last(2).text;
    expect(ran).toContain('"h1": "Rendered 42"');
    expect(ran).toContain("# Rendered 42");
    expect(ran).toContain('"title": "Dev app"');
    expect(ran).toMatch(/Screenshot 800x600/);
    // The screenshot is an image block of the next request: a real PNG of the viewport's size.
    const resultBlock = requests[2]!.body.messages.at(-1).content.find((block: any) => block.type === "tool_result");
    const image = resultBlock.content.find((block: any) => block.type === "image");
    expect(image.source.media_type).toBe("image/png");
    const png = Buffer.from(image.source.data, "base64");
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([800, 600]);
    expect(last(3).text).toContain("clicked:hi:b");
    expect(last(4).text).toContain('Reused tab "main"');
    expect(last(5).text).toContain('Closed "main"');
    expect(last(6).text).toContain('Tab "main" is not open');
    expect(last(6).isError).toBe(true);
    // A second tab by name, with state of its own; page code errors come back as errors, the tab stays.
    expect(last(7).text).toContain(`Opened tab "docs" (headless Chromium): ${base}nowhere`);
    expect(last(8).isError).toBe(true);
    expect(last(8).text).toContain("document is not defined");
    expect(last(9).text).toContain(`"${base}nowhere"`);
    expect(last(9).text).toContain("not found");
    expect(last(10).text).toBe('Closed "docs"');
    // omp has exited: nothing of its browser is left.
    expect(chromiumOf(mark)).toEqual([]);
  }, 240_000);

  test("a dev server on loopback the user did not allow: the page's request is asked about (rpc), and once allowed the page loads", async () => {
    const ws = workspace();
    standin.setScript([{ toolCalls: [{ name: "browser", arguments: { action: "open", url: `${base}app` } }] }, { text: "done" }]);
    const rpc = new RpcProcess(["--model", MODEL], { home: ws.home, cwd: ws.repo, env });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "look at my app" });
      const asked = await rpc.waitFrame((f) => f.type === "extension_ui_request", mark);
      expect(asked.toolName).toBe("browser");
      expect(asked.message).toContain(`a browser request for ${base}app`);
      expect(asked.message).toContain("to 127.0.0.1, a loopback address (127.0.0.1), a host you have not named");
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: asked.id, value: "Always allow requests to 127.0.0.1 in this project" }));
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const end = rpc.frames.find((f) => f.type === "tool_execution_end");
      expect(end.isError).toBe(false);
      expect(end.details).toMatchObject({ action: "open", name: "main", url: `${base}app`, title: "Dev app" });
      expect(await rpc.close()).toBe(0);
    } finally {
      await rpc.close();
    }
  }, 240_000);

  test("page code that never yields is stopped at its time limit (the browser with it), and the next open starts a fresh one", async () => {
    const ws = setup();
    const { requests } = await turns(ws, [
      [{ name: "browser", arguments: { action: "open", url: `${base}app` } }],
      [{ name: "browser", arguments: { action: "run", code: "while (true) {}", timeout: 1 } }],
      [{ name: "browser", arguments: { action: "open", url: `${base}app` } }],
    ]);
    const last = (index: number) => toolResultsOf("anthropic-messages", requests[index]!.body).at(-1)!;
    expect(last(2).isError).toBe(true);
    expect(last(2).text).toContain("hung past its time limit");
    expect(last(3).text).toContain('Opened tab "main"');
  }, 240_000);

  test("SIGTERM to omp while page code runs leaves no Chromium behind", async () => {
    const ws = setup();
    const mark = crypto.randomUUID();
    standin.setScript([
      { toolCalls: [{ name: "browser", arguments: { action: "open", url: `${base}app` } }] },
      { toolCalls: [{ name: "browser", arguments: { action: "run", code: "await wait(120000); return 'never'", timeout: 200 } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const omp = spawnOmp(["-p", "--model", MODEL, "go"], { home: ws.home, cwd: ws.repo, env: { ...env, OMP_TEST_MARK: mark } });
    omp.stdin.end();
    const deadline = Date.now() + 120_000;
    while (modelRequests(standin).length < 2 && Date.now() < deadline) await Bun.sleep(50);
    // The second request went out: the browser is up and the run is waiting.
    expect(chromiumOf(mark).length).toBeGreaterThan(0);
    omp.kill("SIGTERM");
    await omp.exited;
    let left = chromiumOf(mark);
    while (left.length > 0 && Date.now() < deadline) {
      await Bun.sleep(50);
      left = chromiumOf(mark);
    }
    expect(left).toEqual([]);
  }, 240_000);

  test("the browser cannot read ~/.ssh (file:// refused by the path policy, hidden by the sandbox from the page and from run code) nor reach an unapproved host", async () => {
    const ws = setup();
    const key = join(ws.home, ".ssh", "id_ed25519");
    const { requests } = await turns(ws, [
      [{ name: "browser", arguments: { action: "open", url: `file://${key}` } }],
      [{ name: "browser", arguments: { action: "open", url: `${base}app` } }],
      [{ name: "browser", arguments: { action: "run", code: `await tab.goto(${JSON.stringify(`file://${key}`)}); return await tab.content();` } }],
      [{ name: "browser", arguments: { action: "run", code: `await tab.goto("https://93.184.215.14/"); return await tab.content();` } }],
      [{ name: "browser", arguments: { action: "run", code: `await tab.goto(${JSON.stringify(`${base}app`)}); return await tab.evaluate(async () => { try { return await (await fetch("http://93.184.215.14/")).text(); } catch (e) { return "fetch failed: " + e.message; } });` } }],
      // The run's own code (not the page's) is the model's code too: it runs in the sandbox.
      [{ name: "browser", arguments: { action: "run", code: `return await Bun.file(${JSON.stringify(key)}).text();` } }],
    ]);
    const all = JSON.stringify(requests.map((request) => request.body));
    expect(all).not.toContain("SSH-PRIVATE-KEY-MARKER");
    const last = (index: number) => toolResultsOf("anthropic-messages", requests[index]!.body).at(-1)!;
    expect(last(1).isError).toBe(true);
    expect(last(1).text).toContain("may not open");
    expect(last(3).isError).toBe(true);
    expect(last(3).text).toMatch(/ERR_(ACCESS_DENIED|FILE_NOT_FOUND)/);
    // A public address the user did not name: the egress policy refuses it (print mode has nobody to ask), and the model is told why.
    expect(last(4).isError).toBe(true);
    expect(last(4).text).toContain("ERR_TUNNEL_CONNECTION_FAILED");
    expect(last(4).text).toContain("Requests the egress policy refused:");
    expect(last(4).text).toContain("93.184.215.14, a host the user has not named");
    expect(last(5).text).toContain("fetch failed");
    expect(last(5).text).toContain("93.184.215.14, a host the user has not named");
    expect(last(6).isError).toBe(true);
    expect(last(6).text).toMatch(/ENOENT|EACCES|EPERM/);
  }, 240_000);
});
