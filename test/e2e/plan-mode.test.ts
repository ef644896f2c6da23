// Plan mode and the ask tool on the compiled binary, through rpc and print mode: in plan mode read,
// grep and read-only commands run while an edit and `rm` are refused; exit_plan_mode asks the host
// to approve the plan (question_request / answer_question), approving switches the mode and the
// edit runs in the same run; the mode is kept in the session; the ask tool's questions go to the
// host and its answer, a dismissal or a timeout reaches the model; print mode offers no ask tool.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, readJsonl, runAgent, toolNamesOf, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";
const API = "anthropic-messages";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });
const lastRequest = () => modelRequests(standin).at(-1)!.body;

describe("plan mode", () => {
  test("refuses an edit and rm but runs read, grep and ls; approving the plan over rpc switches the mode and the edit runs; resume keeps the mode", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { toolCalls: [{ name: "read", arguments: { path: "README.md" } }, { name: "grep", arguments: { pattern: "demo" } }, { name: "bash", arguments: { command: "ls src" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "README.md", edits: [{ oldText: "# demo", newText: "# planned" }] } }, { name: "bash", arguments: { command: "rm test.sh" } }] },
      { toolCalls: [{ name: "exit_plan_mode", arguments: { plan: "## Plan\nRename the title.", steps: ["Rename the README title"] } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "README.md", edits: [{ oldText: "# demo", newText: "# planned" }] } }] },
      { text: "done" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL, "--approval-mode", "plan", "--sandbox", "off"], { home, cwd: repo, env: env() });
    let sessionFile: string;
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.send({ type: "get_state" })).data.mode).toBe("plan");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "retitle the readme" });
      const request = await rpc.waitFrame((f) => f.type === "question_request", mark);
      expect(request).toMatchObject({ kind: "plan", plan: "## Plan\nRename the title.", questions: [{ options: ["Approve", "Approve, auto-accept edits", "Keep planning"] }] });
      // Until the plan is approved nothing changed.
      expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# demo\n");
      expect(existsSync(join(repo, "test.sh"))).toBe(true);
      const planRequests = modelRequests(standin);
      const firstBody = planRequests.at(-1)!.body;
      expect(toolNamesOf(API, firstBody)).toContain("exit_plan_mode");
      expect(userTextsOf(API, firstBody).join("\n")).toContain("Plan mode");
      const results = toolResultsOf(API, firstBody);
      expect(results.slice(0, 3).map((r) => r.isError)).toEqual([false, false, false]);
      expect(results[2]!.text).toContain("math.sh");
      expect(results[3]).toMatchObject({ isError: true });
      expect(results[3]!.text).toContain("plan mode");
      expect(results[4]).toMatchObject({ isError: true });
      expect(results[4]!.text).toContain("exit_plan_mode");

      const answered = await rpc.send({ type: "answer_question", questionId: request.id, answers: [["Approve, auto-accept edits"]] });
      expect(answered).toMatchObject({ success: true, data: { mode: "auto-accept" } });
      const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(end.stopReason).toBe("stop");
      expect((await rpc.send({ type: "answer_question", questionId: request.id, answers: [["Approve"]] })).error).toContain("no question");
      sessionFile = (await rpc.send({ type: "get_state" })).data.sessionFile;
      expect((await rpc.send({ type: "set_mode", mode: "plan" })).data).toEqual({ mode: "plan" });
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# planned\n");
    const approved = toolResultsOf(API, lastRequest());
    expect(approved.at(-2)!.text).toContain("approved the plan");
    expect(approved.at(-2)!.text).toContain("[ ] Rename the README title");
    expect(approved.at(-1)!.isError).toBe(false);
    // The mode is in the session: the last change was to plan, and a resume comes back in it.
    expect(readJsonl(sessionFile).filter((e) => e.type === "mode_change").map((e) => e.mode)).toEqual(["plan", "auto-accept", "plan"]);
    const resumed = new RpcProcess(["--model", MODEL, "-c"], { home, cwd: repo, env: env() });
    try {
      await resumed.waitFrame((f) => f.type === "ready");
      expect((await resumed.send({ type: "get_state" })).data.mode).toBe("plan");
      expect(await resumed.close()).toBe(0);
    } finally {
      resumed.child.kill();
    }
  });

  test("--plan: plan mode runs on the plan role's model; approving the plan goes back to the session's model for the work", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { toolCalls: [{ name: "exit_plan_mode", arguments: { plan: "## Plan\nRename the title.", steps: ["Rename the README title"] } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "README.md", edits: [{ oldText: "# demo", newText: "# planned" }] } }] },
      { text: "done" },
    ]);
    const before = modelRequests(standin).length;
    const rpc = new RpcProcess(["--model", MODEL, "--plan", "anthropic/claude-sonnet-4-5", "--approval-mode", "plan", "--sandbox", "off"], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "retitle the readme" });
      const request = await rpc.waitFrame((f) => f.type === "question_request", mark);
      await rpc.send({ type: "answer_question", questionId: request.id, answers: [["Approve"]] });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect((await rpc.send({ type: "get_state" })).data.model).toMatchObject({ id: "claude-opus-5-5" });
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    expect(modelRequests(standin).slice(before).map((r) => r.body.model)).toEqual(["claude-sonnet-4-5", "claude-opus-5-5", "claude-opus-5-5"]);
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# planned\n");
  });

  test("keep planning sends the user's feedback back; print mode in plan mode refuses changes and offers neither ask nor exit_plan_mode", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "x" } }] }, { text: "Here is my plan: write new.txt" }]);
    const run = await runAgent(["-p", "--model", MODEL, "--approval-mode", "plan", "make new.txt"], { home, cwd: repo, env: env() });
    expect(run.code).toBe(0);
    expect(existsSync(join(repo, "new.txt"))).toBe(false);
    const body = lastRequest();
    expect(toolNamesOf(API, body)).not.toContain("ask");
    expect(toolNamesOf(API, body)).not.toContain("exit_plan_mode");
    expect(toolResultsOf(API, body)[0]!.text).toContain("plan mode");
    expect(userTextsOf(API, body).join("\n")).toContain("end your turn with your plan");

    standin.setScript([
      { toolCalls: [{ name: "exit_plan_mode", arguments: { plan: "Delete everything", steps: ["rm -rf"] } }] },
      { text: "revised" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      expect((await rpc.send({ type: "set_mode", mode: "plan" })).success).toBe(true);
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "clean up" });
      const request = await rpc.waitFrame((f) => f.type === "question_request", mark);
      await rpc.send({ type: "answer_question", questionId: request.id, answers: [["keep the tests, remove only build output"]] });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect((await rpc.send({ type: "get_state" })).data.mode).toBe("plan");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    const result = toolResultsOf(API, lastRequest()).at(-1)!.text;
    expect(result).toContain("did not approve");
    expect(result).toContain("keep the tests, remove only build output");
  });
});

