// OAuth for a remote MCP server against the SDK's own example server (its --oauth mode: discovery,
// dynamic client registration, PKCE; the authorize step approves at once), run on loopback. The
// "browser" is this test following the URL omp prints.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Subprocess } from "bun";
import { statSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, spawnOmp, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { freePort, writeUserMcp } from "../support/mcp/fixtures.ts";
import { ROOT } from "../support/omp.ts";

setDefaultTimeout(90_000);
const standin = await agentTestFile();
const EXAMPLE = join(ROOT, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js");

let server: Subprocess | undefined;
afterAll(() => server?.kill());

async function startExample(): Promise<number> {
  const port = freePort();
  server = Bun.spawn(["node", EXAMPLE, "--oauth"], { env: { ...process.env, MCP_PORT: String(port), MCP_AUTH_PORT: String(freePort()) }, stdout: "pipe", stderr: "ignore" });
  // Read to the end: the server logs every request, and a closed pipe would kill it.
  const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes(`listening on port ${port}`)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the example server did not start: ${seen}`);
    seen += decoder.decode(value);
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  return port;
}

describe("MCP OAuth", () => {
  test("before login a run says to log in; omp mcp login prints the URL, takes the code on loopback, keeps the tokens in agent.db; then tools work", async () => {
    const port = await startExample();
    const { home, repo } = workspace();
    writeUserMcp(home, { secure: { type: "http", url: `http://localhost:${port}/mcp` } });
    const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest-mcp-key", OMP_NO_BROWSER: "1" };

    standin.setScript([{ text: "ok" }]);
    const before = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "go"], { home, cwd: repo, env });
    expect(before.code).toBe(0);
    expect(before.stderr).toContain('omp: MCP server "secure" failed: needs you to log in: run omp mcp login secure');

    const login = spawnOmp(["mcp", "login", "secure"], { home, cwd: repo, env });
    login.stdin.end();
    const decoder = new TextDecoder();
    let printed = "";
    let authorizeUrl: string | undefined;
    const reader = login.stderr.getReader();
    while (!authorizeUrl) {
      const { value, done } = await reader.read();
      if (done) break;
      printed += decoder.decode(value);
      authorizeUrl = /open this URL in a browser:\n(\S+)/.exec(printed)?.[1];
    }
    const rest = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return printed;
        printed += decoder.decode(value);
      }
    })();
    expect(authorizeUrl).toContain("code_challenge=");
    expect(authorizeUrl).toContain("code_challenge_method=S256");
    // The browser: the example server approves at once and redirects to omp's loopback callback.
    const page = await fetch(authorizeUrl!);
    expect(await page.text()).toContain("omp: logged in");
    const code = await login.exited;
    expect(await rest).not.toContain("omp:");
    expect(code).toBe(0);
    expect(await new Response(login.stdout).text()).toMatch(/^Logged in to secure: \d+ tools\.\n$/);
    expect(statSync(join(home, ".omp", "agent", "agent.db")).mode & 0o777).toBe(0o600);

    standin.setScript([{ toolCalls: [{ id: "c1", name: "mcp__secure__greet", arguments: { name: "omp" } }] }, { text: "done" }]);
    standin.requests.length = 0;
    const after = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "go"], { home, cwd: repo, env });
    expect(after.stderr).not.toContain("omp:");
    expect(after.code).toBe(0);
    expect(toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body)[0]!.text).toContain("Hello, omp!");
  });
});
