import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Standin, Turn } from "../support/standin/index.ts";
import { type GatewayProcess, UPSTREAMS, type UpstreamCase } from "../support/gateway.ts";
import { caught, startSdkGateway } from "../support/gateway-sdk.ts";

/**
 * The official SDKs against `omp auth-gateway serve`, through their strict stream helpers, for
 * every client format × every upstream format (the provider stand-in behind the gateway).
 */

const IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const SYSTEM = "You are terse. SYSTEM-MARKER";
const TOOL = { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const FIRST: Turn = { thinking: "Let me look at the file.", text: "Reading it.", toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }], usage: { input: 20, output: 9, cacheRead: 5 } };
const SECOND: Turn = { text: "The file says hi.", usage: { input: 40, output: 6, cacheRead: 25 } };

type Client = "anthropic" | "chat" | "responses";
const FORMAT_OF = { "anthropic-messages": "anthropic", "openai-completions": "openai-completions", "openai-responses": "openai-responses", "google-generative-ai": "google" } as const;
const CLIENTS: Client[] = ["anthropic", "chat", "responses"];

interface Result {
  text: string;
  thinking: string;
  calls: { id: string; name: string; args: Record<string, unknown> }[];
  stop: "stop" | "toolUse" | "length";
  /** Input tokens including cache reads, output, cache reads. */
  usage: { input: number; output: number; cacheRead: number };
  raw: any;
}

let standin: Standin;
let gateway: GatewayProcess;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  ({ standin, gateway, anthropic, openai } = await startSdkGateway());
});

afterAll(async () => {
  await gateway?.stop();
  await standin?.close();
});

/** The question of turn one, a text and an image, in each client's format. */
const ANTHROPIC_QUESTION: Anthropic.MessageParam = { role: "user", content: [{ type: "text", text: "What is in notes.txt?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: IMAGE } }] };
const CHAT_QUESTION: OpenAI.ChatCompletionMessageParam = { role: "user", content: [{ type: "text", text: "What is in notes.txt?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${IMAGE}` } }] };
const RESPONSES_QUESTION: OpenAI.Responses.ResponseInputItem = { role: "user", content: [{ type: "input_text", text: "What is in notes.txt?" }, { type: "input_image", image_url: `data:image/png;base64,${IMAGE}`, detail: "auto" }] };

/** Turn one as each client sends it: system prompt, text and an image, one tool. */
async function firstTurn(client: Client, model: string): Promise<Result> {
  if (client === "anthropic") {
    return anthropicTurn(model, [ANTHROPIC_QUESTION]);
  }
  if (client === "chat") {
    const stream = openai.chat.completions.stream({
        model,
        stream_options: { include_usage: true },
        reasoning_effort: "low",
        tools: [{ type: "function", function: TOOL }],
        messages: [
          { role: "system", content: SYSTEM },
          CHAT_QUESTION,
        ],
      });
    // The SDK's accumulator keeps only the last piece of fields it does not know; readers of
    // reasoning_content (DeepSeek's field) concatenate the deltas, as this does.
    let reasoning = "";
    stream.on("chunk", (chunk: any) => (reasoning += chunk.choices[0]?.delta?.reasoning_content ?? ""));
    const result = fromChat(await stream.finalChatCompletion());
    return { ...result, thinking: reasoning };
  }
  const r = await openai.responses
    .stream({
      model,
      instructions: SYSTEM,
      reasoning: { effort: "low" },
      include: ["reasoning.encrypted_content"],
      store: false,
      tools: [{ type: "function", name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters, strict: false }],
      input: [RESPONSES_QUESTION],
    })
    .finalResponse();
  return fromResponses(r);
}

/**
 * Turn two: the whole history as a real client resends it (its own first message unchanged, then
 * the reply as it got it back: thinking, signatures, call ids), plus the tool's result. Anthropic
 * accepts signed thinking back only after the very prefix it was produced after.
 */
async function secondTurn(client: Client, model: string, first: Result, editedQuestion?: string): Promise<Result> {
  const call = first.calls[0]!;
  const question = <T>(asSent: T): T => (editedQuestion === undefined ? asSent : ({ role: "user", content: editedQuestion } as T));
  if (client === "anthropic") {
    return anthropicTurn(model, [
      question(ANTHROPIC_QUESTION),
      { role: "assistant", content: first.raw.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "hi from notes" }] },
    ]);
  }
  if (client === "chat") {
    const c = await openai.chat.completions
      .stream({
        model,
        stream_options: { include_usage: true },
        tools: [{ type: "function", function: TOOL }],
        messages: [
          { role: "system", content: SYSTEM },
          question(CHAT_QUESTION),
          first.raw.choices[0].message,
          { role: "tool", tool_call_id: call.id, content: "hi from notes" },
        ],
      })
      .finalChatCompletion();
    return fromChat(c);
  }
  const r = await openai.responses
    .stream({
      model,
      instructions: SYSTEM,
      reasoning: { effort: "low" },
      store: false,
      tools: [{ type: "function", name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters, strict: false }],
      input: [
        question(RESPONSES_QUESTION),
        ...first.raw.output.map(({ parsed_arguments, ...item }: any) => ({ ...item, content: item.content?.map(({ parsed, ...c }: any) => c) })),
        { type: "function_call_output", call_id: call.id, output: "hi from notes" },
      ],
    })
    .finalResponse();
  return fromResponses(r);
}

async function anthropicTurn(model: string, messages: Anthropic.MessageParam[]): Promise<Result> {
  const m = await anthropic.messages
    .stream({
      model,
      max_tokens: 1000,
      system: SYSTEM,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters as any }],
      messages,
    })
    .finalMessage();
  return fromAnthropic(m);
}

function fromAnthropic(m: Anthropic.Message): Result {
  const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const thinking = m.content.flatMap((b) => (b.type === "thinking" ? [b.thinking] : [])).join("");
  const calls = m.content.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, args: b.input as Record<string, unknown> }] : []));
  const stop = m.stop_reason === "tool_use" ? "toolUse" : m.stop_reason === "max_tokens" ? "length" : "stop";
  const u = m.usage;
  return { text, thinking, calls, stop, usage: { input: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0), output: u.output_tokens, cacheRead: u.cache_read_input_tokens ?? 0 }, raw: m };
}

