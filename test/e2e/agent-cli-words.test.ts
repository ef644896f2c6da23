// Settings and command-line words that say what they mean, on the compiled binary: command
// words and typos get a hint instead of a paid prompt, `omp config set model` checks the model,
// `omp config unset`, SIGTERM's exit status, and @mentions of files that do not exist.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, spawnOmp, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

describe("words that are commands", () => {
  test("the original's commands and typos of ours get a hint, and no request is made", async () => {
    const { home, repo } = workspace();
    const before = modelRequests(standin).length;
    for (const [word, hint] of [
      ["gallery", "`omp gallery` is not a command of this omp"],
      ["updte", "did you mean `omp update`?"],
      ["modls", "did you mean `omp models`?"],
    ] as const) {
      const result = await runAgent([word], { home, cwd: repo, env: env() });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(hint);
      expect(result.stderr).toContain(`omp -p ${word}`);
    }
    expect(modelRequests(standin).length).toBe(before);
    // With -p it is a prompt, as asked.
    standin.setScript([{ text: "ok" }]);
    expect((await runAgent(["-p", "updte", "--model", "anthropic/claude-opus-5-5"], { home, cwd: repo, env: env() })).code).toBe(0);
    expect(modelRequests(standin).length).toBe(before + 1);
  });

  test("an @mention of a file that does not exist is sent as text with a warning, as Claude Code sends it (issue 27)", async () => {
    const { home, repo } = workspace();
    const before = modelRequests(standin).length;
    standin.setScript([{ text: "ok" }]);
    const result = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "explain @docs/missing.md and @pytest.fixture please"], { home, cwd: repo, env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("@docs/missing.md: no such file");
    expect(modelRequests(standin).length).toBe(before + 1);
    expect(JSON.stringify(modelRequests(standin).at(-1)!.body)).toContain("@pytest.fixture please");
    // As an argument of its own (`omp -p @nofile.txt`), it is said once.
    standin.setScript([{ text: "ok" }]);
    const alone = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "summarise", "@nofile.txt"], { home, cwd: repo, env: env() });
    expect(alone.code).toBe(0);
    expect(alone.stderr.split("\n").filter((line) => line.includes("nofile.txt"))).toEqual([`omp: @nofile.txt: no such file (looked in ${repo}); sent as text`]);
  });
});

describe("omp config", () => {
  test("set model checks the model; unset removes a setting and keeps the rest", async () => {
    const { home, repo } = workspace();
    const bad = await runAgent(["config", "set", "model", "claude-opuss-9"], { home, cwd: repo, env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown model "claude-opuss-9"');
    expect((await runAgent(["config", "set", "model", "opus:high"], { home, cwd: repo, env: env() })).code).toBe(0);
    expect((await runAgent(["config", "set", "retry.maxRetries", "3"], { home, cwd: repo, env: env() })).code).toBe(0);
    const unset = await runAgent(["config", "unset", "model"], { home, cwd: repo, env: env() });
    expect(unset.code).toBe(0);
    expect(unset.stdout).toContain("model removed");
    const text = readFileSync(join(home, ".omp", "agent", "config.yml"), "utf8");
    expect(text).not.toContain("opus");
    expect(text).toContain("maxRetries: 3");
    expect((await runAgent(["config", "unset", "model"], { home, cwd: repo, env: env() })).stdout).toContain("was not set");
    expect((await runAgent(["config", "unset", "modle"], { home, cwd: repo, env: env() })).stderr).toContain("did you mean model?");
  });
});

describe("signals", () => {
  test("SIGTERM during a run saves the session and exits 143", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "a slow answer", pauseAfterEvents: 3, pauseMs: 20_000 }]);
    const child = spawnOmp(["-p", "--model", "anthropic/claude-opus-5-5", "go"], { home, cwd: repo, env: env() });
    child.stdin.end();
    const stdout = new Response(child.stdout).text();
    for (let i = 0; i < 100 && !standin.requests.some((r) => r.method === "POST" && r.body?.messages?.at(-1)?.content?.[0]?.text === "go"); i++) await Bun.sleep(50);
    await Bun.sleep(300);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(143);
    await stdout;
  });
});
