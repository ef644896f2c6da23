// The headless modes of the compiled binary against the stand-in: `--mode json` checked event by
// event, and `--mode rpc` command by command (prompt, state, models, sessions, compaction, bash,
// steering, follow-ups, abort, malformed input, stdin close).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  filesContaining,
  frames,
  modelRequests,
  agentTestFile,
  providerCases,
  providerTable,
  readJsonl,
  runAgent,
  sessionFiles,
  toolResultsOf,
  userTextsOf,
  workspace,
} from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();

const cases = providerTable();

/** Walks a transcript event by event; each step names what it expected when it fails. */
class Transcript {
  private at = 0;
  constructor(readonly events: any[]) {}

  next(type: string): any {
    const event = this.events[this.at];
    if (event?.type !== type) {
      throw new Error(`event ${this.at}: expected ${type}, got ${JSON.stringify(event)?.slice(0, 300)}\nall types: ${this.events.map((e) => e.type).join(" ")}`);
    }
    this.at++;
    return event;
  }

  /** The streamed deltas of one assistant message, up to (not including) its message_end. */
  updates(): any[] {
    const out: any[] = [];
    while (this.events[this.at]?.type === "message_update") out.push(this.events[this.at++].assistantMessageEvent);
    return out;
  }

  end(): void {
    expect(this.at).toBe(this.events.length);
  }
}

function expectUserMessage(t: Transcript, text: string): void {
  const start = t.next("message_start");
  expect(start.message.role).toBe("user");
  const end = t.next("message_end");
  expect(end.message).toEqual(start.message);
  const content = end.message.content;
  expect(typeof content === "string" ? content : content.map((c: any) => c.text).join("")).toBe(text);
}

/** An assistant message as streamed: start, text deltas adding up to `text`, then tool calls. */
function expectAssistant(t: Transcript, text: string, calls: { name: string; arguments: unknown }[]): any {
  const start = t.next("message_start");
  expect(start.message.role).toBe("assistant");
  expect(start.message.content).toEqual([]);
  const updates = t.updates();
  // Each content block streams start, deltas, end; blocks open in order (text first). Chat
  // Completions may interleave parallel calls' deltas, so blocks are checked one by one.
  const blocks = [...(text ? ["text"] : []), ...calls.map(() => "toolcall")];
  expect(updates.filter((u) => u.type.endsWith("_start")).map((u) => u.contentIndex)).toEqual(blocks.map((_, i) => i));
  for (const [index, kind] of blocks.entries()) {
    const kinds = updates
      .filter((u) => u.contentIndex === index)
      .map((u) => u.type)
      .filter((type, i, all) => type !== all[i - 1]);
    expect(kinds).toEqual([`${kind}_start`, `${kind}_delta`, `${kind}_end`]);
  }
  expect(updates.filter((u) => u.type === "text_delta").map((u) => u.delta).join("")).toBe(text);
  expect(updates.filter((u) => u.type === "text_delta").length).toBeGreaterThan(1);
  const ended = updates.filter((u) => u.type === "toolcall_end").map((u) => ({ name: u.toolCall.name, arguments: u.toolCall.arguments }));
  expect(ended).toEqual(calls);
  const end = t.next("message_end");
  expect(end.message.role).toBe("assistant");
  expect(end.message.stopReason).toBe(calls.length > 0 ? "toolUse" : "stop");
  expect(end.message.usage).toMatchObject({ input: 12, output: 7 });
  const textParts = end.message.content.filter((c: any) => c.type === "text").map((c: any) => c.text);
  expect(textParts.join("")).toBe(text);
  return end.message;
}

