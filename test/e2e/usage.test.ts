// `omp usage` and `omp stats` (issue 29.4) on the compiled binary: each subscription login (made
// against the OAuth stand-in) is asked its limits at a stand-in of its provider's usage endpoint,
// which answers in that provider's shape and only to the token it issued; omp's own records give
// tokens and cost per model; `omp stats` reads real session files.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { agentTestFile, readJsonl, runAgent, sessionFiles, workspace } from "../support/agent-harness.ts";
import { startOAuthStandin } from "../support/oauth-standin.ts";
import { loginViaBrowser, startLogin } from "../support/oauth-login.ts";
import { startBroker, stopBrokers } from "../support/broker.ts";
import { tempDir } from "../support/omp.ts";

const standin = await agentTestFile();
const oauth = await startOAuthStandin();
afterAll(() => oauth.close());
afterAll(stopBrokers);

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

function vaultRows(home: string): { provider: string; data: any }[] {
  const db = new Database(join(home, ".omp", "agent", "agent.db"), { readonly: true });
  const rows = db.query<{ provider: string; data: string }, []>("SELECT provider, data FROM auth_credentials WHERE disabled_cause IS NULL ORDER BY id").all();
  db.close();
  return rows.map((row) => ({ provider: row.provider, data: JSON.parse(row.data) }));
}

