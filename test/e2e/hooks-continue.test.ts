// A hook's `continue: false` stops the run that is going once the current tools are done, with
// its stopReason shown: after a PostToolUse (the tool ran, no further model request) and before
// a call (PreToolUse: the call is not run), in print and json modes.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { script, writeHooks } from "../support/hook-scripts.ts";
import { agentTestFile, frames, modelRequests, providerCases, runAgent, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

const STOP = `cat > /dev/null\necho '{"continue": false, "stopReason": "budget exhausted: ask the user"}'`;

async function run(home: string, repo: string, args: string[]) {
  standin.requests.length = 0;
  const result = await runAgent([...args, "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) });
  return { ...result, requests: modelRequests(standin).length };
}

describe("continue: false", () => {
  test("from PostToolUse: the tool ran, every call of the turn finished, then the run stops with the stopReason (print)", async () => {
    const { home, repo } = workspace();
    writeHooks(join(home, ".omp", "agent", "config.yml"), { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: script(home, "stop.sh", STOP) }] }] });
    standin.setScript([
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "touch first" } }, { id: "c2", name: "write", arguments: { path: "second.txt", content: "x\n" } }] },
      { toolCalls: [{ id: "c3", name: "bash", arguments: { command: "touch never" } }] },
      { text: "never reached" },
    ]);
    const result = await run(home, repo, ["-p"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(repo, "first"))).toBe(true);
    expect(existsSync(join(repo, "second.txt"))).toBe(true);
    expect(existsSync(join(repo, "never"))).toBe(false);
    expect(result.requests).toBe(1);
    expect(result.stderr).toContain("omp: a hook stopped the run: budget exhausted: ask the user");
  });

  test("from PreToolUse: the call is not run and agent_end carries stopReason hook with the reason (json)", async () => {
    const { home, repo } = workspace();
    writeHooks(join(home, ".omp", "agent", "config.yml"), { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: script(home, "stop.sh", STOP) }] }] });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "touch blocked" } }] }, { text: "never reached" }]);
    const result = await run(home, repo, ["--mode", "json"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(repo, "blocked"))).toBe(false);
    expect(result.requests).toBe(1);
    const end = frames(result.stdout.split("\n")).find((frame) => frame.type === "agent_end");
    expect(end).toMatchObject({ stopReason: "hook", error: "a hook stopped the run: budget exhausted: ask the user" });
  });
});
