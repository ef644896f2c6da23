// Subscription logins through the compiled binary against a stand-in authorization server: the
// browser redirect to the registered loopback port, the paste-the-code fallback, GitHub's device
// code, several accounts, the agent calling the provider stand-in with the OAuth credential, and
// refresh: single-flight across processes, rotation, invalid_grant, kill -9 in the middle.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { agentTestFile, filesContaining, runAgent, workspace } from "../support/agent-harness.ts";
import { OMP, cleanEnv, runOmp, tempDir } from "../support/omp.ts";
import { startOAuthStandin } from "../support/oauth-standin.ts";
import { loginExpiring, loginViaBrowser as loginWith, startLogin as startLoginWith } from "../support/oauth-login.ts";

const standin = await agentTestFile();
const oauth = await startOAuthStandin();
afterAll(() => oauth.close());

const startLogin = (home: string, provider: string, env: Record<string, string> = {}) => startLoginWith(oauth, home, provider, env);
const loginViaBrowser = (home: string, provider: string, env: Record<string, string> = {}) => loginWith(oauth, home, provider, env);

function vaultRows(home: string) {
  const db = new Database(join(home, ".omp", "agent", "agent.db"), { readonly: true });
  const rows = db.query<{ id: number; provider: string; credential_type: string; data: string; disabled_cause: string | null; identity_key: string | null }, []>("SELECT * FROM auth_credentials ORDER BY id").all();
  db.close();
  return rows;
}

const modelRequests = () => standin.requests.filter((request) => request.method === "POST");