describe("omp usage", () => {
  test("every subscription login's limits, from its provider's usage endpoint with its own token, as text and JSON", async () => {
    const { home, repo } = workspace();
    for (const provider of ["anthropic", "openai-codex", "google-gemini-cli"]) expect((await loginViaBrowser(oauth, home, provider)).code).toBe(0);
    const copilot = startLogin(oauth, home, "github-copilot");
    copilot.child.stdin.end();
    expect((await copilot.done).code).toBe(0);

    const now = Math.floor(Date.now() / 1000);
    oauth.usage.anthropic = {
      five_hour: { utilization: 85.0, resets_at: inHours(2.5) },
      seven_day: { utilization: 40.0, resets_at: inHours(90) },
      seven_day_opus: { utilization: 96.0, resets_at: inHours(90) },
      seven_day_sonnet: null,
      extra_usage: { is_enabled: false, monthly_limit: null, used_credits: null, utilization: null },
    };
    oauth.usage.codex = {
      plan_type: "pro",
      rate_limit: {
        allowed: true,
        limit_reached: false,
        primary_window: { used_percent: 30, limit_window_seconds: 18_000, reset_after_seconds: 3600, reset_at: now + 3600 },
        secondary_window: { used_percent: 81, limit_window_seconds: 604_800, reset_after_seconds: 200_000, reset_at: now + 200_000 },
      },
    };
    oauth.usage.copilot = {
      copilot_plan: "individual",
      quota_reset_date: "2099-01-01",
      quota_snapshots: {
        chat: { entitlement: 0, remaining: 0, percent_remaining: 100, unlimited: true, quota_id: "chat" },
        premium_interactions: { entitlement: 300, remaining: 60, quota_remaining: 60, percent_remaining: 20, unlimited: false, overage_permitted: false, overage_count: 0, quota_id: "premium_interactions" },
      },
    };
    oauth.usage.gemini = { buckets: [{ modelId: "gemini-2.5-pro", tokenType: "REQUESTS", remainingFraction: 0.25, resetTime: inHours(10) }] };

    const before = oauth.usageRequests.length;
    const json = await runAgent(["usage", "--json"], { home, cwd: repo, env: oauth.env() });
    expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: "" });
    const overview = JSON.parse(json.stdout);
    expect(overview.credentials).toBe("local");
    const byProvider = Object.fromEntries(overview.accounts.map((report: any) => [report.provider, report]));
    expect(Object.keys(byProvider).sort()).toEqual(["anthropic", "github-copilot", "google-gemini-cli", "openai-codex"]);
    const used = (provider: string) => Object.fromEntries(byProvider[provider].limits.map((limit: any) => [limit.id, Math.round(limit.amount.usedFraction * 100)]));
    expect(used("anthropic")).toEqual({ five_hour: 85, seven_day: 40, seven_day_opus: 96 });
    expect(used("openai-codex")).toEqual({ primary: 30, secondary: 81 });
    expect(used("github-copilot")).toEqual({ premium_interactions: 80 });
    expect(used("google-gemini-cli")).toEqual({ "gemini-2.5-pro:requests": 75 });
    expect(byProvider.anthropic.limits[0]).toMatchObject({ label: "5-hour limit", status: "warning", window: { resetsAt: Date.parse((oauth.usage.anthropic as any).five_hour.resets_at) } });
    expect(byProvider["openai-codex"].limits[1]).toMatchObject({ label: "weekly limit", window: { resetsAt: (now + 200_000) * 1000, durationMs: 604_800_000 } });
    expect(byProvider["github-copilot"].limits[0].amount).toMatchObject({ used: 240, limit: 300, remaining: 60, unit: "requests" });

    // Each endpoint was asked with the login's own token and the headers its provider requires.
    const vault = vaultRows(home);
    const tokenOf = (provider: string) => vault.find((row) => row.provider === provider)!.data;
    const asked = Object.fromEntries(oauth.usageRequests.slice(before).map((request) => [request.path, request]));
    expect(asked["/api/oauth/usage"]!.headers).toMatchObject({ authorization: `Bearer ${tokenOf("anthropic").access}`, "anthropic-beta": "oauth-2025-04-20" });
    expect(asked["/backend-api/wham/usage"]!.headers).toMatchObject({ authorization: `Bearer ${tokenOf("openai-codex").access}`, "chatgpt-account-id": "acct_user@example.com" });
    expect(asked["/copilot_internal/user"]!.headers.authorization).toBe(`token ${tokenOf("github-copilot").refresh}`);
    expect(asked["/v1internal:retrieveUserQuota"]!.body).toEqual({ project: tokenOf("google-gemini-cli").projectId });

    const text = await runAgent(["usage"], { home, cwd: repo, env: oauth.env() });
    expect(text.code).toBe(0);
    const lines = text.stdout.split("\n");
    const line = (start: string) => lines.find((l) => l.trim().startsWith(start)) ?? "";
    expect(lines).toContain("  anthropic  user@example.com");
    expect(line("5-hour limit")).toMatch(/85%\s+resets in 2h (29|30)m \(.* UTC\)\s+warning$/);
    expect(line("weekly Opus limit")).toMatch(/96%.*near the limit$/);
    expect(line("weekly limit")).toContain("40%");
    expect(line("monthly premium requests")).toContain("80% (240/300)");
    expect(line("daily gemini-2.5-pro requests")).toContain("75%");
  });

  test("a login the provider refuses is a note on its account, and the others are still shown", async () => {
    const { home, repo } = workspace();
    expect((await loginViaBrowser(oauth, home, "anthropic")).code).toBe(0);
    expect((await loginViaBrowser(oauth, home, "openai-codex")).code).toBe(0);
    // The stand-in forgets the Anthropic token: its usage endpoint now answers 401, as Anthropic's does for a revoked login.
    const access = vaultRows(home).find((row) => row.provider === "anthropic")!.data.access;
    oauth.issued.splice(oauth.issued.findIndex((entry) => entry.access === access), 1);
    const run = await runAgent(["usage", "--json"], { home, cwd: repo, env: oauth.env() });
    expect(run.code).toBe(0);
    const reports = JSON.parse(run.stdout).accounts;
    const anthropic = reports.find((report: any) => report.provider === "anthropic");
    expect(anthropic.limits).toEqual([]);
    expect(anthropic.notes[0]).toContain("answered 401 (log in again with `omp auth login anthropic`)");
    expect(reports.find((report: any) => report.provider === "openai-codex").limits).toHaveLength(2);
  });

  test("broker mode: the broker's logins are asked with the access tokens it hands out, and the limits it knows were met are listed", async () => {
    const brokerHome = tempDir("omp-broker-");
    expect((await loginViaBrowser(oauth, brokerHome, "anthropic")).code).toBe(0);
    const copilot = startLogin(oauth, brokerHome, "github-copilot");
    copilot.child.stdin.end();
    expect((await copilot.done).code).toBe(0);
    const broker = await startBroker(brokerHome, oauth.env());
    const auth = { authorization: `Bearer ${broker.token}` };
    const snapshot: any = await (await fetch(`${broker.url}/v1/snapshot`, { headers: auth })).json();
    const anthropicEntry = snapshot.credentials.find((entry: any) => entry.provider === "anthropic");
    const until = Date.now() + 2 * 3_600_000;
    const blocked = await fetch(`${broker.url}/v1/credential/${anthropicEntry.id}/block`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ untilMs: until }) });
    expect(blocked.status).toBe(200);
    oauth.usage.anthropic = { five_hour: { utilization: 100.0, resets_at: new Date(until).toISOString() }, seven_day: { utilization: 70.0, resets_at: inHours(90) } };

    const { home, repo } = workspace();
    const env = { ...oauth.env(), OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token };
    const before = oauth.usageRequests.length;
    const run = await runAgent(["usage", "--json"], { home, cwd: repo, env });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const overview = JSON.parse(run.stdout);
    expect(overview.credentials).toBe("broker");
    const anthropic = overview.accounts.find((report: any) => report.provider === "anthropic");
    expect(anthropic.limits.map((limit: any) => [limit.id, limit.status])).toEqual([["five_hour", "exhausted"], ["seven_day", "ok"]]);
    const asked = oauth.usageRequests.slice(before);
    expect(asked.map((request) => request.path)).toEqual(["/api/oauth/usage"]);
    expect(asked[0]!.headers.authorization).toBe(`Bearer ${anthropicEntry.credential.access}`);
    // Copilot's quota needs the GitHub token, which never leaves the broker.
    expect(overview.accounts.find((report: any) => report.provider === "github-copilot").notes[0]).toContain("stays with the auth broker");
    expect(overview.known).toHaveLength(1);
    expect(overview.known[0].limits[0]).toMatchObject({ status: "exhausted", window: { resetsAt: until }, scope: { credentialId: anthropicEntry.id } });
    const text = await runAgent(["usage"], { home, cwd: repo, env });
    expect(text.stdout).toContain("Subscriptions (through the auth broker)");
    expect(text.stdout).toMatch(/Limits the auth broker knows were met\n {2}anthropic {2}user@example\.com\n {4}Usage limit\s+100%\s+resets in (1h 59m|2h 0m) .*EXHAUSTED/);
  });

  test("API keys: tokens and cost per model from omp's own records, today and this week", async () => {
    const { home, repo } = workspace();
    const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest_usage_key_0123456789" };
    standin.setScript([{ text: "one", usage: { input: 1000, output: 200 } }, { text: "two", usage: { input: 3000, output: 100, cacheRead: 500 } }]);
    for (const prompt of ["first", "second"]) expect((await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", prompt], { home, cwd: repo, env })).code).toBe(0);
    const run = await runAgent(["usage", "--json"], { home, cwd: repo, env });
    expect(run.code).toBe(0);
    const { recorded, accounts } = JSON.parse(run.stdout);
    expect(accounts).toEqual([]);
    const sessionCost = sessionFiles(home)
      .flatMap(readJsonl)
      .filter((entry) => entry.type === "message" && entry.message.role === "assistant")
      .reduce((sum, entry) => sum + entry.message.usage.cost.total, 0);
    expect(sessionCost).toBeGreaterThan(0);
    for (const period of [recorded.today, recorded.week]) {
      expect(period).toHaveLength(1);
      expect(period[0]).toMatchObject({ provider: "anthropic", model: "claude-opus-5-5", requests: 2, input: 4000, output: 300, cacheRead: 500 });
      expect(period[0].cost).toBeCloseTo(sessionCost, 9);
    }
    const text = await runAgent(["usage"], { home, cwd: repo, env });
    expect(text.stdout).toMatch(/Recorded by omp today\n {2}anthropic\/claude-opus-5-5\s+2 req\s+in\s+4\.5k\s+out\s+300\s+\$\d+\.\d+/);
  });
});

