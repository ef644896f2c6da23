// Sessions that never dead-end, on the compiled binary against the stand-in, which enforces
// Anthropic's preserved-thinking prefix check: a 400 when the system prompt, the tools or an earlier
// message changed behind a signed thinking block. Compaction, resuming after the working tree
// changed, after a commit, and on the session's own model and thinking level.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, readJsonl, runAgent, sessionFiles, systemPromptOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();

const ANTHROPIC = "anthropic/claude-opus-5-5";
const antKey = `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}`;
const oaiKey = `omptest_oai_${crypto.randomUUID().replaceAll("-", "")}`;
const anthropicEnv = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: antKey });
const bothEnv = () => ({ ...anthropicEnv(), OPENAI_BASE_URL: `${standin.url}/v1`, OPENAI_API_KEY: oaiKey });

/** The signatures of the thinking blocks a request sends back. */
function signaturesOf(body: any): (string | undefined)[] {
  return body.messages.flatMap((m: any) => (m.role === "assistant" ? m.content.filter((b: any) => b.type === "thinking").map((b: any) => b.signature) : []));
}

function git(cwd: string, ...args: string[]): void {
  const result = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH, HOME: cwd, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@e" } });
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
}

describe("preserved thinking", () => {
  test("a session that compacts, then is resumed after a file changed and after a commit, keeps working", async () => {
    const { home, repo } = workspace();
    const env = anthropicEnv();
    standin.setScript([
      { thinking: "t1", text: "one done" },
      { thinking: "t2", text: "two done" },
      { text: "SUMMARY of one and two" },
      { thinking: "t3", text: "three done" },
      { thinking: "t4", text: "four done" },
      { thinking: "t5", text: "five done" },
    ]);
    const start = standin.requests.length;
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "compaction:\n  keepRecentTokens: 5\n");
    const rpc = new RpcProcess(["--model", ANTHROPIC, "--thinking", "high"], { home, cwd: repo, env });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      for (const message of ["one", "two"]) {
        const mark = rpc.mark;
        await rpc.send({ type: "prompt", message });
        const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
        expect(end.error).toBeUndefined();
      }
      expect((await rpc.send({ type: "compact" })).data.compacted).toBe(true);
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "three" });
      const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(end.error).toBeUndefined();
      expect(end.stopReason).toBe("stop");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    const requests = modelRequests(standin).filter((r) => standin.requests.indexOf(r) >= start);
    // After the compaction the kept turn's thinking is no longer signed (its prefix changed)...
    const afterCompaction = requests[3]!.body;
    expect(signaturesOf(afterCompaction).every((s) => s === undefined)).toBe(true);
    expect(JSON.stringify(afterCompaction)).toContain("two done");
    expect(requests.slice(0, 4).every((r) => r.body.system)).toBe(true);
    const systemPrompt = systemPromptOf("anthropic-messages", requests[0]!.body);
    expect(systemPromptOf("anthropic-messages", afterCompaction)).toBe(systemPrompt);

    // ...the next day, after a file changed: the stored system prompt is sent again, and the
    // change is told in the new message instead.
    writeFileSync(join(repo, "README.md"), "# demo, edited\n");
    const resumed = await runAgent(["-p", "-c", "four"], { home, cwd: repo, env });
    expect(resumed.stderr).toBe("");
    expect(resumed.stdout).toContain("four done");
    const fourth = modelRequests(standin).at(-1)!.body;
    expect(systemPromptOf("anthropic-messages", fourth)).toBe(systemPrompt);
    expect(signaturesOf(fourth).filter(Boolean).length).toBeGreaterThan(0);
    const told = userTextsOf("anthropic-messages", fourth).at(-1)!;
    expect(told).toContain("<context-update>");
    expect(told).toContain("README.md");
    expect(told).toContain("four");

    git(repo, "commit", "-qam", "edit readme");
    const afterCommit = await runAgent(["-p", "-c", "five"], { home, cwd: repo, env });
    expect(afterCommit.stderr).toBe("");
    expect(afterCommit.stdout).toContain("five done");
    const fifth = modelRequests(standin).at(-1)!.body;
    expect(systemPromptOf("anthropic-messages", fifth)).toBe(systemPrompt);
    expect(userTextsOf("anthropic-messages", fifth).at(-1)).toContain("Working tree: clean");
    // Every request passed the stand-in's prefix check: one request per scripted turn.
    expect(modelRequests(standin).filter((r) => standin.requests.indexOf(r) >= start)).toHaveLength(6);
  });

  test("a refused thinking block is dropped and the turn sent once more; the session remembers", async () => {
    const { home, repo } = workspace();
    const env = anthropicEnv();
    standin.setScript([{ thinking: "t1", text: "one done" }, { thinking: "t2", text: "two done" }, { text: "three done" }]);
    expect((await runAgent(["-p", "--model", ANTHROPIC, "one"], { home, cwd: repo, env })).code).toBe(0);
    const file = sessionFiles(home)[0]!;
    // A signature the API did not issue (another key's, a proxy's rewrite): refused whatever the prefix.
    writeFileSync(file, readFileSync(file, "utf8").replace(/sig_standin_\d+/, "sig_foreign"));
    const before = modelRequests(standin).length;
    const two = await runAgent(["-p", "-c", "two"], { home, cwd: repo, env });
    expect(two.code).toBe(0);
    expect(two.stdout).toContain("two done");
    const sent = modelRequests(standin).slice(before);
    expect(sent).toHaveLength(2);
    expect(signaturesOf(sent[0]!.body)).toEqual(["sig_foreign"]);
    expect(signaturesOf(sent[1]!.body)).toEqual([undefined]);
    expect(readJsonl(file).some((e) => e.type === "custom" && e.customType === "omp.thinking_dropped")).toBe(true);
    // The resume after that sends no foreign signature again: one request.
    const three = await runAgent(["-p", "-c", "three"], { home, cwd: repo, env });
    expect(three.stdout).toContain("three done");
    expect(modelRequests(standin).slice(before + 2)).toHaveLength(1);
  });
});

