// Hooks and subagents in json and rpc modes: a blocked call in the event stream, SessionEnd on
// new_session and on exit, and a subagent's usage counted in the parent's session stats.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, frames, modelRequests, providerCases, runAgent, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

function writeHooks(home: string, hooks: unknown): void {
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(home, ".omp", "agent", "config.yml"), JSON.stringify({ hooks }));
}
const command = (text: string, matcher?: string) => ({ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: text }] });

test("json mode: a call blocked by a PreToolUse hook is an error result in the event stream", async () => {
  const { home, repo } = workspace();
  writeHooks(home, { PreToolUse: [command("echo 'blocked in json' >&2; exit 2", "Bash")] });
  standin.setScript([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "ok" }]);
  const result = await runAgent(["--mode", "json", "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) });
  expect(result.code).toBe(0);
  const events = frames(result.stdout.trim().split("\n"));
  const end = events.find((event) => event.type === "tool_execution_end");
  expect(end).toMatchObject({ toolName: "bash", isError: true, details: { blocked: true } });
  const message = events.find((event) => event.type === "message_end" && event.message.role === "toolResult");
  expect(message.message.content[0].text).toBe("blocked in json");
});

test("rpc: hooks run, a subagent's usage counts in the parent's stats, SessionEnd fires on new_session and on exit", async () => {
  const { home, repo } = workspace();
  const log = join(home, "events.log");
  writeHooks(home, {
    SessionStart: [command("echo 'rpc context'")],
    SessionEnd: [command(`cat >> ${log}; echo >> ${log}`)],
  });
  standin.setScript([
    { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "general-purpose", description: "look", prompt: "look around" } }], usage: { input: 100, output: 10 } },
    { text: "looked", usage: { input: 1000, output: 50 } },
    { text: "done", usage: { input: 200, output: 20 } },
  ]);
  standin.requests.length = 0;
  const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
  const mark = rpc.mark;
  expect((await rpc.send({ type: "prompt", message: "go" })).success).toBe(true);
  await rpc.waitFrame((frame) => frame.type === "agent_end", mark);
  const stats = await rpc.send({ type: "get_session_stats" });
  expect(stats.data.tokens.input).toBe(1300);
  expect(stats.data.tokens.output).toBe(80);
  const [first, child] = modelRequests(standin).map((r) => r.body);
  expect(userTextsOf(provider.api, first)[0]).toContain("rpc context");
  // The subagent is a session of its own: no SessionStart context of the parent's prompt.
  expect(userTextsOf(provider.api, child)).toEqual(["look around"]);
  expect(toolResultsOf(provider.api, modelRequests(standin)[2]!.body)[0]!.text).toBe("looked");

  expect((await rpc.send({ type: "new_session" })).success).toBe(true);
  expect(await rpc.close()).toBe(0);
  const ends = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  // The subagent's end is not a SessionEnd: only the two sessions of this process end.
  expect(ends.map((event) => [event.hook_event_name, event.reason])).toEqual([
    ["SessionEnd", "clear"],
    ["SessionEnd", "other"],
  ]);
});
