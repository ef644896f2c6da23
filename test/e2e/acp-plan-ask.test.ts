// Questions and plans over ACP, with the SDK's own client side: the ask tool's single-choice
// question arrives as session/request_permission with its options and "Answer later"; the chosen
// option reaches the model. In plan mode exit_plan_mode's steps appear as a plan update, the plan
// is approved through request_permission, current_mode_update reports the switch, and the edit runs.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AcpClient } from "../support/acp-client.ts";
import { agentTestFile, modelRequests, toolResultsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });
const results = () => toolResultsOf("anthropic-messages", modelRequests(standin).at(-1)!.body);

describe("omp acp: questions and plans", () => {
  test("an ask question goes to the editor as request_permission; the chosen option, then Answer later, reach the model", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { toolCalls: [{ name: "ask", arguments: { questions: [{ question: "Which database?", options: ["Postgres", "SQLite"] }] } }] },
      { toolCalls: [{ name: "ask", arguments: { questions: [{ question: "Which port?", options: ["8080", "3000"] }] } }] },
      { toolCalls: [{ name: "ask", arguments: { questions: [{ question: "Your name?" }] } }] },
      { text: "ok" },
    ]);
    const c = new AcpClient({ home, cwd: repo, env: env(), args: ["acp", "--model", MODEL, "--approval-mode", "yolo"] });
    try {
      await c.initialize(false);
      const { sessionId } = await c.newSession(repo);
      c.answers = ["1", "later"];
      expect((await c.prompt(sessionId, "set it up")).stopReason).toBe("end_turn");
      expect(c.permissions).toHaveLength(2);
      expect(c.permissions[0]!.toolCall.title).toBe("Which database?");
      expect(c.permissions[0]!.options.map((o) => [o.name, o.kind])).toEqual([
        ["Postgres", "allow_once"],
        ["SQLite", "allow_once"],
        ["Answer later", "reject_once"],
      ]);
    } finally {
      await c.close();
    }
    const [database, port, name] = results();
    expect(database!.text).toBe("Which database?\n→ SQLite");
    expect(port!.text).toContain("did not answer");
    // ACP has no stable way to type an answer: a free-text question goes back unanswered, without asking.
    expect(name!.text).toContain("did not answer");
  });

  test("plan mode: the plan's steps arrive as a plan update, approving it through request_permission switches the mode and the edit runs", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { toolCalls: [{ name: "write", arguments: { path: "README.md", content: "# too early\n" } }] },
      { toolCalls: [{ name: "exit_plan_mode", arguments: { plan: "Retitle the README", steps: ["Retitle README.md", "Check it"] } }] },
      { toolCalls: [{ name: "write", arguments: { path: "README.md", content: "# planned\n" } }] },
      { text: "done" },
    ]);
    const c = new AcpClient({ home, cwd: repo, env: env(), args: ["acp", "--model", MODEL, "--approval-mode", "plan"] });
    try {
      await c.initialize(false);
      const session = await c.newSession(repo);
      expect(session.modes?.currentModeId).toBe("plan");
      c.answers = ["1"];
      expect((await c.prompt(session.sessionId, "retitle")).stopReason).toBe("end_turn");
      const ask = c.permissions[0]!;
      expect(ask.options.map((o) => [o.name, o.kind])).toEqual([
        ["Approve", "allow_once"],
        ["Approve, auto-accept edits", "allow_always"],
        ["Keep planning", "reject_once"],
      ]);
      expect(JSON.stringify(ask.toolCall.content)).toContain("Retitle the README");
      expect(c.updatesOf("plan")[0]!.entries.map((e) => [e.content, e.status])).toEqual([
        ["Retitle README.md", "pending"],
        ["Check it", "pending"],
      ]);
      expect(c.updatesOf("current_mode_update").map((u) => u.currentModeId)).toEqual(["auto-accept"]);
    } finally {
      await c.close();
    }
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# planned\n");
    const all = results();
    expect(all[0]!.text).toContain("plan mode");
    expect(all[1]!.text).toContain("approved the plan");
  });
});
