// Subscription logins used as models, through the compiled binary: each login is made against the
// OAuth stand-in, then `omp -p` calls a stand-in of that subscription's backend which refuses what
// the real one refuses (ChatGPT's Codex backend, Gemini CLI's Code Assist, the Copilot API,
// Anthropic with a Claude Pro/Max token). Also through an auth broker and the auth gateway.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { agentTestFile, runAgent, workspace } from "../support/agent-harness.ts";
import { startBroker } from "../support/broker.ts";
import { type GatewayProcess, startGatewayProcess } from "../support/gateway.ts";
import { startOAuthStandin } from "../support/oauth-standin.ts";
import { loginViaBrowser, startLogin } from "../support/oauth-login.ts";
import { tempDir } from "../support/omp.ts";
import { startStandin } from "../support/standin/index.ts";

const standin = await agentTestFile();
const oauth = await startOAuthStandin();
const gateways: GatewayProcess[] = [];
afterAll(async () => {
  for (const gateway of gateways) if (gateway.proc.exitCode === null) await gateway.stop();
  await oauth.close();
});

const CODEX_BASE = `${standin.url}/backend-api/codex`;
const backends = { ANTHROPIC_BASE_URL: standin.url, OPENAI_CODEX_BASE_URL: CODEX_BASE, GOOGLE_GEMINI_CLI_BASE_URL: standin.url };
const env = (extra: Record<string, string> = {}) => ({ ...oauth.env(), ...backends, ...extra });
/** Model requests: every POST but Code Assist's account calls. */
const posts = () => standin.requests.filter((request) => request.method === "POST" && request.path !== "/v1internal:loadCodeAssist" && request.path !== "/v1internal:onboardUser");
const since = (before: number) => posts().slice(before);

function vaultData(home: string): any[] {
  const db = new Database(join(home, ".omp", "agent", "agent.db"), { readonly: true });
  const rows = db.query<{ data: string }, []>("SELECT data FROM auth_credentials WHERE disabled_cause IS NULL ORDER BY id").all();
  db.close();
  return rows.map((row) => JSON.parse(row.data));
}