describe("resume", () => {
  test("comes back on the session's model and thinking level; an explicit --model wins and is recorded", async () => {
    const { home, repo } = workspace();
    const env = bothEnv();
    standin.setScript([{ text: "on gpt" }, { text: "still gpt" }, { text: "now claude" }]);
    const first = await runAgent(["-p", "--model", "openai/gpt-6.2-sol", "--thinking", "high", "one"], { home, cwd: repo, env });
    expect(first.code).toBe(0);
    // Without -c this would start on the default model (Anthropic's, whose key is set too).
    const again = await runAgent(["-p", "-c", "two"], { home, cwd: repo, env });
    expect(again.code).toBe(0);
    const second = modelRequests(standin).at(-1)!;
    expect(second.path).toBe("/v1/responses");
    expect(second.body.model).toBe("gpt-6.2-sol");
    expect(second.body.reasoning?.effort).toBe("high");
    const switched = await runAgent(["-p", "-c", "--model", ANTHROPIC, "three"], { home, cwd: repo, env });
    expect(switched.code).toBe(0);
    expect(modelRequests(standin).at(-1)!.path).toBe("/v1/messages");
    const entries = readJsonl(sessionFiles(home)[0]!);
    expect(entries.filter((e) => e.type === "model_change").map((e) => e.model)).toEqual(["openai/gpt-6.2-sol", ANTHROPIC]);
    expect(entries.find((e) => e.type === "thinking_level_change")?.thinkingLevel).toBe("high");
  });

  test("rpc switch_session restores the session's model", async () => {
    const { home, repo } = workspace();
    const env = bothEnv();
    standin.setScript([{ text: "on gpt" }, { text: "back on gpt" }]);
    expect((await runAgent(["-p", "--model", "openai/gpt-6.2-sol", "one"], { home, cwd: repo, env })).code).toBe(0);
    const path = sessionFiles(home)[0]!;
    const rpc = new RpcProcess(["--model", ANTHROPIC], { home, cwd: repo, env });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const switched = await rpc.send({ type: "switch_session", sessionPath: path });
      expect(switched.data.model).toEqual({ provider: "openai", id: "gpt-6.2-sol" });
      expect((await rpc.send({ type: "get_state" })).data.model.id).toBe("gpt-6.2-sol");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "two" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(modelRequests(standin).at(-1)!.path).toBe("/v1/responses");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });
});