describe("ask tool", () => {
  test("rpc round trip: the question goes out as question_request, the answer reaches the model; a dismissal and a timeout say the user did not answer", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "questions:\n  timeoutSeconds: 1\n");
    const questions = [{ question: "Which database?", options: ["Postgres", "SQLite"] }, { question: "Which features?", options: ["auth", "billing", "search"], multiple: true }];
    standin.setScript([
      { toolCalls: [{ name: "ask", arguments: { questions } }] },
      { toolCalls: [{ name: "ask", arguments: { questions: [{ question: "Project name?" }] } }] },
      { toolCalls: [{ name: "ask", arguments: { questions: [{ question: "Anything else?" }] } }] },
      { text: "ok" },
    ]);
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "set up the project" });
      const first = await rpc.waitFrame((f) => f.type === "question_request", mark);
      expect(first).toMatchObject({ kind: "ask", questions, timeoutMs: 1000 });
      expect((await rpc.send({ type: "answer_question", questionId: first.id, answers: [["SQLite"], ["auth", "my own: audit log"]] })).success).toBe(true);
      const second = await rpc.waitFrame((f) => f.type === "question_request" && f.id !== first.id, mark);
      await rpc.send({ type: "answer_question", questionId: second.id });
      // The third is left unanswered: the timeout answers for the user.
      const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(end.stopReason).toBe("stop");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
    const body = lastRequest();
    expect(toolNamesOf(API, body)).toContain("ask");
    const results = toolResultsOf(API, body);
    expect(results[0]!.text).toBe("Which database?\n→ SQLite\n\nWhich features?\n→ auth; my own: audit log");
    expect(results[1]!.text).toContain("did not answer (the user dismissed");
    expect(results[2]!.text).toContain("did not answer (nobody answered within 1 s)");
  });
});
