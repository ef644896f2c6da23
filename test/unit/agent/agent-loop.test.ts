// The agent's turn loop (core/agent/agent.ts) driven by a fake reply stream instead of a provider:
// each test scripts the model's replies as AssistantEvents and checks what the loop does with
// them, what it sends back on the next request, and what it reports.
import { expect, test } from "bun:test";
import { z } from "zod";
import { Agent } from "../../../core/agent/agent.ts";
import type { AgentOptions } from "../../../core/agent/agent-options.ts";
import type { AgentEvent } from "../../../core/agent/events.ts";
import type { ProviderFailure } from "../../../core/ai/failure.ts";
import { type AssistantMessage, type Message, type ToolCall, emptyUsage } from "../../../core/ai/messages.ts";
import type { Model } from "../../../core/ai/model.ts";
import type { AssistantEvent, Context, StreamFunction, StreamOptions } from "../../../core/ai/stream.ts";
import { ApprovalGate } from "../../../core/tools/approval.ts";
import { defineTool } from "../../../core/tools/define.ts";
import { textResult } from "../../../core/tools/format.ts";
import type { Tool } from "../../../core/tools/types.ts";
import { tempDir } from "../../support/temp.ts";

const MODEL: Model = {
  id: "fake-1",
  name: "Fake",
  provider: "fake",
  api: "anthropic-messages",
  baseUrl: "http://127.0.0.1:9",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200_000,
  maxTokens: 8_000,
};

/** One request as the fake stream saw it: a copy of its messages (the agent's array keeps growing) and its options. */
interface Seen {
  messages: Message[];
  tools: string[];
  options: StreamOptions;
}

type Reply = (request: Seen, signal: AbortSignal | undefined) => AsyncIterable<AssistantEvent>;

function message(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"], extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return { role: "assistant", content, api: MODEL.api, provider: MODEL.provider, model: MODEL.id, usage: { ...emptyUsage(), input: 10, output: 5, totalTokens: 15 }, stopReason, timestamp: Date.now(), ...extra };
}

/** A streamed text reply: start, one delta per piece, done. */
function text(...pieces: string[]): Reply {
  return async function* () {
    let partial = message([], "stop");
    yield { type: "start", partial };
    partial = message([{ type: "text", text: "" }], "stop");
    yield { type: "text_start", contentIndex: 0, partial };
    let sofar = "";
    for (const piece of pieces) {
      sofar += piece;
      partial = message([{ type: "text", text: sofar }], "stop");
      yield { type: "text_delta", contentIndex: 0, delta: piece, partial };
    }
    yield { type: "text_end", contentIndex: 0, content: { type: "text", text: sofar }, partial };
    yield { type: "done", message: partial };
  };
}

function toolCalls(...calls: ToolCall[]): Reply {
  return async function* () {
    const final = message(calls, "toolUse");
    yield { type: "start", partial: message([], "toolUse") };
    for (const [index, call] of calls.entries()) {
      yield { type: "toolcall_start", contentIndex: index, partial: message(calls.slice(0, index + 1), "toolUse") };
      yield { type: "toolcall_end", contentIndex: index, toolCall: call, partial: message(calls.slice(0, index + 1), "toolUse") };
    }
    yield { type: "done", message: final };
  };
}

/** A reply that fails before any output, as a provider's error is classified: its words and its kind. */
function failed(errorMessage: string, failure: ProviderFailure): Reply {
  return async function* () {
    const final = message([], "error", { errorMessage, failure });
    yield { type: "error", message: final, failure };
  };
}

/** A fake model: serves `replies` in order and records every request. */
function fakeStream(replies: Reply[]): { stream: StreamFunction; requests: Seen[] } {
  const requests: Seen[] = [];
  const stream: StreamFunction = (_model: Model, context: Context, options: StreamOptions = {}) => {
    const seen = { messages: structuredClone(context.messages), tools: context.tools.map((tool) => tool.name), options };
    requests.push(seen);
    const reply = replies.shift();
    if (!reply) throw new Error(`the fake model has no reply scripted for request ${requests.length}`);
    return reply(seen, options.signal);
  };
  return { stream, requests };
}

/** A tool `echo` that answers `echo: <text>`; `meanwhile` runs while it does (a user typing during the turn). */
function echoTool(meanwhile?: () => void): Tool {
  return defineTool({
    name: "echo",
    description: "Echoes its text.",
    effect: "read",
    schema: z.object({ text: z.string() }),
    async execute(input) {
      meanwhile?.();
      return textResult(`echo: ${input.text}`, { length: input.text.length });
    },
  });
}

function agentWith(stream: StreamFunction, tools: Tool[] = [], options: Partial<AgentOptions> = {}) {
  const agent = new Agent({
    cwd: tempDir("omp-agent-loop-"),
    model: MODEL,
    apiKey: "first-key",
    thinking: "off",
    tools,
    gate: new ApprovalGate("write"),
    systemPrompt: "You are a test.",
    artifactsDir: tempDir("omp-agent-artifacts-"),
    compaction: { enabled: false, reserveTokens: 16_000, keepRecentTokens: 20_000 },
    maxRetries: 0,
    stream,
    ...options,
  });
  const events: AgentEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return { agent, events };
}