describe.each(cases)("--mode json over %s", (_api, provider) => {
  test("prints the session header, then every event of the run in order, ending with usage", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { text: "Looking around.", toolCalls: [{ name: "ls", arguments: {} }, { name: "read", arguments: { path: "README.md" } }] },
      { text: "A demo repo." },
    ]);
    standin.requests.length = 0;
    const result = await runAgent(["--mode", "json", "--model", provider.model, "what is this?"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.pop()).toBe("");
    const events = frames(lines);
    const t = new Transcript(events);

    const header = t.next("session");
    const [sessionFile] = sessionFiles(home);
    expect(header).toMatchObject({ version: 3, cwd: realpathSync(repo), model: provider.model, sessionFile });
    expect(readJsonl(sessionFile!)[0]).toEqual({ type: "session", version: 3, id: header.id, timestamp: header.timestamp, cwd: header.cwd });

    t.next("agent_start");
    expect(t.next("turn_start").turn).toBe(1);
    expectUserMessage(t, "what is this?");
    const first = expectAssistant(t, "Looking around.", [
      { name: "ls", arguments: {} },
      { name: "read", arguments: { path: "README.md" } },
    ]);
    const callIds = first.content.filter((c: any) => c.type === "toolCall").map((c: any) => c.id);
    // Read-only tools run together: both start before either ends.
    const starts = [t.next("tool_execution_start"), t.next("tool_execution_start")];
    expect(starts.map((s) => [s.toolCallId, s.toolName])).toEqual([
      [callIds[0], "ls"],
      [callIds[1], "read"],
    ]);
    expect(starts[1].args).toEqual({ path: "README.md" });
    const results = new Map<string, any>();
    for (let i = 0; i < 2; i++) {
      const end = t.next("tool_execution_end");
      expect(end.isError).toBe(false);
      const start = t.next("message_start");
      expect(t.next("message_end").message).toEqual(start.message);
      expect(start.message).toMatchObject({ role: "toolResult", toolCallId: end.toolCallId, toolName: end.toolName, isError: false });
      results.set(end.toolName, start.message);
    }
    expect(results.get("read").content[0].text).toContain("# demo");
    expect(results.get("ls").content[0].text).toContain("test.sh");
    const turnEnd = t.next("turn_end");
    expect(turnEnd.turn).toBe(1);
    expect(turnEnd.message).toEqual(first);
    // In call order, whatever order they finished in.
    expect(turnEnd.toolResults.map((r: any) => r.toolCallId)).toEqual(callIds);

    expect(t.next("turn_start").turn).toBe(2);
    const second = expectAssistant(t, "A demo repo.", []);
    expect(t.next("turn_end")).toMatchObject({ turn: 2, toolResults: [] });
    const end = t.next("agent_end");
    expect(end.stopReason).toBe("stop");
    expect(end.error).toBeUndefined();
    expect(end.usage).toMatchObject({ input: 24, output: 14, totalTokens: 38 });
    expect(end.usage.cost.total).toBeGreaterThan(0);
    t.end();
    expect(second.content).toEqual([{ type: "text", text: "A demo repo." }]);
    expect(filesContaining([home, repo], provider.key)).toEqual([]);
  });
});