function fromChat(c: any): Result {
  const message = c.choices[0].message;
  const calls = (message.tool_calls ?? []).map((t: any) => ({ id: t.id, name: t.function.name, args: JSON.parse(t.function.arguments) }));
  const finish = c.choices[0].finish_reason;
  return {
    text: message.content ?? "",
    thinking: message.reasoning_content ?? "",
    calls,
    stop: finish === "tool_calls" ? "toolUse" : finish === "length" ? "length" : "stop",
    usage: { input: c.usage.prompt_tokens, output: c.usage.completion_tokens, cacheRead: c.usage.prompt_tokens_details?.cached_tokens ?? 0 },
    raw: c,
  };
}

function fromResponses(r: any): Result {
  const calls = r.output.filter((o: any) => o.type === "function_call").map((o: any) => ({ id: o.call_id, name: o.name, args: JSON.parse(o.arguments) }));
  const thinking = r.output.filter((o: any) => o.type === "reasoning").flatMap((o: any) => o.summary.map((s: any) => s.text)).join("");
  return {
    text: r.output_text,
    thinking,
    calls,
    stop: r.status === "incomplete" ? "length" : calls.length > 0 ? "toolUse" : "stop",
    usage: { input: r.usage.input_tokens, output: r.usage.output_tokens, cacheRead: r.usage.input_tokens_details.cached_tokens },
    raw: r,
  };
}

/** The native signature the stand-in issued for its reply, as it must come back to the same upstream. */
function nativeSignature(upstream: UpstreamCase, serial: number): string | undefined {
  if (upstream.api === "anthropic-messages") return `sig_standin_${serial}`;
  if (upstream.api === "openai-responses") return `enc_standin_${serial}`;
  return undefined;
}