const textOf = (m: Message | undefined) =>
  m === undefined ? undefined : typeof m.content === "string" ? m.content : m.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

test("a text reply: streamed as deltas, recorded after the prompt, and the run ends with stop", async () => {
  const fake = fakeStream([text("Hel", "lo")]);
  const { agent, events } = agentWith(fake.stream);
  expect(await agent.prompt("hi")).toBe("stop");
  expect(fake.requests).toHaveLength(1);
  expect(fake.requests[0]!.messages.map((m) => [m.role, textOf(m)])).toEqual([["user", "hi"]]);
  expect(fake.requests[0]!.options.apiKey).toBe("first-key");
  expect(agent.messages.map((m) => [m.role, textOf(m)])).toEqual([
    ["user", "hi"],
    ["assistant", "Hello"],
  ]);
  const deltas = events.flatMap((e) => (e.type === "message_update" && e.assistantMessageEvent.type === "text_delta" ? [e.assistantMessageEvent.delta] : []));
  expect(deltas).toEqual(["Hel", "lo"]);
  expect(events.map((e) => e.type)).toEqual(["agent_start", "turn_start", "message_start", "message_end", "message_start", "message_update", "message_update", "message_update", "message_update", "message_end", "turn_end", "agent_end"]);
  const end = events.at(-1);
  expect(end).toMatchObject({ type: "agent_end", stopReason: "stop", usage: { input: 10, output: 5 } });
  expect(agent.isRunning).toBe(false);
});