describe("omp auth login", () => {
  test("anthropic: the browser comes back to port 54545, PKCE is checked, the agent then calls Anthropic with the bearer token", async () => {
    const { home, repo } = workspace();
    const login = await loginViaBrowser(home, "anthropic");
    expect(login).toMatchObject({ code: 0, stdout: `logged in to Anthropic (Claude Pro/Max) as user@example.com; stored in ~/.omp/agent/agent.db\n` });
    expect(login.stderr).toContain("http://127.0.0.1:");
    expect(login.stderr).toContain("redirect_uri=http%3A%2F%2Flocalhost%3A54545%2Fcallback");
    const exchange = oauth.tokenRequests.at(-1)!;
    expect(exchange).toMatchObject({ grant: "authorization_code", style: "anthropic" });
    expect(exchange.contentType).toContain("application/json");
    const access = oauth.issued.at(-1)!.access;

    const before = modelRequests().length;
    standin.setScript([{ text: "hi from claude" }]);
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env: { ...oauth.env(), ANTHROPIC_BASE_URL: standin.url } });
    expect(run.stdout).toBe("hi from claude\n");
    const request = modelRequests()[before]!;
    expect(request.headers.authorization).toBe(`Bearer ${access}`);
    expect(request.headers["x-api-key"]).toBeUndefined();
    expect(request.headers["anthropic-beta"]).toContain("oauth-2025-04-20");
    expect(request.body.system[0].text).toBe("You are Claude Code, Anthropic's official CLI for Claude.");
    expect(filesContaining([join(home, ".omp", "agent", "sessions")], access)).toEqual([]);
  });

  test("openai-codex: port 1455, form bodies, the account id from the token; the agent calls the Codex backend with it", async () => {
    const { home, repo } = workspace();
    oauth.email = "codex@example.com";
    const login = await loginViaBrowser(home, "openai-codex");
    expect(login.code).toBe(0);
    expect(login.stderr).toContain("redirect_uri=http%3A%2F%2Flocalhost%3A1455%2Fauth%2Fcallback");
    expect(oauth.tokenRequests.at(-1)!.contentType).toContain("application/x-www-form-urlencoded");
    const access = oauth.issued.at(-1)!.access;
    const before = modelRequests().length;
    standin.setScript([{ text: "hi from codex" }]);
    const run = await runAgent(["-p", "--model", "openai-codex/gpt-5.1-codex", "hello"], { home, cwd: repo, env: { ...oauth.env(), OPENAI_CODEX_BASE_URL: `${standin.url}/backend-api/codex` } });
    expect(run.stdout).toBe("hi from codex\n");
    const request = modelRequests()[before]!;
    expect(request.path).toBe("/backend-api/codex/responses");
    expect(request.refused).toBeUndefined();
    expect(request.headers.authorization).toBe(`Bearer ${access}`);
    expect(request.headers["chatgpt-account-id"]).toBe("acct_codex@example.com");
    oauth.email = "user@example.com";
  });

  test("the paste fallback: with the callback port taken, the redirect URL pasted on stdin finishes the login", async () => {
    const home = tempDir("omp-oauth-");
    const blocker = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("someone else") });
    try {
      const run = startLogin(home, "google-gemini-cli", { OMP_OAUTH_GOOGLE_GEMINI_CLI_CALLBACK_PORT: String(blocker.port) });
      const authorize = await fetch(await run.url, { redirect: "manual" });
      const redirect = authorize.headers.get("location")!;
      expect(redirect).toStartWith(`http://localhost:${blocker.port}/oauth2callback?code=`);
      run.child.stdin.write(`${redirect}\n`);
      run.child.stdin.end();
      const done = await run.done;
      expect(done.code).toBe(0);
      expect(done.stderr).toContain(`port ${blocker.port} is not free`);
    } finally {
      blocker.stop(true);
    }
    const exchange = oauth.tokenRequests.at(-1)!;
    expect(exchange.fields).toMatchObject({ grant_type: "authorization_code", client_secret: "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" });
    expect(vaultRows(home)).toMatchObject([{ provider: "google-gemini-cli", credential_type: "oauth", disabled_cause: null }]);
  });

  test("a pasted code from another login attempt (wrong state) is refused", async () => {
    const home = tempDir("omp-oauth-");
    const run = startLogin(home, "anthropic", { OMP_OAUTH_ANTHROPIC_CALLBACK_PORT: "1" });
    await run.url;
    run.child.stdin.write("somecode#not-the-state\n");
    run.child.stdin.end();
    const done = await run.done;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("state mismatch");
  });

  test("github-copilot: the device code is shown, polled until approved, and the Copilot token is used for chat", async () => {
    const { home, repo } = workspace();
    const run = startLogin(home, "github-copilot");
    run.child.stdin.end();
    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain("code: WDJB-MJHT");
    const polls = oauth.tokenRequests.filter((request) => request.grant === "urn:ietf:params:oauth:grant-type:device_code");
    expect(polls.length).toBeGreaterThanOrEqual(2);
    const [row] = vaultRows(home);
    const stored = JSON.parse(row!.data);
    expect(stored.refresh).toStartWith("gho_");
    expect(stored.access).toStartWith("tid=");
    const before = modelRequests().length;
    standin.setScript([{ text: "hi from copilot" }]);
    const agent = await runAgent(["-p", "--model", "github-copilot/gpt-4.1", "hello"], { home, cwd: repo, env: { ...oauth.env(), GITHUB_COPILOT_BASE_URL: standin.url } });
    expect(agent.stdout).toBe("hi from copilot\n");
    const request = modelRequests()[before]!;
    expect(request.headers.authorization).toBe(`Bearer ${stored.access}`);
    expect(request.headers["copilot-integration-id"]).toBe("vscode-chat");
  });

  test("several accounts per provider; logout erases them all", async () => {
    const home = tempDir("omp-oauth-");
    oauth.email = "first@example.com";
    expect((await loginViaBrowser(home, "anthropic")).code).toBe(0);
    oauth.email = "second@example.com";
    expect((await loginViaBrowser(home, "anthropic")).code).toBe(0);
    // The same account again updates its row instead of adding one.
    expect((await loginViaBrowser(home, "anthropic")).code).toBe(0);
    oauth.email = "user@example.com";
    const listed = JSON.parse((await runOmp(["auth", "list", "--json"], { home })).stdout);
    expect(listed.map((entry: { masked: string }) => entry.masked)).toEqual(["second@example.com", "first@example.com"]);
    const tokens = oauth.issued.slice(-3).map((token) => token.access);
    const logout = await runOmp(["auth", "logout", "anthropic"], { home });
    expect(logout).toMatchObject({ code: 0, stdout: "logged out of 2 accounts (anthropic)\n" });
    const bytes = await Bun.file(join(home, ".omp", "agent", "agent.db")).text();
    for (const token of tokens) expect(bytes).not.toContain(token);
  });
});