describe.each(CLIENTS)("%s client", (client) => {
  test.each(UPSTREAMS.map((u) => [u.api, u] as const))("over %s: text, thinking, image, tool call, usage, and the history sent back", async (_api, upstream) => {
    standin.setScript([FIRST, SECOND]);
    const before = standin.requests.length;
    const first = await firstTurn(client, upstream.model);
    expect(first.text).toBe("Reading it.");
    expect(first.calls).toHaveLength(1);
    expect(first.calls[0]!.name).toBe("read_file");
    expect(first.calls[0]!.args).toEqual({ path: "notes.txt" });
    expect(first.stop).toBe("toolUse");
    expect(first.thinking).toBe("Let me look at the file.");
    expect(first.usage).toEqual({ input: 25, output: 9, cacheRead: 5 });
    // Anthropic tool ids must match ^[a-zA-Z0-9_-]+$ whatever the upstream made.
    if (client === "anthropic") expect(first.calls[0]!.id).toMatch(/^[a-zA-Z0-9_-]+$/);

    const sent = standin.requests[before]!;
    expect(sent.format).toBe(FORMAT_OF[upstream.api]);
    const body = JSON.stringify(sent.body);
    expect(body).toContain("SYSTEM-MARKER");
    expect(body).toContain(IMAGE);
    expect(body).toContain("read_file");
    expect(sent.headers["authorization"] ?? sent.headers["x-api-key"] ?? sent.headers["x-goog-api-key"]).toContain("sk-upstream-test");

    const second = await secondTurn(client, upstream.model, first);
    expect(second.text).toBe("The file says hi.");
    expect(second.stop).toBe("stop");
    expect(second.usage).toEqual({ input: 65, output: 6, cacheRead: 25 });
    const replay = standin.requests[before + 1]!;
    const replayed = JSON.stringify(replay.body);
    // The result answers the call under the id the upstream gave it.
    const upstreamId = JSON.stringify(sent.body).length > 0 ? callIdIn(replay.body, upstream) : undefined;
    expect(upstreamId).toBeDefined();
    expect(resultIdIn(replay.body, upstream)).toBe(upstreamId!);
    expect(replayed).toContain("hi from notes");
    // Signed thinking goes back byte-exact to the provider that signed it; Chat clients cannot carry it.
    const signature = nativeSignature(upstream, serialOf(sent, standin));
    if (signature && client !== "chat") expect(replayed).toContain(`"${signature}"`);
    if (signature && client === "chat") expect(replayed).not.toContain(signature);
  });
});

function serialOf(request: { body: any }, s: Standin): number {
  return s.requests.filter((r) => r.method === "POST" && r.format !== undefined && !r.refused).indexOf(request as any) + 1;
}

/** Gemini matches calls and results by name, not id. */
const geminiParts = (body: any) => body.contents.flatMap((c: any) => c.parts);

function callIdIn(body: any, upstream: UpstreamCase): string | undefined {
  if (upstream.api === "google-generative-ai") return geminiParts(body).find((p: any) => p.functionCall)?.functionCall.name;
  if (upstream.api === "anthropic-messages") return body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_use")?.id;
  if (upstream.api === "openai-completions") return body.messages.find((m: any) => m.tool_calls)?.tool_calls[0].id;
  return body.input.find((i: any) => i.type === "function_call")?.call_id;
}

function resultIdIn(body: any, upstream: UpstreamCase): string | undefined {
  if (upstream.api === "google-generative-ai") return geminiParts(body).find((p: any) => p.functionResponse)?.functionResponse.name;
  if (upstream.api === "anthropic-messages") return body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result")?.tool_use_id;
  if (upstream.api === "openai-completions") return body.messages.find((m: any) => m.role === "tool")?.tool_call_id;
  return body.input.find((i: any) => i.type === "function_call_output")?.call_id;
}

interface FaultCase {
  name: string;
  turn: Turn;
  status: Record<Client, number>;
  kind: Record<Client, string>;
  retryAfter?: string;
}

const FAULTS: FaultCase[] = [
  { name: "rate limit", turn: { status: 429, retryAfter: 7 }, status: { anthropic: 429, chat: 429, responses: 429 }, kind: { anthropic: "rate_limit_error", chat: "rate_limit_exceeded", responses: "rate_limit_exceeded" }, retryAfter: "7" },
  { name: "rejected key", turn: { status: 401 }, status: { anthropic: 401, chat: 401, responses: 401 }, kind: { anthropic: "authentication_error", chat: "invalid_api_key", responses: "invalid_api_key" } },
  { name: "bad request", turn: { status: 400, message: "prompt is too long" }, status: { anthropic: 400, chat: 400, responses: 400 }, kind: { anthropic: "invalid_request_error", chat: "invalid_request_error", responses: "invalid_request_error" } },
  { name: "overload", turn: { overloaded: true }, status: { anthropic: 529, chat: 503, responses: 503 }, kind: { anthropic: "overloaded_error", chat: "server_is_overloaded", responses: "server_is_overloaded" } },
  { name: "server error", turn: { status: 500 }, status: { anthropic: 500, chat: 500, responses: 500 }, kind: { anthropic: "api_error", chat: "server_error", responses: "server_error" } },
];