test("a tool call round trip: the tool runs, its result (with details) goes back on the next request, then the model's answer ends the run", async () => {
  const fake = fakeStream([toolCalls({ type: "toolCall", id: "call_1", name: "echo", arguments: { text: "ping" } }), text("got it")]);
  const { agent, events } = agentWith(fake.stream, [echoTool()]);
  expect(await agent.prompt("use echo")).toBe("stop");
  expect(fake.requests).toHaveLength(2);
  expect(fake.requests[0]!.tools).toEqual(["echo"]);
  const sentBack = fake.requests[1]!.messages;
  expect(sentBack.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
  expect(sentBack[2]).toMatchObject({ role: "toolResult", toolCallId: "call_1", toolName: "echo", isError: false, content: [{ type: "text", text: "echo: ping" }] });
  const start = events.find((e) => e.type === "tool_execution_start");
  expect(start).toMatchObject({ toolCallId: "call_1", toolName: "echo", args: { text: "ping" } });
  expect(events.find((e) => e.type === "tool_execution_end")).toMatchObject({ toolCallId: "call_1", isError: false, details: { length: 4 } });
  const turnEnds = events.filter((e) => e.type === "turn_end");
  expect(turnEnds.map((e) => (e.type === "turn_end" ? e.toolResults.length : -1))).toEqual([1, 0]);
  expect(textOf(agent.messages.at(-1))).toBe("got it");
});

test("a call of an unknown tool or with bad arguments comes back to the model as an error result, and the run goes on", async () => {
  const fake = fakeStream([
    toolCalls({ type: "toolCall", id: "a", name: "nope", arguments: {} }, { type: "toolCall", id: "b", name: "echo", arguments: { text: 5 } }),
    text("sorry"),
  ]);
  const { agent } = agentWith(fake.stream, [echoTool()]);
  expect(await agent.prompt("go")).toBe("stop");
  const results = fake.requests[1]!.messages.filter((m) => m.role === "toolResult");
  expect(results.map((m) => [m.role === "toolResult" && m.toolCallId, m.role === "toolResult" && m.isError])).toEqual([
    ["a", true],
    ["b", true],
  ]);
  expect(textOf(results[0])).toContain("nope");
});

test("abort mid-stream: the reply stops where it was, the run ends aborted, and the next prompt starts clean", async () => {
  const reachedDelta = Promise.withResolvers<void>();
  const slow: Reply = async function* (_request, signal) {
    const partial = message([{ type: "text", text: "Work" }], "stop");
    yield { type: "start", partial: message([], "stop") };
    yield { type: "text_delta", contentIndex: 0, delta: "Work", partial };
    reachedDelta.resolve();
    await new Promise<void>((resolve) => (signal!.aborted ? resolve() : signal!.addEventListener("abort", () => resolve(), { once: true })));
    const final = message([{ type: "text", text: "Work" }], "aborted");
    yield { type: "error", message: final };
  };
  const fake = fakeStream([slow, text("fresh")]);
  const { agent, events } = agentWith(fake.stream);
  const run = agent.prompt("long job");
  await reachedDelta.promise;
  expect(agent.isRunning).toBe(true);
  agent.abort();
  expect(await run).toBe("aborted");
  expect(fake.requests[0]!.options.signal?.aborted).toBe(true);
  expect(events.at(-1)).toMatchObject({ type: "agent_end", stopReason: "aborted" });
  expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  expect(await agent.prompt("again")).toBe("stop");
  expect(textOf(agent.messages.at(-1))).toBe("fresh");
});

test("a failed reply ends the run with the provider's words and its typed failure, and the message keeps the failure", async () => {
  const failure: ProviderFailure = { kind: "overloaded", status: 529, code: "overloaded_error", retryable: true };
  const fake = fakeStream([failed("anthropic 529: Overloaded", failure)]);
  const { agent, events } = agentWith(fake.stream);
  expect(await agent.prompt("hi")).toBe("error");
  expect(events.at(-1)).toMatchObject({ type: "agent_end", stopReason: "error", error: "anthropic 529: Overloaded" });
  // Clients get the same failure typed, as the provider's answer was classified.
  expect(events.at(-1)).toMatchObject({ errorInfo: { kind: "overloaded", message: "anthropic 529: Overloaded", retryable: true } });
  const last = agent.messages.at(-1);
  expect(last?.role === "assistant" && last.failure?.kind).toBe("overloaded");
});

test("a usage-limit failure asks for another credential by its kind, and the same request goes out again with it", async () => {
  const asked: ProviderFailure[] = [];
  const fake = fakeStream([failed("usage limit reached", { kind: "usage-limit", status: 429, resetsAt: Date.now() + 3_600_000, retryable: false }), text("on the second account")]);
  const { agent } = agentWith(fake.stream, [], {
    rotateCredential: async (failure) => {
      asked.push(failure);
      return failure.kind === "usage-limit" && asked.length === 1 ? { apiKey: "second-key" } : undefined;
    },
  });
  expect(await agent.prompt("hi")).toBe("stop");
  expect(asked.map((f) => f.kind)).toEqual(["usage-limit"]);
  expect(fake.requests.map((r) => r.options.apiKey)).toEqual(["first-key", "second-key"]);
  expect(fake.requests[1]!.messages.map((m) => m.role)).toEqual(["user"]);
  expect(agent.messages.map((m) => [m.role, textOf(m)])).toEqual([
    ["user", "hi"],
    ["assistant", "on the second account"],
  ]);
});

/** An agent whose first reply calls echo; while it runs, `typing` queues messages as a user would mid-turn. */
function typedDuringTool(replies: Reply[], typing: (agent: Agent) => void) {
  const fake = fakeStream([toolCalls({ type: "toolCall", id: "c1", name: "echo", arguments: { text: "A" } }), ...replies]);
  const box: { agent?: Agent } = {};
  box.agent = agentWith(fake.stream, [echoTool(() => typing(box.agent!))]).agent;
  return { agent: box.agent, fake };
}

test("steering goes in after the running turn's tool results; a follow-up waits until the model has stopped", async () => {
  const { agent, fake } = typedDuringTool([text("a"), text("summary")], (typist) => {
    typist.followUp("and then summarise");
    typist.steer("use lowercase");
  });
  expect(await agent.prompt("start")).toBe("stop");
  expect(fake.requests).toHaveLength(3);
  const roles = (i: number) => fake.requests[i]!.messages.map((m) => `${m.role}:${textOf(m)}`);
  expect(roles(1)).toEqual(["user:start", "assistant:", "toolResult:echo: A", "user:use lowercase"]);
  expect(roles(2)).toEqual([...roles(1), "assistant:a", "user:and then summarise"]);
  expect(agent.queuedCount).toBe(0);
});

test("queued steering is taken one message per turn by default, or all at once in `all` mode", async () => {
  for (const mode of ["one-at-a-time", "all"] as const) {
    const { agent, fake } = typedDuringTool([text("one"), text("two")], (typist) => {
      typist.steer("first");
      typist.steer("second");
    });
    agent.steeringMode = mode;
    expect(await agent.prompt("go")).toBe("stop");
    const lastUser = (i: number) => fake.requests[i]!.messages.filter((m) => m.role === "user").map(textOf);
    if (mode === "one-at-a-time") {
      expect(fake.requests).toHaveLength(3);
      expect(lastUser(1)).toEqual(["go", "first"]);
      expect(lastUser(2)).toEqual(["go", "first", "second"]);
    } else {
      expect(fake.requests).toHaveLength(2);
      expect(lastUser(1)).toEqual(["go", "first", "second"]);
    }
  }
});

test("a prompt while the agent works is refused with what to do instead", async () => {
  const gate = Promise.withResolvers<void>();
  const waiting: Reply = async function* () {
    await gate.promise;
    yield* text("done")({ messages: [], tools: [], options: {} }, undefined);
  };
  const { agent } = agentWith(fakeStream([waiting]).stream);
  const run = agent.prompt("one");
  expect(() => agent.prompt("two")).toThrow("the agent is already working; steer or queue a follow-up instead");
  gate.resolve();
  expect(await run).toBe("stop");
});
