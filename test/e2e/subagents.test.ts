// The task tool in the compiled binary: a subagent from an agent file runs with its own system
// prompt, tools and context, its report comes back as the task's result, its transcript is a
// child session file; several tasks of one reply run at the same time.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, providerCases, readJsonl, runAgent, sessionFiles, systemPromptOf, toolNamesOf, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;
const api = provider.api;

const REVIEWER = `---
name: reviewer
description: Reviews shell code for arithmetic bugs
tools: Read, Grep
model: inherit
color: blue
---
You are the reviewer agent (marker R-77). Report bugs in one line.
`;

test("a subagent runs with its file's system prompt and tools; its report is the task's result and its transcript a child session", async () => {
  const { home, repo } = workspace();
  mkdirSync(join(repo, ".claude", "agents"), { recursive: true });
  writeFileSync(join(repo, ".claude", "agents", "reviewer.md"), REVIEWER);
  writeFileSync(join(repo, ".claude", "agents", "broken.md"), "---\nname: broken\n---\nno description\n");
  standin.setScript([
    { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "reviewer", description: "review math", prompt: "review src/math.sh" } }] },
    { toolCalls: [{ id: "r1", name: "read", arguments: { path: "src/math.sh" } }] },
    { text: "Bug: add() subtracts." },
    { text: "The reviewer found that add() subtracts." },
  ]);
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", provider.model, "get the math reviewed"], { home, cwd: repo, env: provider.env(standin.url) });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("The reviewer found that add() subtracts.\n");
  expect(result.stderr).toContain("broken.md: frontmatter description");
  const [parent, child1, child2, parentAgain] = modelRequests(standin).map((r) => r.body);

  const taskTool = parent.tools.find((tool: any) => tool.name === "task");
  expect(taskTool.description).toContain("- reviewer: Reviews shell code for arithmetic bugs");
  expect(taskTool.description).toContain("- general-purpose: ");
  expect(systemPromptOf(api, parent)).not.toContain("R-77");

  expect(systemPromptOf(api, child1)).toStartWith("You are the reviewer agent (marker R-77).");
  expect(toolNamesOf(api, child1)).toEqual(["read", "grep"]);
  expect(userTextsOf(api, child1)).toEqual(["review src/math.sh"]);
  expect(toolResultsOf(api, child2)[0]!.text).toContain("echo $(( $1 - $2 ))");

  const [report] = toolResultsOf(api, parentAgain);
  expect(report!.text).toBe("Bug: add() subtracts.");
  expect(report!.isError).toBe(false);

  const files = sessionFiles(home);
  const main = files.find((file) => !file.includes("subagents"))!;
  const entries = readJsonl(main);
  const taskResult = entries.find((entry) => entry.message?.role === "toolResult" && entry.message.toolName === "task");
  const childFile = taskResult.message.details.sessionFile as string;
  expect(existsSync(childFile)).toBe(true);
  const childEntries = readJsonl(childFile);
  expect(childEntries[0]).toMatchObject({ type: "session", parentSession: main, title: "reviewer: review math" });
  expect(childEntries.filter((entry) => entry.type === "message").map((entry) => entry.message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
});

test("tasks of one reply run in parallel, and an unknown agent type is an error the model can read", async () => {
  const { home, repo } = workspace();
  const task = (id: string, subagent_type = "general-purpose") => ({ id, name: "task", arguments: { subagent_type, description: id, prompt: `do ${id}` } });
  standin.setScript([
    { toolCalls: [task("a"), task("b"), task("c", "nobody")] },
    { text: "report", delayMs: 1500 },
    { text: "report", delayMs: 1500 },
    { text: "both done" },
  ]);
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", provider.model, "do a and b"], { home, cwd: repo, env: provider.env(standin.url) });
  expect(result.code).toBe(0);
  const requests = modelRequests(standin);
  expect(requests).toHaveLength(4);
  // The second subagent's request arrived before the first one's answer was sent.
  expect(requests[2]!.receivedAt).toBeLessThan(requests[1]!.respondedAt!);
  const results = toolResultsOf(api, requests[3]!.body);
  expect(results.map((r) => r.text)).toEqual(["report", "report", expect.stringContaining('There is no agent type "nobody". Available: general-purpose')]);
  expect(toolNamesOf(api, requests[1]!.body)).not.toContain("task");
});

test("aborting the run stops a subagent mid-request", async () => {
  const { home, repo } = workspace();
  standin.setScript([
    { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "general-purpose", description: "slow", prompt: "take your time" } }] },
    { text: "never sent", delayMs: 30_000 },
  ]);
  standin.requests.length = 0;
  const started = Date.now();
  const result = await runAgent(["-p", "--max-time", "2", "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) });
  expect(result.code).toBe(124);
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(modelRequests(standin)).toHaveLength(2);
});

test("in a resumed session a subagent still gets its own system prompt and tools, not the parent's stored ones", async () => {
  const { home, repo } = workspace();
  mkdirSync(join(repo, ".claude", "agents"), { recursive: true });
  writeFileSync(join(repo, ".claude", "agents", "reviewer.md"), REVIEWER);
  const env = provider.env(standin.url);
  standin.setScript([{ text: "first answer" }]);
  expect((await runAgent(["-p", "--model", provider.model, "hello"], { home, cwd: repo, env })).code).toBe(0);
  standin.setScript([
    { toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "reviewer", description: "review math", prompt: "review src/math.sh" } }] },
    { text: "Bug: add() subtracts." },
    { text: "done" },
  ]);
  standin.requests.length = 0;
  expect((await runAgent(["-p", "-c", "--model", provider.model, "get it reviewed"], { home, cwd: repo, env })).code).toBe(0);
  const [, child] = modelRequests(standin).map((r) => r.body);
  expect(systemPromptOf(api, child)).toStartWith("You are the reviewer agent (marker R-77).");
  expect(toolNamesOf(api, child)).toEqual(["read", "grep"]);
});
