// Language servers from the compiled binary: typescript-language-server (and pyright) from npm
// run for real; the stand-in model reads, edits and renames through write/edit/lsp and sees what
// the servers say in its tool results.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { ROOT, runOmp } from "../support/omp.ts";
import { tempDir } from "../support/temp.ts";
import { READY, testSessions } from "../support/tty-session.ts";

setDefaultTimeout(180_000);
const standin = await agentTestFile();
const sessions = testSessions();
setDefaultTimeout(180_000);
const MODEL = "anthropic/claude-sonnet-4-5";
const BIN = join(ROOT, "node_modules", ".bin");
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test", PATH: `${BIN}:${process.env.PATH}` };

const TS_PROJECT: Record<string, string> = {
  "package.json": '{ "name": "demo", "private": true }\n',
  "tsconfig.json": '{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }\n',
  "src/price.ts": "export function totalPrice(items: number[]): number {\n  return items.reduce((sum, item) => sum + item, 0);\n}\n",
  "src/cart.ts": 'import { totalPrice } from "./price.js";\n\nexport function cartTotal(prices: number[]): number {\n  return totalPrice(prices);\n}\n',
  "src/report.ts": 'import { totalPrice } from "./price.js";\n\nexport const report = `total: ${totalPrice([1, 2, 3])}`;\n',
};

type Call = { name: string; arguments: Record<string, unknown> };

/** Runs the calls as one turn each in print mode; returns each call's result text. */
async function run(repo: string, home: string, calls: Call[], args: string[] = []): Promise<string[]> {
  standin.setScript([...calls.map((call) => ({ toolCalls: [call] })), { text: "done" }]);
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", MODEL, ...args, "go"], { home, cwd: repo, env });
  expect(result.stderr).not.toContain("Error");
  expect(result.code).toBe(0);
  const requests = modelRequests(standin);
  // Each request carries the whole conversation: the newest tool result is the call's.
  return calls.map((_, i) => toolResultsOf("anthropic-messages", requests[i + 1]!.body).at(-1)!.text);
}

describe("diagnostics after write and edit", () => {
  test("an edit that breaks a type shows the error at file:line:col; the fix shows none new and the error resolved", async () => {
    const { home, repo } = workspace(TS_PROJECT);
    const [read, broken, fixed] = await run(repo, home, [
      { name: "read", arguments: { path: "src/cart.ts" } },
      { name: "edit", arguments: { path: "src/cart.ts", edits: [{ oldText: "return totalPrice(prices);", newText: 'return totalPrice(prices) + "";' }] } },
      { name: "edit", arguments: { path: "src/cart.ts", edits: [{ oldText: 'return totalPrice(prices) + "";', newText: "return totalPrice(prices);" }] } },
    ]);
    expect(read).toContain("cartTotal");
    expect(broken).toContain("Diagnostics (typescript-language-server): 1 new");
    expect(broken).toMatch(/src\/cart\.ts:4:3 error TS2322: Type 'string' is not assignable to type 'number'/);
    expect(fixed).toContain("Diagnostics (typescript-language-server): no new problems; 0 error(s)");
    expect(fixed).toContain("1 error(s) resolved");
    expect(fixed).not.toContain("TS2322");
  });

  test("write reports the errors of a new file; lsp.diagnosticsOnWrite: false turns it off", async () => {
    const { home, repo } = workspace(TS_PROJECT);
    const [written] = await run(repo, home, [{ name: "write", arguments: { path: "src/bad.ts", content: "export const n: number = 'one';\n" } }]);
    expect(written).toMatch(/src\/bad\.ts:1:14 error TS2322/);
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "lsp:\n  diagnosticsOnWrite: false\n");
    const [quiet] = await run(repo, home, [{ name: "write", arguments: { path: "src/bad2.ts", content: "export const n: number = 'one';\n" } }]);
    expect(quiet).toContain("Created src/bad2.ts");
    expect(quiet).not.toContain("Diagnostics");
  });

  test("pyright reports a Python type error on write", async () => {
    const { home, repo } = workspace({ "pyproject.toml": "[project]\nname = 'demo'\n", "app.py": "def f(x: int) -> int:\n    return x\n" });
    const [written] = await run(repo, home, [{ name: "write", arguments: { path: "app.py", content: 'def f(x: int) -> int:\n    return x\n\nf("no")\n' } }]);
    expect(written).toContain("Diagnostics (pyright)");
    expect(written).toMatch(/app\.py:4:3 error/);
  });

  test("clangd (Debian's) reports the error an edit of a C file introduces", async () => {
    const { home, repo } = workspace({ "compile_flags.txt": "-std=c11\n", "main.c": "int twice(int n) {\n  return n * 2;\n}\n" });
    const [edited] = await run(repo, home, [
      { name: "read", arguments: { path: "main.c" } },
      { name: "edit", arguments: { path: "main.c", edits: [{ oldText: "return n * 2;", newText: "return m * 2;" }] } },
    ]).then((results) => results.slice(1));
    expect(edited).toContain("Diagnostics (clangd): 1 new");
    expect(edited).toMatch(/main\.c:2:10 error undeclared_var_use: Use of undeclared identifier 'm'/);
  });

  test("clangd works in a git project without compile_commands.json: its include/ is found, and nothing is written into the project", async () => {
    const { home, repo } = workspace({ "include/util.h": "int helper(int n);\n", "src/main.c": '#include "util.h"\n\nint twice(int n) {\n  return helper(n) * 2;\n}\n' });
    const [edited] = await run(repo, home, [
      { name: "read", arguments: { path: "src/main.c" } },
      { name: "edit", arguments: { path: "src/main.c", edits: [{ oldText: "return helper(n) * 2;", newText: "return helper(m) * 2;" }] } },
    ]).then((results) => results.slice(1));
    // Only the new error: the header was found through the fallback flags, so the include is no problem.
    expect(edited).toContain("Diagnostics (clangd): 1 new");
    expect(edited).toMatch(/src\/main\.c:4:17 error undeclared_var_use: Use of undeclared identifier 'm'/);
    expect(edited).toContain("0 warning(s)");
    expect(existsSync(join(repo, "compile_flags.txt"))).toBe(false);
    expect(existsSync(join(repo, "compile_commands.json"))).toBe(false);
  });
});

