// The eval tool on dist/omp (issue 41 item 1): a stand-in model runs Python and JavaScript cells in
// the session's retained kernels; state persists across calls, display() brings back a PNG as an
// image block in the next request, runaway cells are stopped by their timeout and by an abort while
// the kernel lives on, reset clears state, and the kernels are held by the same sandbox as bash.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, providerCases, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { doctor } from "../support/omp.ts";
import { tempDir } from "../support/temp.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

type Cell = { language: "py" | "js"; code: string; title?: string; timeout?: number; reset?: boolean };

/** Runs each list of cells as one eval call of the model's (a turn each); returns the last request's tool results and its body. */
async function evalCalls(calls: Cell[][], ws = workspace(), env: Record<string, string> = {}) {
  standin.requests.length = 0;
  standin.setScript([...calls.map((cells, i) => ({ toolCalls: [{ id: `e${i}`, name: "eval", arguments: { cells } }] })), { text: "done" }]);
  const run = await runAgent(["-p", "--model", provider.model, "go"], { home: ws.home, cwd: ws.repo, env: { ...provider.env(standin.url), TMPDIR: tempDir("omp-eval-tmp-"), ...env } });
  const last = modelRequests(standin).at(-1);
  if (!last) throw new Error(`no model request; omp exited ${run.code}: ${run.stderr}`);
  return { run, results: toolResultsOf(provider.api, last.body), body: last.body };
}

/** A 2×3 red PNG made with the standard library only. */
const PNG_CELL = [
  "import struct, zlib",
  "def chunk(kind, data): return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)",
  "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2, 3, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress((b'\\x00' + b'\\xff\\x00\\x00' * 2) * 3)) + chunk(b'IEND', b'')",
  "display(png)",
  "display({'rows': 3, 'cols': 2})",
].join("\n");