describe.each(cases)("--mode rpc over %s", (_api, provider) => {
  test("ready; prompt → response → events → agent_end; state, messages, models, compaction, stats, bash, sessions", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { text: "Listing.", toolCalls: [{ name: "ls", arguments: {} }] },
      { text: "Three entries." },
      { text: "Second answer on another model." },
      { text: "SUMMARY: the user listed the repo and asked twice." },
      { text: "After compaction." },
    ]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      expect(JSON.parse(await rpc.out.waitFor(() => true))).toEqual({ type: "ready" });

      const state0 = await rpc.send({ type: "get_state" });
      const [providerId, ...modelParts] = provider.model.split("/");
      expect(state0).toMatchObject({ type: "response", command: "get_state", success: true });
      expect(state0.data).toMatchObject({ model: { provider: providerId, id: modelParts.join("/") }, isStreaming: false, messageCount: 0, queuedMessageCount: 0 });
      const firstSessionFile: string = state0.data.sessionFile;

      // prompt: the response comes first, then the run's events up to agent_end.
      const mark = rpc.mark;
      const prompted = await rpc.send({ type: "prompt", message: "list the repo" });
      expect(prompted).toMatchObject({ command: "prompt", success: true, data: { agentInvoked: true } });
      const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(end.stopReason).toBe("stop");
      const run = rpc.frames.slice(mark);
      const types = run.map((f) => f.type);
      const responseAt = run.findIndex((f) => f.type === "response" && f.command === "prompt");
      expect(responseAt).toBe(0);
      expect(types.indexOf("agent_start")).toBeGreaterThan(responseAt);
      expect(types.filter((t) => t === "turn_start").length).toBe(2);
      expect(types.filter((t) => t === "tool_execution_start").length).toBe(1);
      expect(types.indexOf("tool_execution_end")).toBeGreaterThan(types.indexOf("tool_execution_start"));
      expect(types.lastIndexOf("agent_end")).toBe(types.length - 1);

      const messages = await rpc.send({ type: "get_messages" });
      expect(messages.data.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
      expect(messages.data.messages[2].content[0].text).toContain("test.sh");

      const models = await rpc.send({ type: "get_available_models" });
      expect(models.success).toBe(true);
      const ids = models.data.models.map((m: any) => `${m.provider}/${m.id}`);
      expect(ids).toContain(provider.model);
      const other = models.data.models.find((m: any) => m.provider === providerId && `${m.provider}/${m.id}` !== provider.model);
      expect(other).toBeDefined();

      const switched = await rpc.send({ type: "set_model", provider: other.provider, modelId: other.id });
      expect(switched).toMatchObject({ success: true, data: { provider: other.provider, id: other.id } });
      expect((await rpc.send({ type: "get_state" })).data.model).toEqual({ provider: other.provider, id: other.id });
      const badModel = await rpc.send({ type: "set_model", provider: providerId, modelId: "no-such-model-xyz" });
      expect(badModel.success).toBe(false);
      expect(badModel.error).toContain("no-such-model-xyz");

      let mark2 = rpc.mark;
      await rpc.send({ type: "prompt", message: "again please" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark2);
      const again = modelRequests(standin)[2]!;
      // The new model is the one asked, and the whole conversation goes with it.
      expect(JSON.stringify(again.body?.model ?? again.path)).toContain(other.id);
      expect(userTextsOf(provider.api, again.body)).toEqual(["list the repo", "again please"]);

      const compacted = await rpc.send({ type: "compact" });
      expect(compacted).toMatchObject({ success: true, data: { compacted: true } });
      const summaryRequest = modelRequests(standin)[3]!;
      expect(JSON.stringify(summaryRequest.body)).toContain("list the repo");
      expect(toolResultsOf(provider.api, summaryRequest.body)).toEqual([]);
      const afterCompaction = await rpc.send({ type: "get_messages" });
      const compactedMessages = afterCompaction.data.messages;
      expect(JSON.stringify(compactedMessages[0].content)).toContain("SUMMARY: the user listed the repo");
      expect(compactedMessages.map((m: any) => m.role)).toEqual(["user", "user", "assistant"]);
      expect(readJsonl(firstSessionFile).some((e) => e.type === "compaction" && e.summary.includes("SUMMARY:"))).toBe(true);

      mark2 = rpc.mark;
      await rpc.send({ type: "prompt", message: "third" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark2);
      const third = modelRequests(standin)[4]!;
      expect(JSON.stringify(third.body)).toContain("SUMMARY: the user listed the repo");
      expect(JSON.stringify(third.body)).not.toContain("list the repo\"");
      expect(userTextsOf(provider.api, third.body).at(-1)).toBe("third");

      const stats = await rpc.send({ type: "get_session_stats" });
      expect(stats.data).toMatchObject({ sessionFile: firstSessionFile, userMessages: 3, assistantMessages: 2, toolResults: 0 });
      // Five requests: four turns and the summary.
      expect(stats.data.tokens.input).toBe(5 * 12);
      expect(stats.data.tokens.output).toBe(5 * 7);
      expect(stats.data.cost).toBeGreaterThan(0);

      const bash = await rpc.send({ type: "bash", command: "echo out-$((6*7)); echo err >&2; exit 3" });
      expect(bash.success).toBe(true);
      expect(bash.data.output).toContain("out-42");
      expect(bash.data.output).toContain("err");
      expect(bash.data.isError).toBe(true);
      expect(JSON.stringify(bash.data)).toContain("3");

      const fresh = await rpc.send({ type: "new_session" });
      expect(fresh.success).toBe(true);
      expect(fresh.data.sessionFile).not.toBe(firstSessionFile);
      expect(fresh.data.messageCount).toBe(0);
      expect((await rpc.send({ type: "get_state" })).data).toMatchObject({ messageCount: 0, sessionFile: fresh.data.sessionFile });

      const back = await rpc.send({ type: "switch_session", sessionPath: firstSessionFile });
      expect(back).toMatchObject({ success: true, data: { sessionFile: firstSessionFile, messageCount: compactedMessages.length + 2 } });
      const restored = await rpc.send({ type: "get_messages" });
      expect(JSON.stringify(restored.data.messages[0].content)).toContain("SUMMARY: the user listed the repo");
      expect(restored.data.messages.at(-1).content[0].text).toBe("After compaction.");
      const byPrefix = await rpc.send({ type: "switch_session", sessionPath: readJsonl(firstSessionFile)[0].id.slice(0, 6) });
      expect(byPrefix).toMatchObject({ success: true, data: { sessionFile: firstSessionFile } });

      // A malformed line gets an error response and the process carries on.
      const markBad = rpc.mark;
      rpc.writeLine("this is not json");
      const parseError = await rpc.waitFrame((f) => f.type === "response", markBad);
      expect(parseError).toMatchObject({ command: "parse", success: false });
      expect(parseError.error).toContain("not JSON");
      const unknown = await rpc.send({ type: "no_such_command" });
      expect(unknown.success).toBe(false);
      expect(unknown.error).toContain("no_such_command");
      const missingField = await rpc.send({ type: "prompt" });
      expect(missingField).toMatchObject({ command: "prompt", success: false });
      expect(missingField.error).toContain("message");
      expect((await rpc.send({ type: "get_state" })).success).toBe(true);

      expect(await rpc.close()).toBe(0);
      expect(await rpc.stderr).toBe("");
      // The empty new session left no file behind.
      expect(existsSync(fresh.data.sessionFile)).toBe(false);
      expect(filesContaining([home, repo], provider.key)).toEqual([]);
    } finally {
      rpc.child.kill();
    }
  });
});

