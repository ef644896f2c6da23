// The session host from core/, without the CLI: built by assembleSession against the provider
// stand-in's stream, driven by operations, observed through its events.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assembleSession, chooseModel } from "../../../core/session-host/assemble.ts";
import { ApprovalRequests, type HostEvent, SessionHost, isAgentEvent } from "../../../core/session-host/host.ts";
import { HostOp } from "../../../core/session-host/protocol.ts";
import { presentTool } from "../../../core/tools/presentation.ts";
import { startStandin } from "../../support/standin/index.ts";
import { tempDir } from "../../support/omp.ts";

const standin = await startStandin();
afterAll(() => standin.close());

async function openHost(approvalMode: "write" | "yolo", saved = false) {
  const home = tempDir("omp-host-home-");
  const cwd = tempDir("omp-host-repo-");
  const env = { HOME: home, PATH: process.env.PATH, ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest_host_key", OMP_RETRY_BASE_MS: "20" };
  const approvals = new ApprovalRequests();
  const session = await assembleSession({ cwd, env, warn: () => {}, runtimeSettings: { approvalMode }, approver: approvals.ask, noSession: !saved });
  const selection = await chooseModel(session.runtime, "anthropic/claude-opus-5-5", undefined, () => {});
  const host = new SessionHost(session.runtime, await session.runtime.createAgent(selection), selection, approvals);
  const events: HostEvent[] = [];
  host.subscribe((event) => events.push(event));
  return { host, events, cwd, close: async () => (await host.close(), await session.close()) };
}

test("a prompt streams deltas; tool calls come with their presentation; approvals are requests answered by an op", async () => {
  standin.setScript([
    { toolCalls: [{ id: "w1", name: "write", arguments: { path: "a.txt", content: "yes" } }] },
    { toolCalls: [{ id: "w2", name: "write", arguments: { path: "b.txt", content: "no" } }] },
    { text: "all done" },
  ]);
  const { host, events, cwd, close } = await openHost("write");
  host.subscribe((event) => {
    if (event.type !== "approval_request") return;
    // A no with a reason is the user speaking: the model reads it and goes on.
    void host.submit(HostOp.parse({ type: "answer_approval", id: event.id, allow: event.toolCallId === "w1", ...(event.toolCallId === "w1" ? {} : { reason: "not b" }) }));
  });
  try {
    const reason = await host.submit(HostOp.parse({ type: "prompt", content: [{ type: "text", text: "write files" }] }));
    expect(reason).toBe("stop");
    const requests = events.filter((e) => e.type === "approval_request");
    expect(requests.map((r) => [r.toolCallId, r.presentation.title, r.presentation.kind])).toEqual([
      ["w1", "Write a.txt", "edit"],
      ["w2", "Write b.txt", "edit"],
    ]);
    // The exact change travels with the request.
    expect(requests[0]!.changes).toEqual([{ path: join(cwd, "a.txt"), shown: "a.txt", op: "create", oldText: null, newText: "yes", diff: expect.stringContaining("+yes"), added: 1, removed: 0 }]);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("yes");
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
    const calls = events.filter((e) => e.type === "tool_call");
    expect(calls[0]).toMatchObject({ toolCallId: "w1", presentation: { diffs: [{ path: join(cwd, "a.txt"), oldText: null, newText: "yes" }] } });
    const text = events.flatMap((e) => (e.type === "message_update" && e.assistantMessageEvent.type === "text_delta" ? [e.assistantMessageEvent.delta] : [])).join("");
    expect(text).toBe("all done");
    expect(events.at(-1)).toMatchObject({ type: "usage" });
    expect(events.filter(isAgentEvent).some((e) => e.type === "agent_end")).toBe(true);
    await expect(host.submit({ type: "answer_approval", id: "approval_99", allow: true })).rejects.toThrow("no approval approval_99");
  } finally {
    await close();
  }
});

test("modes: plan refuses writes even under yolo, auto-accept lets edits through under write; set_mode is an event", async () => {
  standin.setScript([{ toolCalls: [{ name: "write", arguments: { path: "p.txt", content: "x" } }] }, { text: "planned" }, { toolCalls: [{ name: "write", arguments: { path: "q.txt", content: "y" } }] }, { text: "written" }]);
  const { host, events, cwd, close } = await openHost("yolo");
  try {
    await host.submit({ type: "set_mode", mode: "plan" });
    expect(events).toContainEqual({ type: "mode_changed", mode: "plan" });
    await host.submit({ type: "prompt", content: [{ type: "text", text: "plan" }] });
    expect(existsSync(join(cwd, "p.txt"))).toBe(false);
    await host.submit({ type: "set_mode", mode: "auto-accept" });
    host.agent.options.gate.mode = "write";
    await host.submit({ type: "prompt", content: [{ type: "text", text: "write" }] });
    expect(readFileSync(join(cwd, "q.txt"), "utf8")).toBe("y");
    expect(events.some((e) => e.type === "approval_request")).toBe(false);
  } finally {
    await close();
  }
});

test("tree ops: navigate, set_label, fork and handoff move the session, each a session_changed event with its reason", async () => {
  standin.setScript([{ text: "one" }, { text: "two" }, { text: "the brief" }]);
  const { host, events, close } = await openHost("yolo", true);
  const say = (text: string) => host.submit({ type: "prompt", content: [{ type: "text", text }] });
  const changes = () => events.flatMap((e) => (e.type === "session_changed" ? [e.reason] : []));
  try {
    await expect(host.submit({ type: "navigate", entryId: "x" })).rejects.toThrow("no entries yet");
    await say("first");
    await say("second");
    const file = host.agent.writer!.path;
    const { entries } = await host.sessionControl.currentFile();
    const firstAnswer = entries.find((e) => e.type === "message" && e.message.role === "assistant")!;
    await host.submit(HostOp.parse({ type: "navigate", entryId: firstAnswer.id }));
    expect(host.agent.messages).toHaveLength(2);
    await host.submit(HostOp.parse({ type: "set_label", entryId: firstAnswer.id, label: "here" }));
    expect((await host.sessionControl.currentFile()).entries.at(-1)).toMatchObject({ type: "label", targetId: firstAnswer.id, label: "here" });
    await host.submit(HostOp.parse({ type: "fork" }));
    expect(host.agent.writer!.path).not.toBe(file);
    expect(host.agent.writer!.header.parentSession).toBe(file);
    await host.submit(HostOp.parse({ type: "handoff", goal: "tests" }));
    expect(host.agent.messages).toHaveLength(1);
    expect(changes()).toEqual(["branch", "fork", "handoff"]);
  } finally {
    await close();
  }
});

test("the rewind op takes the files and the conversation back to before a user message, through the branch machinery", async () => {
  standin.setScript([
    { toolCalls: [{ id: "w1", name: "write", arguments: { path: "a.txt", content: "one" } }] },
    { text: "wrote one" },
    { toolCalls: [{ id: "w2", name: "write", arguments: { path: "a.txt", content: "two" } }] },
    { text: "wrote two" },
  ]);
  const { host, events, cwd, close } = await openHost("yolo", true);
  try {
    for (const text of ["first", "second"]) await host.submit(HostOp.parse({ type: "prompt", content: [{ type: "text", text }] }));
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("two");
    const { userTurns } = await import("../../../core/session/checkpoints/rewind.ts");
    const second = userTurns(host.agent).find((turn) => turn.text === "second")!;
    await expect(host.submit(HostOp.parse({ type: "rewind", entryId: "missing1", scope: "both" }))).rejects.toThrow("not a user message");
    await host.submit(HostOp.parse({ type: "rewind", entryId: second.entryId, scope: "both" }));
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("one");
    expect(events.at(-1)).toMatchObject({ type: "session_changed", reason: "branch" });
    expect(host.agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  } finally {
    await close();
  }
});

test("tools present themselves in one table; unknown and MCP tools get the generic row", () => {
  expect(presentTool("bash", { command: "npm test\n--watch" }, "/w")).toMatchObject({ kind: "execute", title: "npm test ⏎ --watch", command: "npm test\n--watch" });
  expect(presentTool("read", { path: "src/x.ts", offset: 10 }, "/w")).toEqual({ kind: "read", title: "Read src/x.ts (from line 10)", locations: [{ path: "/w/src/x.ts", line: 10 }] });
  expect(presentTool("grep", { pattern: "TODO" }, "/w")).toMatchObject({ kind: "search", title: "grep TODO" });
  expect(presentTool("mcp__github__search", { q: "x" }, "/w")).toMatchObject({ kind: "other", title: 'github: search {"q":"x"}' });
  expect(() => HostOp.parse({ type: "set_mode", mode: "reckless" })).toThrow();
});

/** The user texts of the stand-in's requests since `from`, one list per request. */
function userTexts(from: number): string[][] {
  return standin.requests
    .filter((r) => r.method === "POST")
    .slice(from)
    .map((r) => (r.body as any).messages.filter((m: any) => m.role === "user").map((m: any) => m.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join("\n")));
}

/** Resolves at the first event `test` picks. */
function nextEvent(host: SessionHost, test: (event: HostEvent) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = host.subscribe((event) => {
      if (!test(event)) return;
      stop();
      resolve();
    });
  });
}