describe("eval", () => {
  test("one cell at the top level, as the original omp 18.2 sends it, runs like a list of one", async () => {
    const ws = workspace();
    standin.requests.length = 0;
    standin.setScript([{ toolCalls: [{ id: "t0", name: "eval", arguments: { language: "py", code: "print(6 * 7)" } }] }, { text: "done" }]);
    const run = await runAgent(["-p", "--model", provider.model, "go"], { home: ws.home, cwd: ws.repo, env: { ...provider.env(standin.url), TMPDIR: tempDir("omp-eval-tmp-") } });
    expect(run.code).toBe(0);
    const [result] = toolResultsOf(provider.api, modelRequests(standin).at(-1)!.body);
    expect(result!.text).toContain("42");
    expect(result!.text).not.toContain("Invalid");
  });

  test("Python and JS state persist across calls; display() returns a PNG image and JSON; reset clears state; errors stop later cells", async () => {
    const { run, results, body } = await evalCalls([
      [
        { language: "py", title: "setup", code: "import os\nx = 41\nprint('set', os.getpid() > 0)" },
        { language: "js", code: "let n = 1; const seen = [];" },
      ],
      [
        { language: "py", code: "x + 1" },
        { language: "js", code: "seen.push('a'); n + 41" },
      ],
      [
        { language: "py", code: PNG_CELL },
        // Top-level await and an import: its declarations persist like a plain cell's.
        { language: "js", code: "import { readFile } from 'node:fs/promises';\nconst readme = await readFile('README.md', 'utf8');\nreturn readme.trim()" },
      ],
      [
        { language: "py", reset: true, code: "print('x' in globals())" },
        { language: "js", code: "seen.length + ' ' + readme.length + ' ' + typeof readFile" },
      ],
      [
        { language: "py", code: "raise ValueError('bad value')" },
        { language: "py", code: "print('never')" },
      ],
      // The original's prelude helpers: read, write, append, env.
      [
        { language: "py", code: "write('notes/py.txt', 'one\\n')\nappend('notes/py.txt', 'two\\n')\nenv('FROM_PY', 'yes')\nread('notes/py.txt', 2, 1)" },
        { language: "js", code: "await append('notes/py.txt', 'three\\n');\nreturn (await read('notes/py.txt')).split('\\n').join(',') + ' ' + env('HOME').length" },
      ],
    ]);
    expect(run.code).toBe(0);
    const [setup, again, image, reset, failed, helpers] = results;
    expect(setup!.text).toContain("[1/2] setup\nset True");
    expect(again!.text).toContain("42\n[2/2]\n42");
    expect(image!.text).toContain('"rows": 3');
    expect(image!.text).toContain("# demo");
    // The image travels as an image block of the tool result in the provider's format.
    const block = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result" && b.tool_use_id === "e2");
    const png = block.content.find((c: any) => c.type === "image");
    expect(png.source.media_type).toBe("image/png");
    expect(Buffer.from(png.source.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    // reset restarted Python only: JS kept its array.
    expect(reset!.text).toContain("False");
    expect(reset!.text).toMatch(/\[2\/2\]\n1 7 function$/);
    expect(failed!.isError).toBe(true);
    expect(failed!.text).toContain("ValueError: bad value");
    expect(failed!.text).toContain("the 1 cell(s) after it were not run");
    expect(failed!.text).not.toContain("never");
    expect(helpers!.text).toMatch(/^\[1\/2\]\ntwo\n\[2\/2\]\none,two,three, \d+$/);
  });

  test("a runaway cell is stopped by its timeout; the Python kernel keeps its state, JS starts afresh", async () => {
    const started = Date.now();
    const { results } = await evalCalls([
      // A subprocess's output (written to fd 1 directly) arrives within its cell.
      [{ language: "py", code: "y = 5\nimport subprocess\nsubprocess.run(['echo', 'from a subprocess'])\nNone" }],
      [{ language: "py", code: "while True: pass", timeout: 2 }],
      [{ language: "py", code: "print('alive', y)" }],
      [{ language: "js", code: "let k = 3; while (true) {}", timeout: 2 }],
      [{ language: "js", code: "typeof k" }],
      // A kernel that dies is said so, and the next cell gets a fresh one.
      [{ language: "py", code: "import os\nos._exit(3)" }],
      [{ language: "py", code: "print('fresh', 'y' in globals())" }],
    ]);
    const [child, spun, alive, jsSpun, jsAfter, died, fresh] = results;
    expect(died!.isError).toBe(true);
    expect(died!.text).toContain("The py runtime ended while running the cell (it exited); the next cell starts a fresh one.");
    expect(fresh!.text).toContain("was started again; its earlier state is gone.");
    expect(fresh!.text).toContain("fresh False");
    expect(child!.text).toBe("from a subprocess");
    expect(spun!.isError).toBe(true);
    expect(spun!.text).toContain("Cell timed out after 2s and was stopped");
    expect(spun!.text).toContain("keeps its state");
    expect(alive!.text).toContain("alive 5");
    expect(jsSpun!.text).toContain("Cell timed out after 2s");
    expect(jsSpun!.text).toContain("its state is gone");
    expect(jsAfter!.text).toContain("undefined");
    // Two 2 s timeouts, not 30 s defaults.
    expect(Date.now() - started).toBeLessThan(50_000);
  });

  test("a notebook's code cells run in the session's Python kernel; a later cell sees their state; a missing notebook, bad cell or denied path says so", async () => {
    const ws = workspace();
    const cell = (cell_type: string, source: string[], id: string) => ({ cell_type, id, metadata: {}, source, ...(cell_type === "code" ? { outputs: [], execution_count: null } : {}) });
    const notebook = { nbformat: 4, nbformat_minor: 5, metadata: { kernelspec: { name: "python3", language: "python" } }, cells: [cell("code", ["x = 20"], "set-x"), cell("markdown", ["# Sum"], "note"), cell("code", ["x + 22"], "sum")] };
    const text = JSON.stringify(notebook, null, 1);
    writeFileSync(join(ws.repo, "analysis.ipynb"), text);
    // A notebook in a denied place is refused as read refuses it, before any of its code runs.
    mkdirSync(join(ws.home, ".ssh"), { recursive: true });
    writeFileSync(join(ws.home, ".ssh", "keys.ipynb"), JSON.stringify({ ...notebook, cells: [cell("code", ["open('ran', 'w').write('yes')"], "k")] }));
    standin.requests.length = 0;
    const call = (id: string, args: Record<string, unknown>) => ({ toolCalls: [{ id, name: "eval", arguments: args }] });
    standin.setScript([
      call("all", { notebook: { path: "analysis.ipynb" } }),
      call("after", { cells: [{ language: "py", code: "print(x)" }] }),
      call("byId", { notebook: { path: "analysis.ipynb", cells: ["sum", 0] } }),
      call("missing", { notebook: { path: "analysys.ipynb" } }),
      call("badCell", { notebook: { path: "analysis.ipynb", cells: [7] } }),
      call("markdown", { notebook: { path: "analysis.ipynb", cells: ["note"] } }),
      call("denied", { notebook: { path: join(ws.home, ".ssh", "keys.ipynb") } }),
      { text: "done" },
    ]);
    const run = await runAgent(["-p", "--model", provider.model, "go"], { home: ws.home, cwd: ws.repo, env: { ...provider.env(standin.url), TMPDIR: tempDir("omp-eval-tmp-") } });
    expect(run.code).toBe(0);
    const results = toolResultsOf(provider.api, modelRequests(standin).at(-1)!.body);
    const of = (id: string) => results.find((r) => r.id === id)!;
    expect(of("all").text).toBe("[1/2] cell:0\n[2/2] cell:2\n42");
    expect(of("after").text).toBe("20");
    expect(of("byId").text).toBe("[1/2] cell:2\n42\n[2/2] cell:0");
    expect(of("missing").isError).toBe(true);
    expect(of("missing").text).toContain("Notebook not found: analysys.ipynb. Did you mean analysis.ipynb?");
    expect(of("badCell").isError).toBe(true);
    expect(of("badCell").text).toContain("analysis.ipynb has no cell 7: name a cell by its index 0-2");
    expect(of("markdown").text).toContain("Cell 1 of analysis.ipynb is a markdown cell, not code");
    expect(of("denied").isError).toBe(true);
    expect(of("denied").text).toContain("deny-list");
    expect(existsSync(join(ws.repo, "ran"))).toBe(false);
    // Outputs are returned, never written back: the file is as it was.
    expect(readFileSync(join(ws.repo, "analysis.ipynb"), "utf8")).toBe(text);
  });

  test("an abort (rpc) stops a running cell; the next turn's cell runs in the same kernel", async () => {
    const ws = workspace();
    standin.requests.length = 0;
    standin.setScript([
      { toolCalls: [{ id: "spin", name: "eval", arguments: { cells: [{ language: "py", code: "z = 7\nprint('spinning', flush=True)\nwhile True: pass", timeout: 600 }] } }] },
      { toolCalls: [{ id: "after", name: "eval", arguments: { cells: [{ language: "py", code: "print('after', z)" }] } }] },
      { text: "done" },
    ]);
    const rpc = new RpcProcess(["--model", provider.model, "--approval-mode", "yolo"], { home: ws.home, cwd: ws.repo, env: { ...provider.env(standin.url), TMPDIR: tempDir("omp-eval-tmp-") } });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      expect((await rpc.send({ type: "prompt", message: "spin" })).success).toBe(true);
      await rpc.waitFrame((f) => f.type === "tool_execution_update" && String(f.output).includes("spinning"), mark);
      expect((await rpc.send({ type: "abort" })).success).toBe(true);
      const end = await rpc.waitFrame((f) => f.type === "tool_execution_end" && f.toolCallId === "spin", mark);
      expect(end.details.cells[0]).toMatchObject({ status: "error", aborted: true });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const next = rpc.mark;
      await rpc.turn("again");
      const after = await rpc.waitFrame((f) => f.type === "tool_execution_end" && f.toolCallId === "after", next);
      expect(after.isError).toBe(false);
      const results = toolResultsOf(provider.api, modelRequests(standin).at(-1)!.body);
      expect(results.find((r) => r.id === "spin")!.text).toContain("Cell cancelled by the user and stopped. The kernel was interrupted and keeps its state");
      expect(results.find((r) => r.id === "after")!.text).toBe("after 7");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });

  test("the kernels are sandboxed like bash: no ~/.ssh keys, no vault, no unapproved host, no omp secrets", async () => {
    const ws = workspace();
    const key = `key-material-${crypto.randomUUID()}`;
    mkdirSync(join(ws.home, ".ssh"), { recursive: true });
    writeFileSync(join(ws.home, ".ssh", "id_ed25519"), key, { mode: 0o600 });
    mkdirSync(join(ws.home, ".omp", "agent"), { recursive: true });
    const vaultSecret = `vault-secret-${crypto.randomUUID()}`;
    const db = new Database(join(ws.home, ".omp", "agent", "agent.db"));
    db.run("CREATE TABLE planted (value TEXT)");
    db.run("INSERT INTO planted VALUES (?)", [vaultSecret]);
    db.close();
    const received: string[] = [];
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => (received.push(request.url), new Response("ok")) });
    const token = `gh-${crypto.randomUUID()}`;
    const attempt = (what: string, code: string) => `try:\n${code.replace(/^/gm, "    ")}\n    print('${what} READ')\nexcept Exception as error:\n    print('${what} refused', type(error).__name__)`;
    try {
      const { results } = await evalCalls(
        [
          [
            { language: "py", code: attempt("ssh", `print(open(${JSON.stringify(join(ws.home, ".ssh", "id_ed25519"))}).read())`) },
            { language: "py", code: attempt("vault", `print(open(${JSON.stringify(join(ws.home, ".omp", "agent", "agent.db"))}, 'rb').read())`) },
            { language: "py", code: attempt("net", `import urllib.request\nprint(urllib.request.urlopen('http://127.0.0.1:${server.port}/py', timeout=5).read())`) },
            { language: "py", code: "import os\nprint('token', os.environ.get('GITHUB_TOKEN'))\nopen('made-by-py.txt', 'w').write('ok')" },
          ],
          [
            { language: "js", code: `require("node:fs").readFileSync("README.md", "utf8").trim()` },
            { language: "js", code: `try { require("node:fs").readFileSync(${JSON.stringify(join(ws.home, ".ssh", "id_ed25519"))}, "utf8"); "ssh READ" } catch (e) { "ssh refused " + e.code }` },
            { language: "js", code: `try { await fetch("http://127.0.0.1:${server.port}/js"); return "net READ" } catch (e) { return "net refused" }` },
            { language: "js", code: "'token ' + process.env.GITHUB_TOKEN" },
          ],
        ],
        ws,
        { GITHUB_TOKEN: token },
      );
      const [py, js] = results.map((r) => r.text);
      expect(py).toContain("ssh refused");
      expect(py).toContain("vault refused");
      expect(py).toContain("net refused");
      expect(py).toContain("token None");
      // The project's files are readable; the key is not (EACCES under Landlock, hidden under bubblewrap).
      expect(js).toContain("# demo");
      expect(js).toMatch(/ssh refused (EACCES|ENOENT|EPERM)/);
      expect(js).toContain("net refused");
      expect(js).toContain("token undefined");
      for (const text of [py, js]) {
        expect(text).not.toContain("READ");
        expect(text).not.toContain(key);
        expect(text).not.toContain(vaultSecret);
        expect(text).not.toContain(token);
      }
      expect(received).toEqual([]);
      // Writes in the project work, as for bash.
      expect(await Bun.file(join(ws.repo, "made-by-py.txt")).text()).toBe("ok");
    } finally {
      server.stop(true);
    }
  });

  test("long output keeps its head and tail and saves the whole of it as an artifact", async () => {
    const { results } = await evalCalls([
      [{ language: "py", code: "for i in range(5000): print('line', i)" }],
      // One print larger than a frame may be (32 MB): sent in pieces, cut for the model, the kernel lives on.
      [{ language: "py", code: "z = 1\nprint('y' * 40_000_000)\nprint('end of big')" }],
      [{ language: "py", code: "print('alive', z)" }],
    ]);
    expect(results[1]!.isError).toBeFalsy();
    expect(results[1]!.text).toContain("end of big");
    expect(results[1]!.text.length).toBeLessThan(100_000);
    expect(results[2]!.text).toBe("alive 1");
    const text = results[0]!.text;
    expect(text).toContain("line 0\n");
    expect(text).toContain("line 4999");
    expect(text).not.toContain("line 2500\n");
    const saved = /saved in (\S+eval-\d+\.log)/.exec(text)?.[1];
    expect(saved).toBeDefined();
    const log = await Bun.file(saved!).text();
    expect(log).toContain("line 2500\n");
    expect(log.split("\n").filter((l) => l.startsWith("line ")).length).toBe(5000);
  });
});