async function simpleTurn(client: Client, model: string): Promise<Result> {
  if (client === "anthropic") return fromAnthropic(await anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage());
  if (client === "chat") return fromChat(await openai.chat.completions.stream({ model, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] }).finalChatCompletion());
  return fromResponses(await openai.responses.stream({ model, input: "hi" }).finalResponse());
}

const header = (error: any, name: string): string | null | undefined => (typeof error.headers?.get === "function" ? error.headers.get(name) : error.headers?.[name]);

describe.each(CLIENTS)("%s client errors", (client) => {
  test.each(UPSTREAMS.map((u) => [u.api, u] as const))("over %s: each error kind in the client's envelope and status", async (_api, upstream) => {
    for (const fault of FAULTS) {
      standin.setScript([fault.turn]);
      const error = await caught(simpleTurn(client, upstream.model));
      expect({ fault: fault.name, status: error.status }).toEqual({ fault: fault.name, status: fault.status[client] });
      const kind = client === "anthropic" ? error.error?.error?.type : (error.code ?? error.type);
      expect({ fault: fault.name, kind }).toEqual({ fault: fault.name, kind: fault.kind[client] });
      if (fault.retryAfter) expect(header(error, "retry-after")).toBe(fault.retryAfter);
      expect(header(error, "x-request-id")).toMatch(/^req_/);
    }
  });

  test.each(UPSTREAMS.map((u) => [u.api, u] as const))("over %s: a failure mid-stream reaches the client as an error, not a short answer", async (_api, upstream) => {
    standin.setScript([{ text: "This answer will be cut off somewhere in the middle", streamErrorAfterEvents: 4 }]);
    let outcome: any;
    try {
      outcome = await simpleTurn(client, upstream.model);
    } catch (error) {
      outcome = error;
    }
    if (client === "responses" && !(outcome instanceof Error)) expect(outcome.raw.status).toBe("failed");
    else expect(outcome).toBeInstanceOf(Error);
    // The provider said it was overloaded; the client hears that in its own terms.
    if (client === "anthropic") expect(outcome.error?.error?.type).toBe("overloaded_error");
  });
});

test("arguments that arrive only at the end are still delivered, and a non-streamed request gets the whole reply", async () => {
  // Gemini-style: the stand-in's Google format sends arguments as one object; here the Responses
  // stand-in's call is checked through a non-streaming Chat request and a streaming Anthropic one.
  standin.setScript([{ toolCalls: [{ name: "read_file", arguments: { path: "x" } }] }, { toolCalls: [{ name: "read_file", arguments: { path: "y" } }] }]);
  const whole = await openai.chat.completions.create({ model: "resp-up", messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: TOOL }] });
  expect(whole.choices[0]!.finish_reason).toBe("tool_calls");
  expect(JSON.parse(whole.choices[0]!.message.tool_calls![0]!.type === "function" ? (whole.choices[0]!.message.tool_calls![0] as any).function.arguments : "{}")).toEqual({ path: "x" });
  const streamed = await anthropic.messages.stream({ model: "resp-up", max_tokens: 100, messages: [{ role: "user", content: "go" }], tools: [{ name: TOOL.name, input_schema: TOOL.parameters as any }] }).finalMessage();
  expect(streamed.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "read_file", input: { path: "y" } });
});

test("thinking signed for one model is dropped, not forged, when the conversation moves to another", async () => {
  standin.setScript([FIRST, SECOND]);
  const first = await firstTurn("anthropic", "claude-up");
  const before = standin.requests.length;
  await secondTurn("anthropic", "resp-up", first);
  const replay = standin.requests[before]!.body;
  expect(JSON.stringify(replay)).not.toContain("sig_standin_");
  expect(replay.input.some((i: any) => i.type === "reasoning")).toBe(false);
  // The call and its result still go across, with matching ids.
  expect(callIdIn(replay, UPSTREAMS[2])).toBe(resultIdIn(replay, UPSTREAMS[2])!);
});