describe("diagnostics on a loaded machine", () => {
  test("typescript-language-server answering slower than the usual wait: every edit still gets its diagnostics", async () => {
    const { home, repo } = workspace(TS_PROJECT);
    // Its diagnostics arrive 2.5 s late, as under load ~10: past the 1.5 s a warm file used to get.
    const slow = { command: process.execPath, args: [join(ROOT, "test", "support", "lsp", "slow-diagnostics.ts"), "2500", join(BIN, "typescript-language-server"), "--stdio"] };
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), JSON.stringify({ lsp: { servers: { "typescript-language-server": slow } } }));
    const edit = (from: string, to: string): Call => ({ name: "edit", arguments: { path: "src/price.ts", edits: [{ oldText: from, newText: to }] } });
    const results = await run(repo, home, [
      { name: "read", arguments: { path: "src/price.ts" } },
      edit("sum + item", "sum + item.size"),
      edit("sum + item.size", "sum + item"),
      edit("number[]): number", "number[]): string"),
      edit("number[]): string", "number[]): number"),
    ]);
    const edits = results.slice(1);
    expect(edits.map((text) => /Diagnostics \(typescript-language-server\)/.test(text))).toEqual([true, true, true, true]);
    expect(edits[0]).toContain("Property 'size' does not exist on type 'number'");
    expect(edits[1]).toContain("1 error(s) resolved");
  });
});