describe("interpreter", () => {
  test("the project's .venv is the Python kernel's interpreter", async () => {
    const ws = workspace();
    const made = Bun.spawnSync(["python3", "-m", "venv", "--without-pip", join(ws.repo, ".venv")], { stderr: "pipe" });
    expect(made.exitCode).toBe(0);
    const { results } = await evalCalls([[{ language: "py", code: "import sys\nprint(sys.prefix)" }]], ws);
    expect(results[0]!.text).toBe(join(ws.repo, ".venv"));
  });
});

describe("without python3", () => {
  test("omp doctor says Python cells are unavailable and how to install python3; a py cell says so too, JS still runs", async () => {
    const ws = workspace();
    // A PATH with the tools omp uses but no python3.
    const bin = tempDir("omp-eval-bin-");
    for (const tool of ["bash", "git", "setpriv"]) {
      const path = Bun.which(tool);
      if (path) symlinkSync(path, join(bin, tool));
    }
    const { report } = await doctor({ home: ws.home, cwd: ws.repo, env: { PATH: bin } });
    expect((report as any).eval.python.missing).toContain("omp setup python");
    const withPython = await doctor({ home: ws.home, cwd: ws.repo });
    expect((withPython.report as any).eval.python.version).toMatch(/^3\.\d+\.\d+$/);
    const { results } = await evalCalls([[{ language: "js", code: "6 * 7" }], [{ language: "py", code: "print(1)" }]], ws, { PATH: bin });
    expect(results[0]!.text).toBe("42");
    expect(results[1]!.isError).toBe(true);
    expect(results[1]!.text).toContain("Python cells need python3, which is not on PATH. Install it (`omp setup python`)");
  });
});
