// OAuth for a remote MCP server against the SDK's own example server (its --oauth mode: discovery,
// dynamic client registration, PKCE; the authorize step approves at once), run on loopback. The
// "browser" is this test following the URL omp prints. Refresh against our own server on the SDK's
// auth pieces (test/support/mcp/oauth-server.ts): the example server does not refresh.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Subprocess } from "bun";
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { freePort, fromServer, writeUserMcp } from "../support/mcp/fixtures.ts";
import { approveElsewhere, loginWithBrowser, readUntil, startLogin, startOAuthServer } from "../support/mcp/oauth.ts";
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
  const { seen } = await readUntil(server.stdout as ReadableStream<Uint8Array>, (text) => text.includes(`listening on port ${port}`));
  if (!seen.includes("listening")) throw new Error(`the example server did not start: ${seen}`);
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
    expect(before.stderr).toContain('omp: MCP server "secure" needs you to log in: run omp mcp login secure (in omp: /mcp auth secure)');

    const list = await runAgent(["mcp", "list"], { home, cwd: repo, env });
    expect(list.stdout).toContain(`secure: http://localhost:${port}/mcp (HTTP) - ✗ needs auth: run omp mcp login secure`);

    const login = await loginWithBrowser("secure", { home, cwd: repo, env });
    expect(login.authorizeUrl).toContain("code_challenge=");
    expect(login.authorizeUrl).toContain("code_challenge_method=S256");
    // The browser: the example server approves at once and redirects to omp's loopback callback.
    expect(login.page).toContain("omp: logged in");
    expect(login.stderr).not.toContain("omp:");
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/^Logged in to secure: \d+ tools\.\n$/);
    expect(statSync(join(home, ".omp", "agent", "agent.db")).mode & 0o777).toBe(0o600);

    standin.setScript([{ toolCalls: [{ id: "c1", name: "mcp__secure__greet", arguments: { name: "omp" } }] }, { text: "done" }]);
    standin.requests.length = 0;
    const after = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "go"], { home, cwd: repo, env });
    expect(after.stderr).not.toContain("omp:");
    expect(after.code).toBe(0);
    expect(toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body)[0]!.text).toContain("Hello, omp!");
  });

  test("an expired access token is refreshed once for parallel calls; the rotated refresh token is what agent.db keeps (0600), and a later run refreshes with it", async () => {
    const { auth, home, repo, env } = await secureWorkspace();
    const login = await loginWithBrowser("secure", { home, cwd: repo, env });
    expect(login.code).toBe(0);
    const loggedIn = await auth.stats();
    expect(loggedIn.refreshes).toBe(0);
    expect(storedTokens(home).refresh_token).toBe(loggedIn.refreshToken!);

    // The first call ends the access token once answered; the greets then meet a 401 together,
    // but for "late", whose 401 comes once the others' refresh is done.
    standin.setScript([
      { toolCalls: [{ id: "e1", name: "mcp__secure__expire_tokens", arguments: {} }] },
      { toolCalls: [{ id: "g1", name: "mcp__secure__greet", arguments: { name: "ann" } }, { id: "g2", name: "mcp__secure__greet", arguments: { name: "bob" } }, { id: "g3", name: "mcp__secure__greet", arguments: { name: "late" } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "go"], { home, cwd: repo, env });
    expect(run.stderr).not.toContain("omp:");
    expect(run.code).toBe(0);
    const results = toolResultsOf("anthropic-messages", modelRequests(standin)[2]!.body).slice(1).map((r) => r.text);
    expect(results).toEqual(["Hello, ann!", "Hello, bob!", "Hello, late!"].map((text) => fromServer("secure", text)));
    const refreshed = await auth.stats();
    expect(refreshed.refreshes).toBe(1);
    expect(refreshed.refreshToken).not.toBe(loggedIn.refreshToken);
    expect(storedTokens(home).refresh_token).toBe(refreshed.refreshToken!);
    expect(statSync(join(home, ".omp", "agent", "agent.db")).mode & 0o777).toBe(0o600);

    // A new process refreshes with the rotated refresh token it reads from agent.db.
    standin.setScript([
      { toolCalls: [{ id: "e2", name: "mcp__secure__expire_tokens", arguments: {} }] },
      { toolCalls: [{ id: "g4", name: "mcp__secure__greet", arguments: { name: "cy" } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const again = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "go"], { home, cwd: repo, env });
    expect(again.stderr).not.toContain("omp:");
    expect(toolResultsOf("anthropic-messages", modelRequests(standin)[2]!.body).at(-1)!.text).toBe(fromServer("secure", "Hello, cy!"));
    expect((await auth.stats()).refreshes).toBe(2);
  });

  test("a revoked refresh token: the call fails with one line saying to log in again, the run goes on", async () => {
    const { auth, home, repo, env } = await secureWorkspace();
    expect((await loginWithBrowser("secure", { home, cwd: repo, env })).code).toBe(0);

    standin.setScript([
      { toolCalls: [{ id: "r1", name: "mcp__secure__revoke_tokens", arguments: {} }] },
      { toolCalls: [{ id: "g1", name: "mcp__secure__greet", arguments: { name: "ann" } }] },
      { toolCalls: [{ id: "g2", name: "mcp__secure__greet", arguments: { name: "bob" } }] },
      { text: "the server wants a login" },
    ]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "go"], { home, cwd: repo, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("the server wants a login");
    const line = 'omp: MCP server "secure" needs you to log in: run omp mcp login secure (in omp: /mcp auth secure)';
    expect(run.stderr.split("\n").filter((l) => l.includes("omp:"))).toEqual([line]);
    const requests = modelRequests(standin);
    for (const index of [2, 3]) {
      const result = toolResultsOf("anthropic-messages", requests[index]!.body).at(-1)!;
      expect(result.isError).toBe(true);
      expect(result.text).toContain("needs you to log in: run omp mcp login secure");
    }
    // One refused refresh; the second call did not try the dead token again.
    expect((await auth.stats()).refreshes).toBe(1);
  });

  test("the browser on another machine: the URL it ends on, pasted into omp mcp login, logs in", async () => {
    const { auth, home, repo, env } = await secureWorkspace();
    const { login, authorizeUrl, stderr } = await startLogin("secure", { home, cwd: repo, env }, true);
    const landed = await approveElsewhere(authorizeUrl);
    expect(landed).toStartWith("http://127.0.0.1:");
    login.stdin.write(`${landed}\n`);
    login.stdin.end();
    expect(await login.exited).toBe(0);
    expect(await stderr).not.toContain("omp:");
    expect(await new Response(login.stdout).text()).toBe("Logged in to secure: 3 tools.\n");
    expect(storedTokens(home).refresh_token).toBe((await auth.stats()).refreshToken!);
  });
});

/** Our refreshing OAuth server, configured as server "secure" in a fresh workspace. */
async function secureWorkspace() {
  const auth = await startOAuthServer();
  afterAll(() => auth.stop());
  const { home, repo } = workspace();
  writeUserMcp(home, { secure: { type: "http", url: auth.url } });
  const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest-mcp-key", OMP_NO_BROWSER: "1" };
  return { auth, home, repo, env };
}

/** The OAuth state omp keeps for server "secure", read straight from agent.db. */
function storedTokens(home: string): { access_token: string; refresh_token?: string } {
  const db = new Database(join(home, ".omp", "agent", "agent.db"), { readonly: true });
  try {
    const row = db.query<{ data: string }, []>("SELECT data FROM auth_credentials WHERE provider = 'mcp:secure' AND credential_type = 'mcp_oauth'").get();
    return JSON.parse(row!.data).tokens;
  } finally {
    db.close();
  }
}