test("messages sent while a run goes wait in the host's queue until a turn ends; steeringMode all hands both steers over at once", async () => {
  standin.setScript([{ text: "working on it", pauseAfterEvents: 2, pauseMs: 2000 }, { text: "saw both" }]);
  const { host, close } = await openHost("yolo");
  const from = standin.requests.filter((r) => r.method === "POST").length;
  try {
    host.setQueueModes({ steering: "all" });
    const streaming = nextEvent(host, (event) => event.type === "message_update");
    const run = host.submit({ type: "prompt", content: [{ type: "text", text: "start" }] });
    await streaming;
    const accepted: unknown[] = [];
    for (const text of ["one", "two"]) await host.submit({ type: "steer", content: [{ type: "text", text }] }, { accepted: (a) => accepted.push(a.queued) });
    expect(accepted).toEqual(["steer", "steer"]);
    expect(host.queued.map((q) => q.text)).toEqual(["one", "two"]);
    expect(host.queuedCount).toBe(2);
    expect(await run).toBe("stop");
    // One more request, carrying both steers after the first reply.
    expect(userTexts(from)).toEqual([["start"], ["start", "one", "two"]]);
    expect(host.queuedCount).toBe(0);
  } finally {
    await close();
  }
});

test("an abort drops what is queued; takeQueued first gives it back, and nothing of it reaches the model", async () => {
  standin.setScript([{ text: "a long answer", pauseAfterEvents: 2, pauseMs: 3000 }, { text: "unused" }]);
  const { host, close } = await openHost("yolo");
  const from = standin.requests.filter((r) => r.method === "POST").length;
  try {
    const streaming = nextEvent(host, (event) => event.type === "message_update");
    const run = host.submit({ type: "prompt", content: [{ type: "text", text: "go" }] });
    await streaming;
    await host.submit({ type: "follow_up", content: [{ type: "text", text: "then this" }] });
    expect(host.takeQueued()).toMatchObject([{ kind: "followUp", text: "then this" }]);
    await host.submit({ type: "follow_up", content: [{ type: "text", text: "and this" }] });
    await host.submit({ type: "abort" });
    expect(await run).toBe("aborted");
    expect(host.queuedCount).toBe(0);
    expect(userTexts(from)).toEqual([["go"]]);
  } finally {
    await close();
  }
});