describe("OpenAI Codex (ChatGPT backend)", () => {
  test("a ChatGPT login drives a tool-using turn: headers from the token, no caps, and the reasoning carried back encrypted without ids", async () => {
    const { home, repo } = workspace();
    oauth.email = "codex-sub@example.com";
    expect((await loginViaBrowser(oauth, home, "openai-codex")).code).toBe(0);
    oauth.email = "user@example.com";
    const access = oauth.issued.at(-1)!.access;
    const before = posts().length;
    standin.setScript([{ thinking: "Look at the readme first.", toolCalls: [{ name: "read", arguments: { path: "README.md" } }] }, { text: "It is a demo." }]);
    const run = await runAgent(["-p", "--model", "openai-codex/gpt-5.1-codex", "--thinking", "off", "what is this repo?"], { home, cwd: repo, env: env() });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "→ read README.md\n" });
    expect(run.stdout).toBe("It is a demo.\n");

    const [first, second] = since(before);
    for (const request of [first!, second!]) {
      expect(request.refused).toBeUndefined();
      expect(request.path).toBe("/backend-api/codex/responses");
      expect(request.headers.authorization).toBe(`Bearer ${access}`);
      expect(request.headers["chatgpt-account-id"]).toBe("acct_codex-sub@example.com");
      expect(request.headers["openai-beta"]).toBe("responses=experimental");
      expect(request.headers.originator).toBe("codex_cli_rs");
      expect(request.headers.session_id).toBeString();
      expect(request.body).toMatchObject({ model: "gpt-5.1-codex", store: false, stream: true, include: ["reasoning.encrypted_content"] });
      expect(request.body.instructions).toContain("You are omp");
      expect(request.body.max_output_tokens).toBeUndefined();
      expect(request.body.temperature).toBeUndefined();
    }
    // Codex models cannot stop reasoning and refuse "minimal": "off" asks for the least they take.
    expect(first!.body.reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(first!.headers.session_id).toBe(second!.headers.session_id!);
    const reasoning = second!.body.input.find((item: any) => item.type === "reasoning");
    expect(reasoning).toEqual({ type: "reasoning", summary: [{ type: "summary_text", text: "Look at the readme first." }], encrypted_content: expect.stringMatching(/^enc_standin_/) });
    const call = second!.body.input.find((item: any) => item.type === "function_call");
    expect(call).toMatchObject({ name: "read", call_id: expect.any(String) });
    expect(call.id).toBeUndefined();
  });

  test("the stand-in refuses what the backend refuses: the public Responses shape (max_output_tokens) at the Codex endpoint fails", async () => {
    const { home, repo } = workspace();
    expect((await loginViaBrowser(oauth, home, "openai-codex")).code).toBe(0);
    // A models.yml model speaking the public Responses API to the Codex backend, with every header right.
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(
      join(home, ".omp", "agent", "models.yml"),
      [
        "providers:",
        "  openai-codex:",
        `    baseUrl: ${CODEX_BASE}`,
        "    auth: none",
        "    headers: { chatgpt-account-id: acct_user@example.com, OpenAI-Beta: responses=experimental, originator: codex_cli_rs }",
        "    models:",
        "      - { id: plain-responses, api: openai-responses, reasoning: true }",
        "",
      ].join("\n"),
    );
    const before = posts().length;
    standin.setScript([{ text: "never" }]);
    const run = await runAgent(["-p", "--model", "openai-codex/plain-responses", "hello"], { home, cwd: repo, env: env() });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("Unsupported parameter: max_output_tokens");
    expect(since(before)[0]!.refused).toBe(true);
  });
  test("omp models asks the Codex backend which models the plan offers; a new one is usable", async () => {
    const codex = await startStandin({ models: [{ id: "gpt-5.1-codex" }, { id: "gpt-5.9-codex", contextWindow: 400_000 }] });
    try {
      const { home, repo } = workspace();
      expect((await loginViaBrowser(oauth, home, "openai-codex")).code).toBe(0);
      const codexEnv = env({ OPENAI_CODEX_BASE_URL: `${codex.url}/backend-api/codex` });
      const listed = await runAgent(["models"], { home, cwd: repo, env: codexEnv });
      expect(listed.code).toBe(0);
      const line = (id: string) => listed.stdout.split("\n").find((l) => l.trim().startsWith(`${id} `)) ?? "";
      expect(line("openai-codex/gpt-5.9-codex")).toContain("new");
      expect(line("openai-codex/gpt-5.1-codex-mini")).toContain("retired");
      expect(listed.stdout).not.toContain("codex-auto-review");
      const [get] = codex.requests.filter((request) => request.method === "GET");
      expect(get).toMatchObject({ path: "/backend-api/codex/models", query: { client_version: expect.any(String) } });
      expect(get!.headers["chatgpt-account-id"]).toBe("acct_user@example.com");

      codex.setScript([{ text: "the newest codex" }]);
      const run = await runAgent(["-p", "--model", "openai-codex/gpt-5.9-codex", "hi"], { home, cwd: repo, env: codexEnv });
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "the newest codex\n" });
      const post = codex.requests.find((request) => request.method === "POST")!;
      expect(post.refused).toBeUndefined();
      expect(post.body.model).toBe("gpt-5.9-codex");
    } finally {
      await codex.close();
    }
  });
  test("a ChatGPT access token from OPENAI_CODEX_OAUTH_TOKEN works without a login", async () => {
    const { home, repo } = workspace();
    const claims = Buffer.from(JSON.stringify({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_from_env" } })).toString("base64url");
    const token = `e30.${claims}.sig`;
    const before = posts().length;
    standin.setScript([{ text: "env token" }]);
    const run = await runAgent(["-p", "--model", "openai-codex/gpt-5.1-codex", "hello"], { home, cwd: repo, env: { ...backends, OPENAI_CODEX_OAUTH_TOKEN: token } });
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: "env token\n", stderr: "" });
    const [request] = since(before);
    expect(request!.refused).toBeUndefined();
    expect(request!.headers["chatgpt-account-id"]).toBe("acct_from_env");
  });

  test("two ChatGPT accounts: the backend's usage_limit_reached moves the request to the other account", async () => {
    const { home, repo } = workspace();
    for (const email of ["plus-a@example.com", "plus-b@example.com"]) {
      oauth.email = email;
      expect((await loginViaBrowser(oauth, home, "openai-codex")).code).toBe(0);
    }
    oauth.email = "user@example.com";
    const resetsAt = Math.floor(Date.now() / 1000) + 5 * 3600;
    // What chatgpt.com answers when a plan's Codex window is used up.
    const limit = { status: 429, errorBody: { error: { type: "usage_limit_reached", message: "The usage limit has been reached", plan_type: "plus", resets_at: resetsAt, resets_in_seconds: 5 * 3600 } } };
    const before = posts().length;
    standin.setScript([limit, { text: "answered on the other plan" }]);
    const run = await runAgent(["-p", "--model", "openai-codex/gpt-5.1-codex", "hello"], { home, cwd: repo, env: env() });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "answered on the other plan\n" });
    expect(since(before).map((request) => [request.headers["chatgpt-account-id"], request.refused])).toEqual([
      ["acct_plus-b@example.com", undefined],
      ["acct_plus-a@example.com", undefined],
    ]);
  });
});