describe("the lsp tool", () => {
  test("references, definition, hover, rename across three files (applied through the write path), and diagnostics", async () => {
    const { home, repo } = workspace(TS_PROJECT);
    const at = { path: "src/price.ts", line: 1, symbol: "totalPrice" };
    const [refs, definition, hover, preview, renamed, diagnostics] = await run(repo, home, [
      { name: "lsp", arguments: { op: "references", ...at } },
      { name: "lsp", arguments: { op: "definition", path: "src/report.ts", line: 3, symbol: "totalPrice" } },
      { name: "lsp", arguments: { op: "hover", ...at } },
      { name: "lsp", arguments: { op: "rename", ...at, newName: "sumPrices" } },
      { name: "lsp", arguments: { op: "rename", ...at, newName: "sumPrices", apply: true } },
      { name: "lsp", arguments: { op: "diagnostics", path: "src/cart.ts" } },
    ]);
    expect(refs).toContain("reference(s) in 3 file(s)");
    expect(refs).toContain("src/cart.ts:4:10: return totalPrice(prices);");
    expect(refs).toContain("src/report.ts:3:33");
    expect(definition).toContain("src/price.ts:1:17: export function totalPrice");
    expect(hover).toContain("function totalPrice(items: number[]): number");
    expect(preview).toContain("preview; nothing written");
    expect(renamed).toContain("applied");
    expect(renamed).toContain("in 3 file(s)");
    for (const file of ["src/price.ts", "src/cart.ts", "src/report.ts"]) {
      expect(readFileSync(join(repo, file), "utf8")).toContain("sumPrices");
      expect(readFileSync(join(repo, file), "utf8")).not.toContain("totalPrice");
    }
    expect(diagnostics).toContain("No problems in src/cart.ts");
  });

  test("rename with apply needs approval under --approval-mode write; the preview does not", async () => {
    const { home, repo } = workspace(TS_PROJECT);
    const at = { path: "src/price.ts", line: 1, symbol: "totalPrice", newName: "sumPrices" };
    const [preview, applied] = await run(repo, home, [{ name: "lsp", arguments: { op: "rename", ...at } }, { name: "lsp", arguments: { op: "rename", ...at, apply: true } }], ["--approval-mode", "write"]);
    expect(preview).toContain("preview");
    expect(applied).toContain("needs approval under --approval-mode write");
    expect(readFileSync(join(repo, "src/cart.ts"), "utf8")).toContain("totalPrice");
  });

  test("no server for a language: the tool says so and how to install one", async () => {
    const { home, repo } = workspace({ "main.go": "package main\n\nfunc main() {}\n", "go.mod": "module demo\n" });
    const [answer] = await run(repo, home, [{ name: "lsp", arguments: { op: "symbols", path: "main.go" } }]);
    expect(answer).toContain("no language server for .go files is installed");
    expect(answer).toContain("go install golang.org/x/tools/gopls@latest");
  });

  test("a loose .ts file outside any project starts no server; writes stay quiet about it", async () => {
    const { home, repo } = workspace({ "loose.ts": "export const n = 1;\n" });
    const [written, asked] = await run(repo, home, [
      { name: "write", arguments: { path: "loose.ts", content: "export const n: number = 'x';\n" } },
      { name: "lsp", arguments: { op: "diagnostics", path: "loose.ts" } },
    ]);
    expect(written).toBe("Overwrote loose.ts (30 bytes, 1 line; was 20 bytes).");
    expect(asked).toContain("no project here for a language server of .ts files");
    expect(asked).toContain("tsconfig.json, jsconfig.json, package.json");
  });
});

// omp's own server is a child of omp, which is the shell's parent or, when omp starts the command
// through its launcher (`omp-sandbox --contain`, even with the sandbox off), its grandparent.
const KILL_OMPS_SERVER = "P=$PPID; for up in 1 2; do S=$(pgrep -P $P -f '[t]ypescript-language-server') && break; P=$(ps -o ppid= -p $P | tr -d ' '); done; kill -KILL $S && echo killed";

