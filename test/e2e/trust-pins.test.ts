// Trust pinned to content: a trusted project's hooks, servers and allow rules that changed since
// the user trusted it (behind omp's back, or written by the model in a session) do not run until
// the user accepts the change, shown as a diff: print mode skips them with one line naming
// `omp trust`, the interactive mode asks before it starts, rpc asks its host. An unchanged
// project runs as before, with no question.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AcpClient } from "../support/acp-client.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { agentTestFile, modelRequests, runAgent, workspace } from "../support/agent-harness.ts";
import { READY, eventually, testSessions } from "../support/tty-session.ts";

setDefaultTimeout(120_000);
const standin = await agentTestFile();
const sessions = testSessions();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" });

/** `.claude/settings.json` whose one hook touches `marker` at each prompt. */
function claudeHook(repo: string, marker: string): void {
  mkdirSync(join(repo, ".claude"), { recursive: true });
  writeFileSync(join(repo, ".claude", "settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] } }, null, 2));
}

async function print(home: string, repo: string, args: string[] = []) {
  standin.setScript([{ text: "ok" }]);
  const result = await runAgent(["-p", "--model", MODEL, ...args, "hello"], { home, cwd: repo, env: env() });
  expect(result.code).toBe(0);
  return result;
}

const trust = (home: string, repo: string) => runAgent(["trust"], { home, cwd: repo });
const changedLines = (stderr: string) => stderr.split("\n").filter((line) => line.includes("changed since you trusted"));

describe("print mode", () => {
  test("a hook changed behind omp's back is skipped with one line naming omp trust; omp trust shows the diff and it runs after", async () => {
    const { home, repo } = workspace();
    const [first, second] = [join(repo, "first-ran"), join(repo, "second-ran")];
    claudeHook(repo, first);
    expect((await trust(home, repo)).code).toBe(0);
    const unchanged = await print(home, repo);
    expect(existsSync(first)).toBe(true);
    expect(changedLines(unchanged.stderr)).toEqual([]);

    claudeHook(repo, second);
    const changed = await print(home, repo);
    expect(existsSync(second)).toBe(false);
    const lines = changedLines(changed.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(".claude/settings.json");
    expect(lines[0]).toContain(`omp trust ${repo}`);

    const accepted = await trust(home, repo);
    expect(accepted.stdout).toMatch(new RegExp(`^- +"command": "touch ${first}"$`, "m"));
    expect(accepted.stdout).toMatch(new RegExp(`^\\+ +"command": "touch ${second}"$`, "m"));
    const after = await print(home, repo);
    expect(existsSync(second)).toBe(true);
    expect(changedLines(after.stderr)).toEqual([]);
  });

  test("a .mcp.json server added after trust does not start until accepted", async () => {
    const { home, repo } = workspace();
    expect((await trust(home, repo)).code).toBe(0);
    await print(home, repo);
    const marker = join(repo, "server-started");
    writeFileSync(join(repo, ".mcp.json"), JSON.stringify({ mcpServers: { planted: { command: "sh", args: ["-c", `touch ${marker}; sleep 5`] } } }));
    const skipped = await print(home, repo);
    expect(existsSync(marker)).toBe(false);
    expect(changedLines(skipped.stderr)[0]).toContain(".mcp.json");
  });

  test("the user's own omp mcp add -s project keeps the folder as trusted: the server starts with no question", async () => {
    const { home, repo } = workspace();
    expect((await trust(home, repo)).code).toBe(0);
    const marker = join(repo, "server-started");
    expect((await runAgent(["mcp", "add", "-s", "project", "mine", "--", "sh", "-c", `touch ${marker}; sleep 5`], { home, cwd: repo })).code).toBe(0);
    const run = await print(home, repo);
    expect(changedLines(run.stderr)).toEqual([]);
    await eventually(() => (existsSync(marker) ? true : undefined), "the server's start", 30_000);
  });

  test("a hook the model writes into .omp/config.yml (the sandbox off, so it lands) runs neither in that session nor the next", async () => {
    const { home, repo } = workspace();
    expect((await trust(home, repo)).code).toBe(0);
    const marker = join(repo, "planted-ran");
    const config = JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `touch ${marker}` }] }] } });
    standin.setScript([
      // With the sandbox on, omp's write tool asks and a file the sandboxed bash makes is quarantined (next test):
      // --sandbox off lets the write land, and the pins alone must hold.
      { toolCalls: [{ name: "bash", arguments: { command: `mkdir -p .omp && cat > .omp/config.yml <<'EOF'\n${config}\nEOF` } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "echo after" } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const session = await runAgent(["-p", "--model", MODEL, "--approval-mode", "yolo", "--sandbox", "off", "go"], { home, cwd: repo, env: env() });
    expect(session.code).toBe(0);
    // The write happened (else this proves nothing), and the hook did not run after it.
    expect(existsSync(join(repo, ".omp", "config.yml"))).toBe(true);
    expect(modelRequests(standin)).toHaveLength(3);
    expect(existsSync(marker)).toBe(false);

    standin.setScript([{ toolCalls: [{ name: "bash", arguments: { command: "echo next" } }] }, { text: "done" }]);
    const next = await runAgent(["-p", "--model", MODEL, "go"], { home, cwd: repo, env: env() });
    expect(next.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(changedLines(next.stderr)[0]).toContain(".omp/config.yml");
  });

  test("with the sandbox on, a hook the model tries to plant never lands: the write tool is refused, the file its bash made is quarantined", async () => {
    const { home, repo } = workspace();
    expect((await trust(home, repo)).code).toBe(0);
    const marker = join(repo, "planted-ran");
    const config = JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `touch ${marker}` }] }] } });
    standin.setScript([
      { toolCalls: [{ name: "write", arguments: { path: ".omp/config.yml", content: config } }] },
      { toolCalls: [{ name: "bash", arguments: { command: `mkdir -p .omp && cat > .omp/config.yml <<'EOF'\n${config}\nEOF` } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "echo after" } }] },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const session = await runAgent(["-p", "--model", MODEL, "--approval-mode", "yolo", "go"], { home, cwd: repo, env: env() });
    expect(session.code).toBe(0);
    expect(existsSync(join(repo, ".omp"))).toBe(false);
    const results = modelRequests(standin).map((request) => JSON.stringify(request.body)).join("\n");
    expect(results).toContain("is a protected path of the workspace");
    expect(results).toContain("omp moved them out of the project");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("interactive mode", () => {
  test("asks with the diff before it starts: yes runs the changed hook; an unchanged project is not asked", async () => {
    const { home, repo } = workspace();
    const [first, second] = [join(repo, "first-ran"), join(repo, "second-ran")];
    claudeHook(repo, first);
    expect((await trust(home, repo)).code).toBe(0);
    claudeHook(repo, second);
    const changed = await sessions.start({ home, cwd: repo, script: [{ text: "Done here." }] });
    const question = await changed.tty.waitFor(/Trust the changed files\? \[y\/n\]/);
    expect(question).toContain(".claude/settings.json");
    expect(question).toContain(`touch ${second}`);
    changed.tty.type("y");
    changed.tty.press("Enter");
    await changed.tty.waitFor(READY);
    changed.tty.type("hello");
    changed.tty.press("Enter");
    await changed.tty.waitFor("Done here.");
    expect(existsSync(second)).toBe(true);
    await changed.close();

    const unchanged = await sessions.start({ home, cwd: repo });
    await unchanged.tty.waitFor(READY);
    expect(unchanged.tty.history()).not.toContain("[y/n]");
    await unchanged.close();
  });
});

describe("rpc mode", () => {
  test("the host gets an approval request with the diff; allowed, the change runs from the next session", async () => {
    const { home, repo } = workspace();
    const [first, second] = [join(repo, "first-ran"), join(repo, "second-ran")];
    claudeHook(repo, first);
    expect((await trust(home, repo)).code).toBe(0);
    claudeHook(repo, second);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      const request = await rpc.waitFrame((f) => f.type === "extension_ui_request");
      expect(request).toMatchObject({ kind: "trust", title: "Trust the project's changed configuration?" });
      expect(request.input.diff).toContain(`touch ${second}`);
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: request.id, value: "Allow" }));
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(existsSync(second)).toBe(false);
    const after = await print(home, repo);
    expect(existsSync(second)).toBe(true);
    expect(changedLines(after.stderr)).toEqual([]);
  });
});

describe("ACP", () => {
  test("the editor gets a permission request with the diff; allowed, the change runs from the next session", async () => {
    const { home, repo } = workspace();
    const [first, second] = [join(repo, "first-ran"), join(repo, "second-ran")];
    claudeHook(repo, first);
    expect((await trust(home, repo)).code).toBe(0);
    claudeHook(repo, second);
    const client = new AcpClient({ home, cwd: repo, env: env(), args: ["acp", "--model", MODEL] });
    try {
      client.answers = ["allow"];
      await client.initialize();
      await client.newSession(repo);
      await client.until(() => client.permissions.length === 1);
      expect(JSON.stringify(client.permissions[0]!.toolCall.rawInput)).toContain(`touch ${second}`);
      // The answer is recorded as the new pin: the trust store then holds the changed hook.
      const store = join(home, ".omp", "agent", "trusted-folders.json");
      await eventually(() => (readFileSync(store, "utf8").includes(`touch ${second}`) ? true : undefined), "the accepted change in the trust store", 30_000);
    } finally {
      await client.close();
    }
    expect(existsSync(second)).toBe(false);
    await print(home, repo);
    expect(existsSync(second)).toBe(true);
  });
});