describe("Google Gemini CLI (Code Assist)", () => {
  test("the login finds the project through loadCodeAssist and a polled onboardUser, stores it, and requests go in the v1internal envelope", async () => {
    const { home, repo } = workspace();
    standin.codeAssist.onboarded = false;
    const login = await loginViaBrowser(oauth, home, "google-gemini-cli", backends);
    expect(login).toMatchObject({ code: 0, stdout: "logged in to Google Gemini CLI (Code Assist) as user@example.com; stored in ~/.omp/agent/agent.db\n" });
    expect(login.stderr).toContain("finding the Code Assist project");
    expect(standin.codeAssist.onboards).toMatchObject([{ tierId: "free-tier", metadata: { pluginType: "GEMINI" } }]);
    expect(standin.codeAssist.polls).toBe(1);
    const [stored] = vaultData(home);
    expect(stored.projectId).toBe("standin-managed-project");
    const access = oauth.issued.at(-1)!.access;

    const before = posts().length;
    standin.setScript([{ text: "hi from code assist" }]);
    const run = await runAgent(["-p", "--model", "google-gemini-cli/gemini-2.5-flash", "hello"], { home, cwd: repo, env: env() });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).toBe("hi from code assist\n");
    const [request] = since(before);
    expect(request!.refused).toBeUndefined();
    expect(request!.path).toBe("/v1internal:streamGenerateContent");
    expect(request!.query).toEqual({ alt: "sse" });
    expect(request!.headers.authorization).toBe(`Bearer ${access}`);
    expect(request!.body).toMatchObject({ model: "gemini-2.5-flash", project: "standin-managed-project" });
    expect(request!.body.request.contents.at(-1)).toEqual({ role: "user", parts: [{ text: "hello" }] });
    expect(request!.body.request.systemInstruction.parts[0].text).toContain("You are omp");
    expect(request!.body.request.generationConfig.maxOutputTokens).toBeNumber();
    expect(JSON.stringify(vaultData(home))).not.toContain('"token"');
  });

  test("an already onboarded user gets the project from loadCodeAssist alone; a wrong project is refused", async () => {
    const { home, repo } = workspace();
    standin.codeAssist.onboarded = true;
    const onboards = standin.codeAssist.onboards.length;
    expect((await loginViaBrowser(oauth, home, "google-gemini-cli", backends)).code).toBe(0);
    expect(standin.codeAssist.onboards.length).toBe(onboards);
    expect(vaultData(home)[0].projectId).toBe("standin-managed-project");
    // Code Assist has no model list to ask: `omp models` leaves it out rather than report it empty.
    const models = await runAgent(["models", "--json"], { home, cwd: repo, env: env() });
    expect(JSON.parse(models.stdout).providers.map((p: { provider: string }) => p.provider)).not.toContain("google-gemini-cli");

    standin.codeAssist.project = "another-project";
    try {
      const before = posts().length;
      standin.setScript([{ text: "never" }]);
      const run = await runAgent(["-p", "--model", "google-gemini-cli/gemini-2.5-flash", "hello"], { home, cwd: repo, env: env() });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("403");
      expect(since(before)[0]!.refused).toBe(true);
    } finally {
      standin.codeAssist.project = "standin-managed-project";
    }
  });
  test("two Google accounts in one Code Assist project are two logins, told apart by their email", async () => {
    const home = tempDir("omp-gemini-");
    standin.codeAssist.onboarded = true;
    for (const email of ["first@example.com", "second@example.com"]) {
      oauth.email = email;
      expect((await loginViaBrowser(oauth, home, "google-gemini-cli", backends)).code).toBe(0);
    }
    oauth.email = "user@example.com";
    expect(vaultData(home).map((row) => [row.email, row.projectId])).toEqual([
      ["first@example.com", "standin-managed-project"],
      ["second@example.com", "standin-managed-project"],
    ]);
  });

  test("a login stored without its project (made before omp looked it up, or imported) finds it on first use", async () => {
    const { home, repo } = workspace();
    standin.codeAssist.onboarded = true;
    expect((await loginViaBrowser(oauth, home, "google-gemini-cli", backends)).code).toBe(0);
    const db = new Database(join(home, ".omp", "agent", "agent.db"));
    db.run("UPDATE auth_credentials SET data = json_remove(data, '$.projectId')");
    db.close();
    expect(vaultData(home)[0].projectId).toBeUndefined();
    const before = posts().length;
    standin.setScript([{ text: "found it" }]);
    const run = await runAgent(["-p", "--model", "google-gemini-cli/gemini-2.5-flash", "hello"], { home, cwd: repo, env: env() });
    expect({ code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ code: 0, stderr: "", stdout: "found it\n" });
    expect(since(before)[0]!.body.project).toBe("standin-managed-project");
    expect(vaultData(home)[0].projectId).toBe("standin-managed-project");
  });
  test("Code Assist's exhausted quota is a usage limit with its reset time, not a retry", async () => {
    const { home, repo } = workspace();
    standin.codeAssist.onboarded = true;
    expect((await loginViaBrowser(oauth, home, "google-gemini-cli", backends)).code).toBe(0);
    const exhausted = {
      status: 429,
      errorBody: {
        error: {
          code: 429,
          message: "You have exhausted your capacity on this model. Your quota will reset after 2h0m0s.",
          status: "RESOURCE_EXHAUSTED",
          details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7200s" }],
        },
      },
    };
    const before = posts().length;
    standin.setScript([exhausted, { text: "never reached" }]);
    const started = Date.now();
    const run = await runAgent(["-p", "--model", "google-gemini-cli/gemini-2.5-pro", "hello"], { home, cwd: repo, env: env() });
    expect(run.code).not.toBe(0);
    const resetsAt = Date.parse(/the earliest resets at (\S+)/.exec(run.stderr)?.[1] ?? "");
    expect(run.stderr).toContain("every stored google-gemini-cli credential has reached its usage limit");
    expect(resetsAt - started).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(resetsAt - started).toBeLessThan(2 * 3600_000 + 60_000);
    expect(since(before)).toHaveLength(1);
  });
});

