// Servers a project configures run in the commands' sandbox: a real MCP server (server-everything)
// and a real language server (typescript-language-server) from the project's config still answer,
// while a project-configured server cannot read ~/.ssh, which the same server in the user's own
// config can.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { edgeServer, everythingServer, fromServer, trustFolder, writeUserMcp } from "../support/mcp/fixtures.ts";
import { ROOT } from "../support/omp.ts";
import { tempDir } from "../support/temp.ts";

setDefaultTimeout(180_000);
const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const BIN = join(ROOT, "node_modules", ".bin");
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test", PATH: `${BIN}:${process.env.PATH}` };
const SECRET = "ssh-private-key-7f3a9c";

/** A trusted project with the given files, and a HOME holding an ssh key. */
function trustedProject(files: Record<string, string>): { home: string; repo: string; key: string } {
  const { home, repo } = workspace({ "README.md": "# demo\n", ...files });
  mkdirSync(join(home, ".ssh"), { recursive: true });
  const key = join(home, ".ssh", "id_ed25519");
  writeFileSync(key, SECRET, { mode: 0o600 });
  trustFolder(home, repo);
  return { home, repo, key };
}

/** One tool call in print mode; the result text the model got back. */
async function callTool(home: string, repo: string, name: string, args: Record<string, unknown>): Promise<string> {
  standin.setScript([{ toolCalls: [{ name, arguments: args }] }, { text: "done" }]);
  standin.requests.length = 0;
  // The test HOME lies in /tmp, which makes /tmp itself read-only in the sandbox (only its other
  // entries stay writable); a user's HOME is not under their temp dir, so servers get one of their own here.
  const result = await runAgent(["-p", "--model", MODEL, "go"], { home, cwd: repo, env: { ...env, TMPDIR: tempDir("omp-server-tmp-") } });
  expect(result.code).toBe(0);
  return toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body).at(-1)!.text;
}

describe("MCP servers from the project's config run sandboxed", () => {
  test("server-everything from .mcp.json answers inside the sandbox", async () => {
    const { home, repo } = trustedProject({ ".mcp.json": JSON.stringify({ mcpServers: { everything: everythingServer() } }) });
    const echoed = await callTool(home, repo, "mcp__everything__echo", { message: "from the sandbox" });
    expect(echoed).toBe(fromServer("everything", "Echo: from the sandbox"));
  });

  test("a project server cannot read ~/.ssh; the same server in the user's own config can", async () => {
    const { home, repo, key } = trustedProject({ ".mcp.json": JSON.stringify({ mcpServers: { probe: edgeServer("probe") } }) });
    const confined = await callTool(home, repo, "mcp__probe__cat", { path: key });
    expect(confined).not.toContain(SECRET);
    expect(confined).toMatch(/refused: (EACCES|EPERM|ENOENT)/);
    // omp's own credentials are not in its environment either.
    const env = await callTool(home, repo, "mcp__probe__env", { name: "ANTHROPIC_API_KEY" });
    expect(env).toContain("ANTHROPIC_API_KEY=(unset)");
    writeFileSync(join(repo, ".mcp.json"), "{}");
    writeUserMcp(home, { probe: edgeServer("probe") });
    const own = await callTool(home, repo, "mcp__probe__cat", { path: key });
    expect(own).toContain(`read: ${SECRET}`);
  });
});

describe("language servers from the project's config run sandboxed", () => {
  const TS_PROJECT: Record<string, string> = {
    "package.json": '{ "name": "demo", "private": true }\n',
    "tsconfig.json": '{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }\n',
    "src/price.ts": "export const price: number = 1;\n",
  };

  test("typescript-language-server configured in .lsp.json reports a type error from inside the sandbox", async () => {
    const server = { command: join(BIN, "typescript-language-server"), args: ["--stdio"], fileTypes: [".ts"], rootMarkers: ["tsconfig.json"] };
    const { home, repo } = trustedProject({ ...TS_PROJECT, ".lsp.json": JSON.stringify({ "typescript-language-server": server }) });
    const written = await callTool(home, repo, "write", { path: "src/bad.ts", content: "export const n: number = 'one';\n" });
    expect(written).toMatch(/src\/bad\.ts:1:14 error TS2322/);
  });

  test("pyright configured in .lsp.json reports a Python type error from inside the sandbox", async () => {
    const server = { command: join(BIN, "pyright-langserver"), args: ["--stdio"], fileTypes: [".py"], rootMarkers: ["pyproject.toml"] };
    const { home, repo } = trustedProject({ "pyproject.toml": "[project]\nname = 'demo'\n", ".lsp.json": JSON.stringify({ pyright: server }) });
    const written = await callTool(home, repo, "write", { path: "app.py", content: 'def f(x: int) -> int:\n    return x\n\nf("no")\n' });
    expect(written).toContain("Diagnostics (pyright)");
    expect(written).toMatch(/app\.py:4:3 error/);
  });

  test("a language server script from .lsp.json cannot read ~/.ssh", async () => {
    const out = join(tempDir("omp-lsp-probe-"), "seen");
    const probe = `#!/bin/sh\ncat "$HOME/.ssh/id_ed25519" > ${out} 2>&1 || echo "cat failed: $?" >> ${out}\nexec sleep 30\n`;
    const { home, repo } = trustedProject({ "src/a.probe": "x\n" });
    writeFileSync(join(repo, "probe.sh"), probe, { mode: 0o755 });
    writeFileSync(join(repo, ".lsp.json"), JSON.stringify({ probe: { command: join(repo, "probe.sh"), fileTypes: [".probe"], rootMarkers: [], warmupTimeoutMs: 3000 } }));
    await callTool(home, repo, "lsp", { op: "symbols", path: "src/a.probe" });
    const seen = readFileSync(out, "utf8");
    expect(seen).toContain("cat failed");
    expect(seen).not.toContain(SECRET);
  });
});