test.each(["anthropic", "responses"] as const)("%s client: signed thinking after an edited history is refused by Anthropic, and the turn goes again without it", async (client) => {
  standin.setScript([FIRST, SECOND]);
  const first = await firstTurn(client, "claude-up");
  const before = standin.requests.length;
  const second = await secondTurn(client, "claude-up", first, "What does notes.txt say?");
  expect(second.text).toBe("The file says hi.");
  const [refused, retried, ...more] = standin.requests.slice(before).map((r) => r.body);
  expect(more).toHaveLength(0);
  expect(JSON.stringify(refused)).toMatch(/"sig_standin_\d+"/);
  expect(JSON.stringify(retried)).not.toContain("sig_standin_");
  expect(retried.messages[0].content).toEqual([{ type: "text", text: "What does notes.txt say?" }]);
  expect(JSON.stringify(retried.messages[1])).toContain("Reading it.");
  expect(callIdIn(retried, UPSTREAMS[0])).toBe(resultIdIn(retried, UPSTREAMS[0])!);
});

test.each(UPSTREAMS.map((u) => [u.api, u] as const))("over %s a reply cut by the token limit says so in each format, streamed or not", async (_api, upstream) => {
  standin.setScript(Array.from({ length: 6 }, () => ({ text: "cut here", stop: "length" as const })));
  for (const client of CLIENTS) expect({ client, stop: (await simpleTurn(client, upstream.model)).stop }).toEqual({ client, stop: "length" });
  const message = await anthropic.messages.create({ model: upstream.model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
  expect(message.stop_reason).toBe("max_tokens");
  expect(message.content).toMatchObject([{ type: "text", text: "cut here" }]);
  const response = await openai.responses.create({ model: upstream.model, input: "hi" });
  expect(response.status).toBe("incomplete");
  expect(response.incomplete_details?.reason).toBe("max_output_tokens");
  expect(response.output_text).toBe("cut here");
});

test.each(UPSTREAMS.map((u) => [u.api, u] as const))("over %s parallel tool calls keep their own ids, names and arguments in every format", async (_api, upstream) => {
  const calls = [
    { name: "read_file", arguments: { path: "a.txt" } },
    { name: "list_dir", arguments: { path: "src", depth: 2 } },
  ];
  standin.setScript(CLIENTS.map(() => ({ text: "Two at once.", toolCalls: calls })));
  for (const client of CLIENTS) {
    const result = await simpleTurn(client, upstream.model);
    expect({ client, calls: result.calls.map((c) => ({ name: c.name, arguments: c.args })) }).toEqual({ client, calls });
    expect(new Set(result.calls.map((c) => c.id)).size).toBe(2);
    expect(result.stop).toBe("toolUse");
  }
});

test("Codex's freeform (custom) tools: served as a function elsewhere, returned as custom_tool_call with its raw input, and sent back", async () => {
  const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch";
  standin.setScript([{ toolCalls: [{ name: "apply_patch", arguments: { input: patch } }] }, { text: "Patched." }]);
  const tools: any = [{ type: "custom", name: "apply_patch", description: "Apply a patch.", format: { type: "grammar", syntax: "lark", definition: "start: begin_patch" } }];
  const before = standin.requests.length;
  const first = await openai.responses.stream({ model: "claude-up", input: "add hello.txt", tools }).finalResponse();
  const call: any = first.output.find((o: any) => o.type === "custom_tool_call");
  expect(call).toMatchObject({ name: "apply_patch", input: patch });
  const upstreamTool = standin.requests[before]!.body.tools[0];
  expect(upstreamTool.name).toBe("apply_patch");
  expect(upstreamTool.description).toContain("start: begin_patch");
  expect(upstreamTool.input_schema.required).toEqual(["input"]);

  await openai.responses
    .stream({ model: "claude-up", tools, input: [{ role: "user", content: "add hello.txt" }, call, { type: "custom_tool_call_output", call_id: call.call_id, output: "Done!" }] })
    .finalResponse();
  const replay = standin.requests[before + 1]!.body;
  const use = replay.messages[1].content.find((b: any) => b.type === "tool_use");
  expect(use.input).toEqual({ input: patch });
  expect(replay.messages[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: use.id });
});