describe("GitHub Copilot", () => {
  test("the Copilot token's endpoints.api is the API base; the token is exchanged again when it expires; VS Code's headers go along", async () => {
    const { home, repo } = workspace();
    oauth.copilotApi = `${standin.url}/copilot-api`;
    oauth.expiresIn = 60;
    try {
      const login = startLogin(oauth, home, "github-copilot");
      login.child.stdin.end();
      expect((await login.done).code).toBe(0);
      const [stored] = vaultData(home);
      expect(stored.apiBase).toBe(`${standin.url}/copilot-api`);
      const exchanges = oauth.exchanges;
      const before = posts().length;
      standin.setScript([{ toolCalls: [{ name: "read", arguments: { path: "README.md" } }] }, { text: "hi from copilot" }]);
      const run = await runAgent(["-p", "--model", "github-copilot/gpt-5-mini", "--thinking", "high", "hello"], { home, cwd: repo, env: oauth.env() });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "→ read README.md\n" });
      expect(run.stdout).toBe("hi from copilot\n");
      // The login's token expires inside the refresh window, so the run exchanged the GitHub token again.
      expect(oauth.exchanges).toBe(exchanges + 1);
      const requests = since(before);
      expect(requests.map((request) => [request.path, request.refused])).toEqual([
        ["/copilot-api/chat/completions", undefined],
        ["/copilot-api/chat/completions", undefined],
      ]);
      for (const request of requests) {
        expect(request.headers.authorization).toBe(`Bearer ${vaultData(home)[0].access}`);
        expect(request.headers.authorization).not.toBe(`Bearer ${stored.access}`);
        expect(request.headers).toMatchObject({ "editor-version": "vscode/1.99.0", "copilot-integration-id": "vscode-chat", "editor-plugin-version": "copilot-chat/0.26.7" });
        // Copilot's chat completions take no reasoning parameters.
        expect(request.body.reasoning_effort).toBeUndefined();
      }
      // The user's prompt is a premium request; the turn after the tool result is the agent's.
      expect(requests.map((request) => request.headers["x-initiator"])).toEqual(["user", "agent"]);
    } finally {
      oauth.copilotApi = undefined;
      oauth.expiresIn = 3600;
    }
  });
  test("omp models lists the plan's Copilot models with VS Code's identity, and a listed model is usable", async () => {
    const copilot = await startStandin({ models: [{ id: "gpt-4.1" }, { id: "gemini-3.1-pro", contextWindow: 1_000_000 }] });
    try {
      const { home, repo } = workspace();
      const login = startLogin(oauth, home, "github-copilot");
      login.child.stdin.end();
      expect((await login.done).code).toBe(0);
      const copilotEnv = { ...oauth.env(), GITHUB_COPILOT_BASE_URL: `${copilot.url}/copilot-api` };
      const listed = await runAgent(["models"], { home, cwd: repo, env: copilotEnv });
      expect(listed.code).toBe(0);
      const line = (id: string) => listed.stdout.split("\n").find((l) => l.trim().startsWith(`${id} `)) ?? "";
      expect(line("github-copilot/gemini-3.1-pro")).toContain("new");
      const [get] = copilot.requests.filter((request) => request.method === "GET");
      expect(get!.path).toBe("/copilot-api/models");
      expect(get!.headers["editor-version"]).toBe("vscode/1.99.0");

      copilot.setScript([{ text: "gemini via copilot" }]);
      const run = await runAgent(["-p", "--model", "github-copilot/gemini-3.1-pro", "hi"], { home, cwd: repo, env: copilotEnv });
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: "gemini via copilot\n", stderr: "" });
      expect(copilot.requests.find((request) => request.method === "POST")!.refused).toBeUndefined();
    } finally {
      await copilot.close();
    }
  });
});

