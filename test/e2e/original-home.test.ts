// Issue 38: a home where the original omp (@oh-my-pi/pi-coding-agent 18.2.3, installed from npm by
// .ci/setup) has run. The original itself stores an API key and a login in its agent.db at its
// schema 7 and makes two sessions (and, in another home, a branch) against the provider stand-in; then omp uses that home as it is,
// and afterwards the original still resumes its sessions and uses its key.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PEERS, peerBin } from "../../bench/edits-peers.ts";
import { LineReader, agentTestFile, modelRequests, runAgent, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { loginViaBrowser } from "../support/oauth-login.ts";
import { startOAuthStandin } from "../support/oauth-standin.ts";
import { ROOT, tempDir } from "../support/omp.ts";

const standin = await agentTestFile();
const original = PEERS.find((peer) => peer.name === "original omp")!;
const ORIGINAL = peerBin(original);
const STORE_MODULE = join(ROOT, "bench", "work", "peers", "omp", "node_modules", "@oh-my-pi", "pi-ai", "src", "auth", "sqlite-credential-store.ts");
// The original runs on bun (`#!/usr/bin/env bun`): the project's own.
const PATH = `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`;
const KEY = `sk-ant-api03-original${crypto.randomUUID().replaceAll("-", "")}`;

function originalEnv(home: string): Record<string, string> {
  return { PATH, HOME: home, LANG: "C.UTF-8", ANTHROPIC_BASE_URL: standin.url, PI_NO_TITLE: "1" };
}

async function runOriginal(args: string[], home: string, cwd: string, stdin?: string) {
  const child = Bun.spawn([ORIGINAL!, ...args], { cwd, env: originalEnv(home), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  if (stdin !== undefined) child.stdin.write(stdin);
  child.stdin.end();
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

type OriginalRpc = { call: (command: { type: string } & Record<string, unknown>) => Promise<any>; prompt: (message: string) => Promise<void>; out: LineReader };

/** The original's rpc mode, driven as its own host drives it; `extra` are more of its flags. */
async function originalRpc(home: string, cwd: string, body: (rpc: OriginalRpc) => Promise<void>, extra: string[] = []): Promise<void> {
  const child = Bun.spawn([ORIGINAL!, "--mode", "rpc", "--model", "anthropic/claude-sonnet-4-5", ...extra], { cwd, env: originalEnv(home), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const out = new LineReader(child.stdout);
  let next = 0;
  const call = async (command: { type: string } & Record<string, unknown>) => {
    const id = `c${++next}`;
    child.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
    const response = JSON.parse(await out.waitFor((line) => line.includes(`"id":"${id}"`) && line.includes('"type":"response"'), 0, 60_000));
    expect(response).toMatchObject({ success: true });
    return response.data;
  };
  const prompt = async (message: string) => {
    const from = out.lines.length;
    await call({ type: "prompt", message });
    await out.waitFor((line) => line.includes('"type":"agent_end"'), from, 60_000);
  };
  await body({ call, prompt, out });
  child.stdin.end();
  expect(await child.exited).toBe(0);
}

/** Runs `body` against the original's own credential store (its sqlite-credential-store.ts) on the home's agent.db. */
function withOriginalStore(home: string, body: string, args: string[] = []): string {
  const script = join(tempDir("omp-original-"), "store.ts");
  writeFileSync(
    script,
    `import { SqliteAuthCredentialStore } from ${JSON.stringify(STORE_MODULE)};
const store = await SqliteAuthCredentialStore.open(${JSON.stringify(join(home, ".omp", "agent", "agent.db"))});
const args = process.argv.slice(2);
${body}
store.close();
`,
  );
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  const run = Bun.spawnSync([join(ROOT, "node_modules", ".bin", "bun"), script, ...args], { env: originalEnv(home), stdout: "pipe", stderr: "pipe" });
  expect(run.stderr.toString()).toBe("");
  expect(run.exitCode).toBe(0);
  return run.stdout.toString();
}

/** A user message's text without the reminder block the original may put before it. */
const withoutReminder = (text: string) => text.replace(/^<system-reminder>[\s\S]*?<\/system-reminder>\s*/, "");
const lastRequest = () => modelRequests(standin).at(-1)!;
const userTexts = (body: any): string[] =>
  body.messages.filter((m: any) => m.role === "user").flatMap((m: any) => (typeof m.content === "string" ? [m.content] : m.content.filter((b: any) => b.type === "text").map((b: any) => b.text)));

/** The user turns the original sent, without the reminder messages it adds of its own. */
const promptTexts = (body: any): string[] => userTexts(body).filter((text) => !text.startsWith("<system-reminder>"));

describe.skipIf(ORIGINAL === undefined)("a home the original omp made", () => {
  test("omp uses its stored key and sessions as they are, and the original still does after", async () => {
    const { home, repo } = workspace();
    const agentDir = join(home, ".omp", "agent");
    mkdirSync(agentDir, { recursive: true });
    const db = join(agentDir, "agent.db");
    // Its own store code writes the key and a ChatGPT login (its login flows need the real OAuth servers).
    withOriginalStore(
      home,
      `store.saveApiKey("anthropic", args[0]);
store.saveOAuth("openai-codex", { access: "acc-original", refresh: "ref-original", expires: Date.now() + 3_600_000, email: "me@example.com", accountId: "acct-1" });`,
      [KEY],
    );
    writeFileSync(join(agentDir, "config.yml"), "lastChangelogVersion: 18.2.3\nthinking: low\n");

    standin.setScript(Array.from({ length: 12 }, () => ({ text: "noted" })));
    standin.requests.length = 0;
    const first = await runOriginal(["-p", "--model", "anthropic/claude-sonnet-4-5", "first question about apples"], home, repo);
    expect(first.code).toBe(0);
    expect(lastRequest().headers["x-api-key"]).toBe(KEY);
    await originalRpc(home, repo, async (rpc) => {
      await rpc.prompt("second question about pears");
      await rpc.call({ type: "set_session_name", name: "Pears plan" });
    });
    const schema = () => {
      const open = new Database(db, { readonly: true });
      try {
        return open.query<{ version: number }, []>("SELECT version FROM auth_schema_version").get()?.version;
      } finally {
        open.close();
      }
    };
    expect(schema()).toBe(7);

    // omp -r: both, the named one by its name, the other by its first prompt.
    const listed = await runAgent(["-r"], { home, cwd: repo });
    expect(listed.code).toBe(0);
    const lines = listed.stdout.split("\n");
    expect(lines[1]).toContain("Pears plan");
    expect(lines[2]).toContain("first question about apples");
    expect(listed.stdout).not.toContain("damaged");

    // omp -c: the latest, with its history, on the stored key.
    const continued = await runAgent(["-c", "-p", "third, from omp"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url } });
    // The original's config key omp does not take is reported, never fatal.
    expect(continued.stderr.trim().split("\n")).toEqual([expect.stringContaining("omp: ~/.omp/agent/config.yml: lastChangelogVersion: unknown key")]);
    expect(continued.code).toBe(0);
    expect(userTexts(lastRequest().body)).toEqual(["second question about pears", "third, from omp"]);
    expect(lastRequest().headers["x-api-key"]).toBe(KEY);

    // No flags but the prompt: the stored key, and a config.yml key omp does not know is only a warning.
    const plain = await runAgent(["-p", "plain run"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url } });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe("noted\n");
    expect(lastRequest().headers["x-api-key"]).toBe(KEY);
    expect(schema()).toBe(7);

    // The original again: it continues the session omp appended to, with omp's turn in it, on its key.
    const resumed = await runOriginal(["-c", "-p", "--model", "anthropic/claude-sonnet-4-5", "fourth, from the original"], home, repo);
    expect(resumed.code).toBe(0);
    expect(promptTexts(lastRequest().body)).toEqual([
      "second question about pears",
      "third, from omp",
      "fourth, from the original",
    ]);
    expect(lastRequest().headers["x-api-key"]).toBe(KEY);
    // ... and the other one by its id.
    const apples = lines[2]!.trim().split(/\s+/)[0]!;
    const byId = await runOriginal(["--resume", apples, "-p", "--model", "anthropic/claude-sonnet-4-5", "fifth"], home, repo);
    expect(byId.code).toBe(0);
    expect(promptTexts(lastRequest().body)).toEqual(["first question about apples", "fifth"]);
    expect(schema()).toBe(7);
    const open = new Database(db, { readonly: true });
    const rows = open.query<{ provider: string; data: string }, []>("SELECT provider, data FROM auth_credentials WHERE disabled_cause IS NULL ORDER BY id").all();
    open.close();
    expect(rows.map((row) => [row.provider, JSON.parse(row.data).key ?? JSON.parse(row.data).refresh])).toEqual([
      ["anthropic", KEY],
      ["openai-codex", "ref-original"],
    ]);
    expect(readFileSync(join(agentDir, "config.yml"), "utf8")).toBe("lastChangelogVersion: 18.2.3\nthinking: low\n");
  });
});

describe.skipIf(ORIGINAL === undefined)("a branch omp makes in the original's session", () => {
  test("shows in get_tree and -r, and the original continues on it", async () => {
    const { home, repo } = workspace();
    withOriginalStore(home, "store.saveApiKey(\"anthropic\", args[0]);", [KEY]);
    standin.setScript(Array.from({ length: 8 }, (_, i) => ({ text: `reply ${i + 1}` })));
    expect((await runOriginal(["-p", "--model", "anthropic/claude-sonnet-4-5", "one: apples"], home, repo)).code).toBe(0);
    expect((await runOriginal(["-c", "-p", "--model", "anthropic/claude-sonnet-4-5", "two: pears"], home, repo)).code).toBe(0);

    const rpc = new RpcProcess(["-c", "--model", "anthropic/claude-sonnet-4-5"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url } });
    try {
      await rpc.waitFrame((frame) => frame.type === "ready");
      const tree = (await rpc.send({ type: "get_tree" })).data;
      const users = tree.nodes.filter((node: any) => node.role === "user").map((node: any) => node.text);
      expect(users.map(withoutReminder)).toEqual(["one: apples", "two: pears"]);
      const firstReply = tree.nodes.find((node: any) => node.role === "assistant");
      expect((await rpc.send({ type: "navigate", entryId: firstReply.id })).success).toBe(true);
      const mark = rpc.mark;
      expect((await rpc.send({ type: "prompt", message: "three: a branch after one" })).success).toBe(true);
      await rpc.waitFrame((frame) => frame.type === "agent_end", mark);
    } finally {
      expect(await rpc.close()).toBe(0);
    }
    const listed = await runAgent(["-r"], { home, cwd: repo });
    expect(listed.stdout).toContain("2 branches");

    const resumed = await runOriginal(["-c", "-p", "--model", "anthropic/claude-sonnet-4-5", "four: on the branch"], home, repo);
    expect(resumed.code).toBe(0);
    expect(promptTexts(lastRequest().body)).toEqual(["one: apples", "three: a branch after one", "four: on the branch"]);
  });
});

describe.skipIf(ORIGINAL === undefined)("a branch the original omp makes in its session", () => {
  test("omp -r counts it, get_tree shows both leaves, and -c continues on the original's leaf with that line's history", async () => {
    const { home, repo } = workspace();
    withOriginalStore(home, "store.saveApiKey(\"anthropic\", args[0]);", [KEY]);
    // The original's rpc `branch` forks into a new file; a branch inside the file is its /tree move,
    // navigateTree, which rpc reaches through an extension command.
    const extension = join(tempDir("omp-original-ext-"), "tree-to.ts");
    writeFileSync(
      extension,
      `export default function (pi) {
  pi.registerCommand("tree-to", { handler: async (args, ctx) => {
    const { cancelled } = await ctx.navigateTree(args.trim(), { summarize: false });
    ctx.ui.notify(cancelled ? "tree-to cancelled" : "tree-to moved", "info");
  } });
}
`,
    );
    standin.setScript(Array.from({ length: 8 }, (_, i) => ({ text: `reply ${i + 1}` })));
    standin.requests.length = 0;
    await originalRpc(
      home,
      repo,
      async (rpc) => {
        await rpc.prompt("one: apples");
        await rpc.prompt("two: pears, abandoned");
        const { messages } = await rpc.call({ type: "get_branch_messages" });
        expect(messages.map((m: any) => m.text)).toEqual(["one: apples", "two: pears, abandoned"]);
        // Moving to "two" puts the leaf on the reply to "one": the next prompt starts the second line there.
        const from = rpc.out.lines.length;
        await rpc.call({ type: "prompt", message: `/tree-to ${messages[1].entryId}` });
        await rpc.out.waitFor((line) => line.includes('"method":"notify"') && line.includes("tree-to"), from, 60_000);
        expect(rpc.out.lines.slice(from).join("\n")).toContain("tree-to moved");
        await rpc.prompt("three: a branch after one");
      },
      ["-e", extension],
    );
    expect(promptTexts(lastRequest().body)).toEqual(["one: apples", "three: a branch after one"]);

    const listed = await runAgent(["-r"], { home, cwd: repo });
    expect(listed.code).toBe(0);
    // One session, holding both lines: the original's navigateTree branches in place.
    const sessions = listed.stdout.trim().split("\n").slice(1);
    expect(sessions).toEqual([expect.stringContaining("2 branches")]);
    expect(sessions[0]).toContain("one: apples");

    const rpc = new RpcProcess(["-c", "--model", "anthropic/claude-sonnet-4-5"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url } });
    try {
      await rpc.waitFrame((frame) => frame.type === "ready");
      const tree = (await rpc.send({ type: "get_tree" })).data;
      const byId = new Map<string, any>(tree.nodes.map((node: any) => [node.id, node]));
      const parents = new Set(tree.nodes.map((node: any) => node.parentId));
      const leaves = tree.nodes.filter((node: any) => !parents.has(node.id));
      const line = (leaf: any): string[] => {
        const texts: string[] = [];
        for (let node = leaf; node; node = byId.get(node.parentId)) if (node.role === "user") texts.unshift(withoutReminder(node.text));
        return texts;
      };
      expect(leaves.map(line).sort()).toEqual([["one: apples", "three: a branch after one"], ["one: apples", "two: pears, abandoned"]]);
      expect(line(byId.get(tree.leafId))).toEqual(["one: apples", "three: a branch after one"]);
    } finally {
      expect(await rpc.close()).toBe(0);
    }

    const continued = await runAgent(["-c", "-p", "four: from omp"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url } });
    expect(continued.code).toBe(0);
    expect(userTexts(lastRequest().body)).toEqual(["one: apples", "three: a branch after one", "four: from omp"]);
    const assistants = lastRequest().body.messages.filter((m: any) => m.role === "assistant");
    expect(JSON.stringify(assistants)).not.toContain("reply 2");
  });
});

describe("the original omp's models.yml and --models", () => {
  test("a Gemini provider whose baseUrl ends in /v1beta is reached there once, not at /v1beta/v1beta; its other keys are only reported", async () => {
    const { home, repo } = workspace();
    const agentDir = join(home, ".omp", "agent");
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(
      join(agentDir, "models.yml"),
      `providers:\n  mygemini:\n    baseUrl: ${standin.url}/v1beta/\n    api: google-generative-ai\n    apiKey: MY_GEMINI_KEY\n    auth: oauth\n    authHeader: false\n    models:\n      - id: gemini-4-carbon\n`,
    );
    standin.setScript([{ text: "gemini here" }]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", "mygemini/gemini-4-carbon", "hi"], { home, cwd: repo, env: { MY_GEMINI_KEY: "gm-key-1" } });
    // The original's key omp has no use for is said, not fatal.
    expect(run.stderr).toBe("omp: ~/.omp/agent/models.yml: providers.mygemini.authHeader: unknown key; allowed here: baseUrl, apiKey, api, headers, auth, models (ignored; remove it from the file to silence this)\n");
    expect(run.stdout).toBe("gemini here\n");
    expect(lastRequest().path).toBe("/v1beta/models/gemini-4-carbon:streamGenerateContent");
    expect(lastRequest().headers["x-goog-api-key"]).toBe("gm-key-1");
  });

  test("--models takes its globs: anthropic/* and claude-opus* scope cycling, a glob matching nothing is refused", async () => {
    const { home, repo } = workspace();
    const env = { ANTHROPIC_API_KEY: "sk-ant-glob", OPENAI_API_KEY: "sk-oai-glob" };
    const rpc = new RpcProcess(["--model", "anthropic/claude-sonnet-5-5", "--models", "claude-opus*,openai/gpt-6*"], { home, cwd: repo, env });
    try {
      await rpc.waitFrame((frame) => frame.type === "ready");
      const seen = new Set<string>();
      for (let i = 0; i < 8; i++) {
        const cycled = await rpc.send({ type: "cycle_model" });
        expect(cycled.data.isScoped).toBe(true);
        seen.add(`${cycled.data.model.provider}/${cycled.data.model.id}`);
      }
      expect([...seen].every((name) => name.startsWith("anthropic/claude-opus") || name.startsWith("openai/gpt-6"))).toBe(true);
      expect([...seen].some((name) => name.startsWith("anthropic/"))).toBe(true);
      expect([...seen].some((name) => name.startsWith("openai/"))).toBe(true);
    } finally {
      expect(await rpc.close()).toBe(0);
    }
    const all = await runAgent(["-p", "--models", "anthropic/*", "--list-models"], { home, cwd: repo, env });
    expect(all.code).toBe(0);
    const none = await runAgent(["-p", "--models", "nothing-like-this*", "hi"], { home, cwd: repo, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no model matches "nothing-like-this*"');
  });
});

describe.skipIf(ORIGINAL === undefined)("a login the original omp stored", () => {
  const oauth = startOAuthStandin();
  afterAll(async () => (await oauth).close());

  test("is refreshed by omp in place, after the original's refresh lease runs out, its own fields kept", async () => {
    // A real login's tokens, from the OAuth stand-in, made on a scratch home.
    const scratch = tempDir("omp-login-");
    expect((await loginViaBrowser(await oauth, scratch, "anthropic")).code).toBe(0);
    const made = new Database(join(scratch, ".omp", "agent", "agent.db"), { readonly: true });
    const login = JSON.parse(made.query<{ data: string }, []>("SELECT data FROM auth_credentials WHERE credential_type = 'oauth'").get()!.data);
    made.close();

    // The original stores it as expired, and holds its refresh lease for 3 s, as when it is refreshing itself.
    const { home, repo } = workspace();
    const leaseUntil = Date.now() + 3000;
    withOriginalStore(
      home,
      `const [row] = store.upsertAuthCredentialForProvider("anthropic", { type: "oauth", ...JSON.parse(args[0]) });
if (!store.tryAcquireCredentialRefreshLease(row.id, "original-host:4242", Number(args[1]))) throw new Error("no lease");`,
      [JSON.stringify({ ...login, expires: Date.now() - 1000, orgId: "org-keep" }), String(leaseUntil)],
    );

    standin.setScript([{ text: "refreshed and used" }]);
    const refreshes = (await oauth).tokenRequests.length;
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "hello"], { home, cwd: repo, env: { ...(await oauth).env(), ANTHROPIC_BASE_URL: standin.url } });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("refreshed and used\n");
    const refresh = (await oauth).tokenRequests.slice(refreshes);
    expect(refresh.map((request) => request.grant)).toEqual(["refresh_token"]);
    expect(refresh[0]!.fields.refresh_token).toBe(login.refresh);
    expect(refresh[0]!.at).toBeGreaterThanOrEqual(leaseUntil);
    const issued = (await oauth).issued.at(-1)!;
    expect(lastRequest().headers.authorization).toBe(`Bearer ${issued.access}`);

    const db = new Database(join(home, ".omp", "agent", "agent.db"), { readonly: true });
    const data = JSON.parse(db.query<{ data: string }, []>("SELECT data FROM auth_credentials WHERE provider = 'anthropic'").get()!.data);
    const version = db.query<{ version: number }, []>("SELECT version FROM auth_schema_version").get()!.version;
    db.close();
    expect(data).toMatchObject({ access: issued.access, refresh: issued.refresh, orgId: "org-keep" });
    expect(version).toBe(7);
    // The original reads the refreshed login through its own store.
    expect(JSON.parse(withOriginalStore(home, `console.log(JSON.stringify(store.getOAuth("anthropic")));`))).toMatchObject({ access: issued.access, orgId: "org-keep" });
  });
});