describe("--mode rpc while a turn runs", () => {
  const provider = providerCases()[0]!;

  test("compact is answered when it ends; meanwhile get_state answers, a prompt is refused, and abort stops it", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "compaction:\n  keepRecentTokens: 5\n");
    standin.setScript([{ text: "First answer." }, { text: "Second answer." }, { text: "SUMMARY that never arrives", delayMs: 10_000 }]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      let mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "hello" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "and again" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      mark = rpc.mark;
      const compacting = rpc.send({ type: "compact" });
      await rpc.waitFrame((f) => f.type === "auto_compaction_start", mark);
      const started = performance.now();
      expect((await rpc.send({ type: "get_state" })).data).toMatchObject({ isStreaming: false, messageCount: 4 });
      const refused = await rpc.send({ type: "prompt", message: "too early" });
      expect(refused.success).toBe(false);
      expect(refused.error).toContain("being compacted");
      expect(await rpc.send({ type: "abort" })).toMatchObject({ success: true, command: "abort" });
      expect(await compacting).toMatchObject({ success: true, command: "compact", data: { compacted: false } });
      // Well before the summary would have arrived.
      expect(performance.now() - started).toBeLessThan(5000);
      const messages = (await rpc.send({ type: "get_messages" })).data.messages;
      expect(messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect(readJsonl(sessionFiles(home)[0]!).some((e) => e.type === "compaction")).toBe(false);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });

  test("steer and follow_up are queued and delivered in order; get_state sees the run", async () => {
    const { home, repo } = workspace();
    standin.setScript([
      { text: "Starting the work now.", toolCalls: [{ name: "bash", arguments: { command: "echo step-one" } }], eventDelayMs: 60 },
      { text: "Steered." },
      { text: "Followed up." },
    ]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "do the work" });
      await rpc.waitFrame((f) => f.type === "message_update" && f.assistantMessageEvent.type === "text_delta", mark);
      expect(await rpc.send({ type: "steer", message: "use sh not bash" })).toMatchObject({ success: true, command: "steer" });
      expect(await rpc.send({ type: "follow_up", message: "then summarise" })).toMatchObject({ success: true, command: "follow_up" });
      const busy = await rpc.send({ type: "prompt", message: "no behaviour given" });
      expect(busy.success).toBe(false);
      expect(busy.error).toContain("streamingBehavior");
      const state = await rpc.send({ type: "get_state" });
      expect(state.data).toMatchObject({ isStreaming: true, queuedMessageCount: 2 });
      const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(end.stopReason).toBe("stop");

      const requests = modelRequests(standin);
      expect(requests.length).toBe(3);
      // The steering message goes after the tool result, before the next step; the follow-up once the model is done.
      expect(userTextsOf(provider.api, requests[1]!.body)).toEqual(["do the work", "use sh not bash"]);
      expect(toolResultsOf(provider.api, requests[1]!.body)[0]!.text).toContain("step-one");
      expect(userTextsOf(provider.api, requests[2]!.body)).toEqual(["do the work", "use sh not bash", "then summarise"]);
      const messages = (await rpc.send({ type: "get_messages" })).data.messages;
      expect(messages.map((m: any) => m.role)).toEqual(["user", "assistant", "toolResult", "user", "assistant", "user", "assistant"]);
      expect((await rpc.send({ type: "get_state" })).data).toMatchObject({ isStreaming: false, queuedMessageCount: 0 });
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });

  test("abort stops a streaming turn; the next prompt works without the aborted reply", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "This answer will never finish streaming.", pauseAfterEvents: 5, pauseMs: 30_000 }, { text: "Fresh answer." }]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "slow one" });
      await rpc.waitFrame((f) => f.type === "message_update" && f.assistantMessageEvent.type === "text_delta", mark);
      const started = Date.now();
      const aborted = await rpc.send({ type: "abort" });
      expect(aborted.success).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
      const end = await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(end.stopReason).toBe("aborted");
      // abort answers after the run has ended.
      expect(rpc.out.lines.findIndex((l) => l.includes('"agent_end"'))).toBeLessThan(rpc.out.lines.findIndex((l) => l.includes(`"command":"abort"`)));
      expect(modelRequests(standin)[0]!.disconnected).toBe(true);

      const mark2 = rpc.mark;
      await rpc.send({ type: "prompt", message: "try again" });
      expect((await rpc.waitFrame((f) => f.type === "agent_end", mark2)).stopReason).toBe("stop");
      const retry = modelRequests(standin)[1]!;
      expect(userTextsOf(provider.api, retry.body)).toEqual(["slow one", "try again"]);
      expect(JSON.stringify(retry.body)).not.toContain("never finish");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });

  test("a long bash command does not block other commands; abort_bash stops it", async () => {
    const { home, repo } = workspace();
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      rpc.writeLine(JSON.stringify({ id: "long", type: "bash", command: "echo started; sleep 30; echo finished" }));
      // Handled while the command runs.
      expect((await rpc.send({ type: "get_state" })).success).toBe(true);
      const second = await rpc.send({ type: "bash", command: "echo two" });
      expect(second.success).toBe(false);
      expect(second.error).toContain("already running");
      const started = Date.now();
      const aborted = await rpc.send({ type: "abort_bash" });
      expect(aborted).toMatchObject({ success: true, data: { aborted: true } });
      expect(Date.now() - started).toBeLessThan(10_000);
      const long = await rpc.waitFrame((f) => f.type === "response" && f.id === "long", mark);
      expect(long.success).toBe(true);
      expect(long.data.output).toContain("started");
      expect(long.data.output).not.toContain("finished");
      expect(long.data.isError).toBe(true);
      // The order on the wire: the long command's answer comes before abort_bash's.
      const order = rpc.frames.filter((f) => f.type === "response").map((f) => f.id);
      expect(order.indexOf("long")).toBeLessThan(order.lastIndexOf("req_3"));
      expect((await rpc.send({ type: "bash", command: "echo again" })).data.output).toContain("again");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });

  test("abort_and_prompt replaces a running turn; get_last_assistant_text, thinking level and queue modes", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "Never finished.", pauseAfterEvents: 5, pauseMs: 30_000 }, { text: "The replacement answer." }]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "first" });
      await rpc.waitFrame((f) => f.type === "message_update", mark);
      expect((await rpc.send({ type: "abort_and_prompt", message: "instead" })).success).toBe(true);
      const first = await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const firstAt = rpc.out.lines.findIndex((line, i) => i >= mark && line.includes('"type":"agent_end"'));
      const second = await rpc.waitFrame((f) => f.type === "agent_end", firstAt + 1);
      expect([first.stopReason, second.stopReason]).toEqual(["aborted", "stop"]);
      expect((await rpc.send({ type: "get_last_assistant_text" })).data.text).toBe("The replacement answer.");
      expect(userTextsOf(provider.api, modelRequests(standin)[1]!.body)).toEqual(["first", "instead"]);

      expect((await rpc.send({ type: "set_thinking_level", level: "high" })).success).toBe(true);
      expect((await rpc.send({ type: "get_state" })).data.thinkingLevel).toBe("high");
      const badLevel = await rpc.send({ type: "set_thinking_level", level: "extreme" });
      expect(badLevel.success).toBe(false);
      expect((await rpc.send({ type: "set_steering_mode", mode: "all" })).success).toBe(true);
      expect((await rpc.send({ type: "set_follow_up_mode", mode: "all" })).success).toBe(true);
      expect((await rpc.send({ type: "set_auto_compaction", enabled: false })).success).toBe(true);
      expect((await rpc.send({ type: "get_state" })).data).toMatchObject({ steeringMode: "all", followUpMode: "all", autoCompactionEnabled: false });
      const [file] = sessionFiles(home);
      expect(readJsonl(file!).some((e) => e.type === "thinking_level_change" && e.thinkingLevel === "high")).toBe(true);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });

  test("closing stdin mid-turn lets the running prompt finish, then exits 0 with the session saved", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "A reply that finishes after the host closed stdin.", pauseAfterEvents: 5, pauseMs: 1500 }]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", provider.model], { home, cwd: repo, env: provider.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      await rpc.send({ type: "prompt", message: "goodbye" });
      await rpc.waitFrame((f) => f.type === "message_update");
      expect(await rpc.close()).toBe(0);
      expect(rpc.frames.some((f) => f.type === "agent_end" && f.stopReason === "stop")).toBe(true);
      const [file] = sessionFiles(home);
      const messages = readJsonl(file!).filter((e) => e.type === "message").map((e) => e.message);
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(messages[1].content[0].text).toBe("A reply that finishes after the host closed stdin.");
    } finally {
      rpc.child.kill();
    }
  });
});