describe("session files", () => {
  test("x/a-b and x/a/b are two projects: -c in one never continues the other's conversation", async () => {
    const { home, repo } = workspace();
    const env = anthropicEnv();
    const dashed = join(repo, "x", "a-b");
    const nested = join(repo, "x", "a", "b");
    mkdirSync(dashed, { recursive: true });
    mkdirSync(nested, { recursive: true });
    standin.setScript([{ text: "in dashed" }, { text: "in nested" }, { text: "dashed again" }]);
    expect((await runAgent(["-p", "--model", ANTHROPIC, "secret plan of a-b"], { home, cwd: dashed, env })).code).toBe(0);
    expect((await runAgent(["-p", "--model", ANTHROPIC, "plan of a/b"], { home, cwd: nested, env })).code).toBe(0);
    const again = await runAgent(["-p", "-c", "go on"], { home, cwd: dashed, env });
    expect(again.code).toBe(0);
    const sent = userTextsOf("anthropic-messages", modelRequests(standin).at(-1)!.body).join("\n");
    expect(sent).toContain("secret plan of a-b");
    expect(sent).not.toContain("plan of a/b");
    expect(new Set(sessionFiles(home).map((path) => path.split("/").at(-2))).size).toBe(2);
  });

  test("a second omp continuing a session that is open forks it and says so; the first keeps its file", async () => {
    const { home, repo } = workspace();
    const env = anthropicEnv();
    standin.setScript([{ text: "first" }, { text: "from the second" }, { text: "from the first" }]);
    const rpc = new RpcProcess(["--model", ANTHROPIC], { home, cwd: repo, env });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      let mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "one" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const original = (await rpc.send({ type: "get_state" })).data.sessionFile;
      const second = await runAgent(["-p", "-c", "two"], { home, cwd: repo, env });
      expect(second.code).toBe(0);
      expect(second.stderr).toContain("is open in another omp");
      expect(second.stderr).toContain("fork");
      const files = sessionFiles(home);
      expect(files).toHaveLength(2);
      const fork = files.find((path) => path !== original)!;
      const forkEntries = readJsonl(fork);
      expect(forkEntries[0].parentSession).toBe(original);
      expect(JSON.stringify(forkEntries)).toContain('"one"');
      expect(JSON.stringify(forkEntries)).toContain("from the second");
      mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "three" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(await rpc.close()).toBe(0);
      const originalText = readFileSync(original, "utf8");
      expect(originalText).toContain("from the first");
      expect(originalText).not.toContain("from the second");
      // Once the first has exited, -c continues the most recent one in place.
      standin.setScript([{ text: "alone now" }]);
      const third = await runAgent(["-p", "-c", "four"], { home, cwd: repo, env });
      expect(third.stderr).toBe("");
      expect(sessionFiles(home)).toHaveLength(2);
    } finally {
      rpc.child.kill();
    }
  });

  test("a newer session with a damaged header is skipped and named; -c continues the last good one, -r lists it as damaged", async () => {
    const { home, repo } = workspace();
    const env = anthropicEnv();
    standin.setScript([{ text: "good one" }, { text: "continued" }]);
    expect((await runAgent(["-p", "--model", ANTHROPIC, "remember me"], { home, cwd: repo, env })).code).toBe(0);
    const good = sessionFiles(home)[0]!;
    const broken = join(good, "..", "2099-01-01T00-00-00-000Z_broken.jsonl");
    writeFileSync(broken, '{"type":"sessi\n');
    const resumed = await runAgent(["-p", "-c", "and now"], { home, cwd: repo, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("2099-01-01T00-00-00-000Z_broken.jsonl: damaged");
    expect(userTextsOf("anthropic-messages", modelRequests(standin).at(-1)!.body)).toContain("remember me");
    const listed = await runAgent(["-r"], { home, cwd: repo, env });
    expect(listed.stdout).toContain("remember me");
    expect(listed.stdout).toMatch(/damaged .*_broken\.jsonl/);
  });
});