describe("Anthropic (Claude Pro/Max)", () => {
  test("the OAuth token goes as a bearer with the oauth beta, after the Claude Code identity, and the backend accepts it", async () => {
    const { home, repo } = workspace();
    expect((await loginViaBrowser(oauth, home, "anthropic")).code).toBe(0);
    const before = posts().length;
    standin.setScript([{ text: "hi from claude" }]);
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env: env() });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "hi from claude\n" });
    const [request] = since(before);
    expect(request!.refused).toBeUndefined();
    expect(request!.headers["anthropic-beta"]!.split(",")).toEqual(expect.arrayContaining(["oauth-2025-04-20", "claude-code-20250219", "interleaved-thinking-2025-05-14"]));
    expect(request!.headers).toMatchObject({ "x-app": "cli", "user-agent": expect.stringMatching(/^claude-cli\//) });
    expect(request!.headers["x-api-key"]).toBeUndefined();
    expect(request!.body.system[1].text).toContain("You are omp");
  });
});

describe("through an auth broker and the auth gateway", () => {
  test("a Gemini CLI login held by a broker works from a client HOME with no credentials: the project travels in the snapshot", async () => {
    const brokerHome = tempDir("omp-broker-");
    standin.codeAssist.onboarded = true;
    expect((await loginViaBrowser(oauth, brokerHome, "google-gemini-cli", backends)).code).toBe(0);
    const broker = await startBroker(brokerHome, oauth.env());
    const { home, repo } = workspace();
    const before = posts().length;
    standin.setScript([{ text: "via the broker" }]);
    const run = await runAgent(["-p", "--model", "google-gemini-cli/gemini-2.5-pro", "hello"], {
      home,
      cwd: repo,
      env: env({ OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token }),
    });
    expect({ code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ code: 0, stderr: "", stdout: "via the broker\n" });
    const [request] = since(before);
    expect(request!.refused).toBeUndefined();
    expect(request!.body.project).toBe("standin-managed-project");
  });

  test("the gateway serves a Gemini CLI login to an Anthropic client, in Code Assist's envelope", async () => {
    const home = tempDir("omp-gateway-");
    standin.codeAssist.onboarded = true;
    expect((await loginViaBrowser(oauth, home, "google-gemini-cli", backends)).code).toBe(0);
    const gateway = await startGatewayProcess(home, env());
    gateways.push(gateway);
    const before = posts().length;
    standin.setScript([{ text: "gemini through the gateway" }]);
    const client = new Anthropic({ apiKey: gateway.token, baseURL: gateway.url, maxRetries: 0 });
    const reply = await client.messages.create({ model: "google-gemini-cli/gemini-2.5-pro", max_tokens: 100, messages: [{ role: "user", content: "hello" }] });
    expect(reply.content).toEqual([expect.objectContaining({ type: "text", text: "gemini through the gateway" })]);
    const [request] = since(before);
    expect(request!.refused).toBeUndefined();
    expect(request!.body).toMatchObject({ model: "gemini-2.5-pro", project: "standin-managed-project" });
    expect(gateway.stderr()).not.toContain("ya29.");
  });

  test("the gateway serves a ChatGPT login to an OpenAI client, shaped for the Codex backend", async () => {
    const home = tempDir("omp-gateway-");
    expect((await loginViaBrowser(oauth, home, "openai-codex")).code).toBe(0);
    const gateway = await startGatewayProcess(home, env());
    gateways.push(gateway);
    const before = posts().length;
    standin.setScript([{ text: "codex through the gateway" }]);
    const client = new OpenAI({ apiKey: gateway.token, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "openai-codex/gpt-5.1-codex", max_tokens: 100, temperature: 0.2, messages: [{ role: "user", content: "hello" }] });
    expect(reply.choices[0]!.message.content).toBe("codex through the gateway");
    const [request] = since(before);
    expect(request!.refused).toBeUndefined();
    expect(request!.path).toBe("/backend-api/codex/responses");
    expect(request!.headers["chatgpt-account-id"]).toBe("acct_user@example.com");
    expect(request!.body.max_output_tokens).toBeUndefined();
  });
});