describe("omp stats", () => {
  test("sessions, tokens, cost and tool calls from the session files", async () => {
    const { home, repo } = workspace();
    const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest_stats_key_0123456789" };
    standin.setScript([
      { toolCalls: [{ name: "read", arguments: { path: "README.md" } }], usage: { input: 100, output: 10 } },
      { toolCalls: [{ name: "bash", arguments: { command: "true" } }], usage: { input: 200, output: 20 } },
      { text: "done", usage: { input: 300, output: 30 } },
      { text: "again", usage: { input: 50, output: 5 } },
    ]);
    expect((await runAgent(["-p", "--sandbox", "off", "--model", "anthropic/claude-opus-5-5", "look"], { home, cwd: repo, env })).code).toBe(0);
    expect((await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "again"], { home, cwd: repo, env })).code).toBe(0);
    const run = await runAgent(["stats", "--json", "--days", "7"], { home, cwd: repo, env });
    expect(run.code).toBe(0);
    const stats = JSON.parse(run.stdout);
    expect(stats).toMatchObject({ sessions: 2, subagentSessions: 0, projects: 1, skipped: 0, tools: { read: 1, bash: 1 } });
    expect(stats.total).toMatchObject({ requests: 4, input: 650, output: 65, toolCalls: 2 });
    expect(stats.byModel["anthropic/claude-opus-5-5"]).toMatchObject({ sessions: 2, requests: 4, input: 650, output: 65 });
    const today = new Date().toISOString().slice(0, 10);
    expect(stats.byDay[today]).toMatchObject({ sessions: 2, requests: 4, toolCalls: 2 });
    const text = await runAgent(["stats"], { home, cwd: repo, env });
    expect(text.stdout).toContain("2 sessions (+0 subagent) in 1 project");
    expect(text.stdout).toMatch(/Tools\n {2}(read|bash)\s+1\n {2}(read|bash)\s+1/);
    const bad = await runAgent(["stats", "--days", "soon"], { home, cwd: repo, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--days");
  });

  test("a fork is a session (its copied turns counted once), a subagent's apart; stats and usage give the same requests and cost", async () => {
    const { home, repo } = workspace();
    const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest_stats_key_0123456789" };
    const model = ["--model", "anthropic/claude-opus-5-5"];
    standin.setScript([{ text: "first answer", usage: { input: 1000, output: 100 } }]);
    expect((await runAgent(["-p", ...model, "first"], { home, cwd: repo, env })).code).toBe(0);
    const [original] = sessionFiles(home);
    standin.setScript([{ text: "forked answer", usage: { input: 2000, output: 200 } }]);
    expect((await runAgent(["-p", ...model, "--fork", original!, "more"], { home, cwd: repo, env })).code).toBe(0);
    standin.setScript([
      { toolCalls: [{ name: "task", arguments: { subagent_type: "general-purpose", description: "count", prompt: "count files" } }], usage: { input: 300, output: 30 } },
      { text: "3 files", usage: { input: 400, output: 40 } },
      { text: "there are 3", usage: { input: 500, output: 50 } },
    ]);
    expect((await runAgent(["-p", ...model, "count"], { home, cwd: repo, env })).code).toBe(0);
    const stats = JSON.parse((await runAgent(["stats", "--json"], { home, cwd: repo, env })).stdout);
    expect(stats).toMatchObject({ sessions: 3, subagentSessions: 1, tools: { task: 1 } });
    // 1 + 1 (the fork's copy of the first turn is not a request) + 3.
    expect(stats.total).toMatchObject({ requests: 5, input: 4200, output: 420, toolCalls: 1 });
    const { recorded } = JSON.parse((await runAgent(["usage", "--json"], { home, cwd: repo, env })).stdout);
    const week = recorded.week as { requests: number; cost: number }[];
    expect(week.reduce((sum, row) => sum + row.requests, 0)).toBe(stats.total.requests);
    expect(week.reduce((sum, row) => sum + row.cost, 0)).toBeCloseTo(stats.total.cost, 9);
  });
});