describe("servers as processes", () => {
  test("a killed server is restarted and answers again", async () => {
    const { home, repo } = workspace(TS_PROJECT);
    standin.setScript([
      { toolCalls: [{ name: "lsp", arguments: { op: "hover", path: "src/price.ts", line: 1, symbol: "totalPrice" } }] },
      { toolCalls: [{ name: "bash", arguments: { command: KILL_OMPS_SERVER } }] },
      { toolCalls: [{ name: "lsp", arguments: { op: "hover", path: "src/cart.ts", line: 3, symbol: "cartTotal" } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    // Sandbox off: the test kills omp's own server from the model's bash, which the sandbox (rightly) forbids.
    const result = await runAgent(["-p", "--sandbox", "off", "--model", MODEL, "go"], { home, cwd: repo, env });
    expect(result.code).toBe(0);
    const texts = modelRequests(standin).slice(1).map((request) => toolResultsOf("anthropic-messages", request.body).at(-1)!.text);
    expect(texts[0]).toContain("totalPrice(items: number[]): number");
    expect(texts[1]).toContain("killed");
    expect(texts[2]).toContain("function cartTotal(prices: number[]): number");
  });

  test("a crashing server and a hanging one cost a line in the write's result, never the write; omp still exits promptly", async () => {
    const { home, repo } = workspace(TS_PROJECT);
    const hang = join(repo, "hang-server.sh");
    writeFileSync(hang, "#!/bin/sh\nexec sleep 600\n", { mode: 0o755 });
    writeFileSync(join(repo, ".lsp.json"), JSON.stringify({ crash: { command: "false", fileTypes: [".crash"] }, hang: { command: hang, fileTypes: [".hang"], warmupTimeoutMs: 120000 } }));
    const started = Date.now();
    const [crashed, hung, again] = await run(
      repo,
      home,
      [
        { name: "write", arguments: { path: "a.crash", content: "x\n" } },
        { name: "write", arguments: { path: "b.hang", content: "y\n" } },
        { name: "write", arguments: { path: "c.hang", content: "z\n" } },
      ],
      ["--trust"],
    );
    expect(crashed).toContain("Created a.crash");
    expect(crashed).toContain("No diagnostics: crash failed to start");
    expect(hung).toContain("Created b.hang");
    expect(hung).toContain("No diagnostics: did not start in time");
    expect(again).toContain("Created c.hang");
    expect(readFileSync(join(repo, "c.hang"), "utf8")).toBe("z\n");
    // The hanging handshake is killed when the session ends instead of being waited for.
    expect(Date.now() - started).toBeLessThan(90_000);
  });

  test("lsp.formatOnWrite formats a written file with its server; code_actions lists and applies a quick fix", async () => {
    const { home, repo } = workspace({ ...TS_PROJECT, "src/use.ts": "export const doubled = totalPrice([1]) * 2;\n" });
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "lsp:\n  formatOnWrite: true\n");
    const [written, listed, applied] = await run(repo, home, [
      { name: "write", arguments: { path: "src/ugly.ts", content: "export   function   f( a:number ){return a}\n" } },
      { name: "lsp", arguments: { op: "code_actions", path: "src/use.ts", line: 1 } },
      { name: "lsp", arguments: { op: "code_actions", path: "src/use.ts", line: 1, action: 1, apply: true } },
    ]);
    expect(written).toContain("The language server reformatted the file.");
    expect(readFileSync(join(repo, "src/ugly.ts"), "utf8")).toBe("export function f(a: number) { return a }\n");
    expect(listed).toContain('1. Add import from "./price" [quickfix]');
    expect(applied).toContain("applied");
    expect(readFileSync(join(repo, "src/use.ts"), "utf8")).toContain('import { totalPrice } from "./price');
  });

  test("an untrusted project's .lsp.json runs nothing; trusted, it runs", async () => {
    const { home, repo } = workspace({ ...TS_PROJECT, "src/a.fake": "hello\n" });
    const marker = join(tempDir("omp-lsp-marker-"), "ran");
    // A "server" that proves it was started by leaving a file behind.
    const server = join(repo, "evil-server.sh");
    writeFileSync(server, `#!/bin/sh\ntouch ${marker}\nsleep 5\n`, { mode: 0o755 });
    writeFileSync(join(repo, ".lsp.json"), JSON.stringify({ evil: { command: server, fileTypes: [".fake"], rootMarkers: [] } }));
    const [untrusted] = await run(repo, home, [{ name: "lsp", arguments: { op: "symbols", path: "src/a.fake" } }]);
    expect(untrusted).toContain("no language server is configured for .fake");
    expect(existsSync(marker)).toBe(false);
    await run(repo, home, [{ name: "lsp", arguments: { op: "symbols", path: "src/a.fake" } }], ["--trust"]);
    expect(existsSync(marker)).toBe(true);
  });
});

describe("/lsp and omp doctor", () => {
  test("/lsp shows the running server after a read, and the missing ones with how to install them", async () => {
    const { repo } = workspace(TS_PROJECT);
    const s = await sessions.start({
      cwd: repo,
      env: { PATH: env.PATH },
      script: [{ toolCalls: [{ name: "lsp", arguments: { op: "hover", path: "src/price.ts", line: 1, symbol: "totalPrice" } }] }, { text: "Looked." }],
    });
    const { tty } = s;
    await tty.waitFor(READY);
    tty.type("go");
    tty.press("Enter");
    await tty.waitFor("Looked.", 60_000);
    tty.type("/lsp");
    tty.press("Enter");
    const screen = (await tty.waitFor(/typescript-language-server: running, pid \d+, 1 open file/)).replace(/\s+/g, " ");
    expect(screen).toContain("jdtls: not installed (install Eclipse JDT LS (jdtls) and put it on PATH)");
  });

  test("omp doctor lists the servers, installed or not", async () => {
    const { home, repo } = workspace(TS_PROJECT);
    const result = await runOmp(["doctor", "--json"], { home, cwd: repo, env: { PATH: env.PATH } });
    const report = JSON.parse(result.stdout);
    const ts = report.lsp.servers.find((server: { name: string }) => server.name === "typescript-language-server");
    expect(ts.command).toBe(join(BIN, "typescript-language-server"));
    expect(report.lsp.servers.find((server: { name: string }) => server.name === "gopls")).toEqual(expect.objectContaining({ install: "go install golang.org/x/tools/gopls@latest" }));
    expect(report.lsp.servers.find((server: { name: string }) => server.name === "gopls").command).toBeUndefined();
  });
});
