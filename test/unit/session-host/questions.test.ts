// Questions and plan approval on the session host from core/, without the CLI: the pending-request
// class under approvals and questions (ids, timeout, cancel), the ask tool's question_request
// answered by the answer_question op, and plan mode's gate, prompt note and exit_plan_mode.
import { afterAll, expect, test } from "bun:test";
import { assembleSession, chooseModel } from "../../../core/session-host/assemble.ts";
import { ApprovalRequests, type HostEvent, QuestionRequests, SessionHost } from "../../../core/session-host/host.ts";
import { HostOp } from "../../../core/session-host/protocol.ts";
import { startStandin } from "../../support/standin/index.ts";
import { tempDir } from "../../support/omp.ts";

const standin = await startStandin();
afterAll(() => standin.close());

async function openHost() {
  const home = tempDir("omp-questions-home-");
  const cwd = tempDir("omp-questions-repo-");
  const env = { HOME: home, PATH: process.env.PATH, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest_host_key", OMP_RETRY_BASE_MS: "20" };
  const approvals = new ApprovalRequests();
  const questions = new QuestionRequests();
  const session = await assembleSession({ cwd, env, warn: () => {}, runtimeSettings: { approvalMode: "yolo", sandbox: { mode: "off" } }, approver: approvals.ask, questioner: questions.ask, noSession: true });
  const selection = await chooseModel(session.runtime, "anthropic/claude-opus-5-5", undefined, () => {});
  const host = new SessionHost(session.runtime, await session.runtime.createAgent(selection), selection, approvals, questions);
  const events: HostEvent[] = [];
  host.subscribe((event) => events.push(event));
  return { host, events, close: async () => (await host.close(), await session.close()) };
}

const toolResults = () =>
  (standin.requests.at(-1)!.body.messages as any[]).flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result").map((b: any) => (Array.isArray(b.content) ? b.content.map((c: any) => c.text).join("") : String(b.content))) : []));
const toolNames = () => (standin.requests.at(-1)!.body.tools as any[]).map((t) => t.name);

test("pending requests: distinct ids, an answer settles once, the timeout and cancelAll settle with the fallback", async () => {
  const questions = new QuestionRequests();
  const seen: HostEvent[] = [];
  questions.emit = (event) => seen.push(event);
  const first = questions.ask({ kind: "ask", questions: [{ question: "a?" }] });
  const second = questions.ask({ kind: "ask", questions: [{ question: "b?" }] });
  const [a, b] = seen as Extract<HostEvent, { type: "question_request" }>[];
  expect(a!.id).not.toBe(b!.id);
  expect(questions.answer(a!.id, { answers: [["yes"]] })).toBe(true);
  expect(questions.answer(a!.id, { answers: [["again"]] })).toBe(false);
  expect(await first).toEqual({ answers: [["yes"]] });
  questions.cancelAll("gone");
  expect(await second).toEqual({ unanswered: "gone" });
  questions.timeoutMs = 20;
  const timed = questions.ask({ kind: "ask", questions: [{ question: "c?" }] });
  expect(seen.at(-1)).toMatchObject({ timeoutMs: 20 });
  expect(await timed).toEqual({ unanswered: "nobody answered within 0.02 s" });
});

test("the ask tool's question is a question_request answered by answer_question; the answer reaches the model", async () => {
  standin.setScript([{ toolCalls: [{ name: "ask", arguments: { questions: [{ question: "Tabs or spaces?", options: ["tabs", "spaces"] }] } }] }, { text: "ok" }]);
  const { host, events, close } = await openHost();
  host.subscribe((event) => {
    if (event.type === "question_request") void host.submit(HostOp.parse({ type: "answer_question", id: event.id, answers: [["spaces"]] }));
  });
  try {
    expect(await host.submit({ type: "prompt", content: [{ type: "text", text: "format it" }] })).toBe("stop");
    expect(events.find((e) => e.type === "question_request")).toMatchObject({ kind: "ask", questions: [{ question: "Tabs or spaces?", options: ["tabs", "spaces"] }], timeoutMs: 600_000 });
    expect(toolResults()).toEqual(["Tabs or spaces?\n→ spaces"]);
    expect(toolNames()).toContain("ask");
    expect(toolNames()).not.toContain("exit_plan_mode");
    await expect(host.submit({ type: "answer_question", id: "question_99" })).rejects.toThrow("no question question_99");
  } finally {
    await close();
  }
});

test("plan mode: read-only commands pass the gate, others are refused; exit_plan_mode is offered, and approving the plan switches the mode", async () => {
  standin.setScript([{ toolCalls: [{ name: "exit_plan_mode", arguments: { plan: "Do it", steps: ["Step one"] } }] }, { text: "working" }]);
  const { host, events, close } = await openHost();
  host.subscribe((event) => {
    if (event.type === "question_request") void host.submit({ type: "answer_question", id: event.id, answers: [["Approve"]] });
  });
  try {
    await host.submit({ type: "set_mode", mode: "plan" });
    const gate = host.agent.options.gate;
    const bash = { name: "bash", effect: "exec" as const };
    expect(await gate.check(bash, { command: "git status && ls -la | head -5" })).toEqual({ allow: true });
    expect(await gate.check(bash, { command: "ls > listing.txt" })).toMatchObject({ allow: false });
    expect(await gate.check(bash, { command: "rm -rf build" })).toMatchObject({ allow: false, message: expect.stringContaining("exit_plan_mode") });
    expect(host.agent.promptNote).toContain("Plan mode");
    await host.submit({ type: "prompt", content: [{ type: "text", text: "plan it" }] });
    expect(events.filter((e) => e.type === "mode_changed").map((e) => (e as { mode: string }).mode)).toEqual(["plan", "default"]);
    expect(toolResults()[0]).toContain("[ ] Step one");
    expect((standin.requests.at(-2)!.body.tools as any[]).map((t) => t.name)).toContain("exit_plan_mode");
    expect(toolNames()).not.toContain("exit_plan_mode");
    expect(host.agent.tools.some((tool) => tool.name === "exit_plan_mode")).toBe(false);
    expect(host.agent.promptNote).toBeUndefined();
    expect(await gate.check(bash, { command: "rm -rf build" })).toEqual({ allow: true });
  } finally {
    await close();
  }
});