describe("refresh", () => {
  test("an expiring token is refreshed once for six agents starting together, and the rotated refresh token is stored", async () => {
    const { home, repo } = workspace();
    oauth.expiresIn = 60; // inside the 5-minute skew: every use wants a refresh
    try {
      expect((await loginViaBrowser(home, "anthropic")).code).toBe(0);
      const first = oauth.issued.at(-1)!;
      const refreshesBefore = oauth.tokenRequests.filter((request) => request.grant === "refresh_token").length;
      oauth.refreshDelayMs = 400;
      oauth.expiresIn = 3600;
      standin.setScript(Array.from({ length: 6 }, () => ({ text: "ok" })));
      const runs = await Promise.all(
        Array.from({ length: 6 }, () => runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env: { ...oauth.env(), ANTHROPIC_BASE_URL: standin.url } })),
      );
      for (const run of runs) expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      const refreshes = oauth.tokenRequests.filter((request) => request.grant === "refresh_token").slice(refreshesBefore);
      expect(refreshes).toHaveLength(1);
      expect(refreshes[0]!.fields.refresh_token).toBe(first.refresh);
      const stored = JSON.parse(vaultRows(home)[0]!.data);
      expect(stored.refresh).toBe(oauth.issued.at(-1)!.refresh);
      expect(stored.refresh).not.toBe(first.refresh);
    } finally {
      oauth.refreshDelayMs = 0;
      oauth.expiresIn = 3600;
    }
  });

  test("invalid_grant disables the login with the reason and says to log in again", async () => {
    const { home, repo } = workspace();
    await loginExpiring(oauth, home, "anthropic");
    oauth.revoke(oauth.issued.at(-1)!.refresh);
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env: { ...oauth.env(), ANTHROPIC_BASE_URL: standin.url } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("omp auth login anthropic");
    const [row] = vaultRows(home);
    expect(row!.disabled_cause).toContain("invalid_grant");
    expect(row!.data).toBe("{}");
  });

  test("kill -9 in the middle of a refresh loses nothing: the next run takes over the lease and finishes it", async () => {
    const { home, repo } = workspace();
    oauth.expiresIn = 60;
    expect((await loginViaBrowser(home, "openai-codex")).code).toBe(0);
    const original = oauth.issued.at(-1)!;
    oauth.hangRefreshes = true;
    const env = { ...oauth.env(), OPENAI_CODEX_BASE_URL: `${standin.url}/backend-api/codex`, OMP_AUTH_REFRESH_LEASE_MS: "1500" };
    const hung = Bun.spawn([OMP, "-p", "--model", "openai-codex/gpt-5.1-codex", "hello"], { cwd: repo, env: cleanEnv(home, env), stdout: "pipe", stderr: "pipe" });
    const refreshesBefore = oauth.tokenRequests.filter((request) => request.grant === "refresh_token").length;
    for (let i = 0; i < 200 && oauth.tokenRequests.filter((request) => request.grant === "refresh_token").length === refreshesBefore; i++) await Bun.sleep(25);
    expect(oauth.tokenRequests.filter((request) => request.grant === "refresh_token").length).toBe(refreshesBefore + 1);
    hung.kill(9);
    await hung.exited;
    oauth.hangRefreshes = false;
    oauth.expiresIn = 3600;
    const [row] = vaultRows(home);
    expect(row!.disabled_cause).toBeNull();
    expect(JSON.parse(row!.data).refresh).toBe(original.refresh);
    standin.setScript([{ text: "after the crash" }]);
    const run = await runAgent(["-p", "--model", "openai-codex/gpt-5.1-codex", "hello"], { home, cwd: repo, env });
    expect(run.stdout).toBe("after the crash\n");
    expect(oauth.tokenRequests.filter((request) => request.grant === "refresh_token").length).toBe(refreshesBefore + 2);
    expect(JSON.parse(vaultRows(home)[0]!.data).refresh).toBe(oauth.issued.at(-1)!.refresh);
  });
});
