import { statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runOmp } from "../support/omp.ts";
import { COUNTED_TOKENS, type Standin, startStandin } from "../support/standin/index.ts";
import { type GatewayProcess, gatewayHome, startGatewayProcess, tokenOf, writeUpstreamModels } from "../support/gateway.ts";

/** `omp auth-gateway`: token, auth, endpoints, Claude Code's wire details, operations, accounts. */

let standin: Standin;
let home: string;
let gateway: GatewayProcess;

beforeAll(async () => {
  standin = await startStandin();
  home = gatewayHome();
  writeUpstreamModels(home, standin.url);
  gateway = await startGatewayProcess(home);
});

afterAll(async () => {
  await gateway?.stop();
  await standin?.close();
});

const env = { UPSTREAM_KEY: "sk-upstream-test", NO_PROXY: "127.0.0.1" };
const json = (response: Response): Promise<any> => response.json();
const auth = () => ({ authorization: `Bearer ${gateway.token}`, "content-type": "application/json" });

/** SSE events of a body as `{event, data}`, in order. */
async function sseEvents(response: Response): Promise<{ event?: string; data: any }[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "" && !block.startsWith(":"))
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
      return { event, data: data === "[DONE]" ? data : JSON.parse(data) };
    });
}

describe("token", () => {
  test("made once, 0600, printed the same until --regenerate replaces it", async () => {
    const dir = gatewayHome();
    const first = await tokenOf(dir);
    expect(first).toMatch(/^omp-gw-[A-Za-z0-9_-]{43}$/);
    expect(statSync(`${dir}/.omp/auth-gateway.token`).mode & 0o777).toBe(0o600);
    expect(await tokenOf(dir)).toBe(first);
    const json = JSON.parse((await runOmp(["auth-gateway", "token", "--regenerate", "--json"], { home: dir })).stdout);
    expect(json.token).not.toBe(first);
    expect(json.created).toBe(true);
    expect(await tokenOf(dir)).toBe(json.token);
  });

  test("--no-auth is refused off loopback and serves without a token on it", async () => {
    const refused = await runOmp(["auth-gateway", "serve", "--bind", "0.0.0.0:0", "--no-auth"], { home, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("only allowed on a loopback address");
    const open = await startGatewayProcess(home, {}, ["--no-auth"]);
    try {
      const response = await fetch(`${open.url}/v1/models`);
      expect(response.status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});

describe("endpoints and auth", () => {
  test("healthz needs no token; everything else does, as Bearer or x-api-key, and says how to fix a wrong one", async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    const missing = await fetch(`${gateway.url}/v1/models`);
    expect(missing.status).toBe(401);
    expect((await json(missing)).error.message).toContain("omp auth-gateway token");
    const wrong = await fetch(`${gateway.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": `${gateway.token}x` }, body: "{}" });
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error.type).toBe("authentication_error");
    const viaKey = await fetch(`${gateway.url}/v1/models`, { headers: { "content-type": "application/json", "x-api-key": gateway.token } });
    expect(viaKey.status).toBe(200);
    const list = await json(await fetch(`${gateway.url}/v1/models?limit=1000`, { headers: auth() }));
    expect(list.object).toBe("list");
    const ids = list.data.map((m: any) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["claude-up", "chat-up", "resp-up"]));
    expect(list.data.find((m: any) => m.id === "claude-up")).toMatchObject({ object: "model", type: "model", owned_by: "up-anthropic" });
  });

  test("a model is found bare or as provider/id; an unknown one is a 404 in the client's format", async () => {
    standin.setScript([{ text: "one" }]);
    const ok = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: auth(), body: JSON.stringify({ model: "up-responses/resp-up", messages: [{ role: "user", content: "hi" }] }) });
    expect((await json(ok)).choices[0].message.content).toBe("one");
    const missing = await fetch(`${gateway.url}/v1/messages`, { method: "POST", headers: auth(), body: JSON.stringify({ model: "no-such-model-zz", max_tokens: 5, messages: [] }) });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.type).toBe("not_found_error");
    const invalid = await fetch(`${gateway.url}/v1/responses`, { method: "POST", headers: auth(), body: JSON.stringify({ model: "resp-up" }) });
    expect(invalid.status).toBe(400);
    expect((await json(invalid)).error.message).toContain("input");
    const chained = await fetch(`${gateway.url}/v1/responses`, { method: "POST", headers: auth(), body: JSON.stringify({ model: "resp-up", input: "and then?", previous_response_id: "resp_1" }) });
    expect(chained.status).toBe(400);
    expect((await json(chained)).error.message).toContain("send the whole conversation");
  });

  test("a Claude Code request (?beta=true, unknown fields, system-role messages, adaptive thinking) streams in Anthropic's strict order", async () => {
    standin.setScript([{ thinking: "Considering.", text: "Done.", toolCalls: [{ name: "Bash", arguments: { command: "ls" } }], usage: { input: 300, output: 20, cacheRead: 100 } }]);
    const body = {
      model: "chat-up",
      max_tokens: 32000,
      stream: true,
      system: [{ type: "text", text: "x-anthropic-billing-header: cc_version=2.1" }, { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "system", content: "Extra instructions." },
        { role: "user", content: [{ type: "text", text: "list files", cache_control: { type: "ephemeral" } }] },
      ],
      thinking: { type: "adaptive", display: "summarized" },
      output_config: { effort: "high" },
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      metadata: { user_id: JSON.stringify({ device_id: "d", session_id: "5f1c0e8e-0000-4000-8000-000000000001" }) },
      tools: [
        { name: "Bash", description: "run", input_schema: { type: "object", properties: { command: { type: "string" } } } },
        { name: "Later", description: "deferred", input_schema: { type: "object" }, defer_loading: true },
        { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" },
      ],
    };
    const response = await fetch(`${gateway.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": gateway.token, "anthropic-version": "2099-01-01", "anthropic-beta": "context-management-2025-06-27", "x-claude-code-session-id": "sess-1" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    const events = await sseEvents(response);
    expect(events[0]!.event).toBe("message_start");
    expect(events[0]!.data.message.usage.input_tokens).toBeGreaterThan(0);
    expect(events.at(-1)!.event).toBe("message_stop");
    expect(events.at(-2)!.event).toBe("message_delta");
    expect(events.at(-2)!.data.delta.stop_reason).toBe("tool_use");
    expect(events.at(-2)!.data.usage).toMatchObject({ input_tokens: 300, cache_read_input_tokens: 100, output_tokens: 20 });
    // Every delta follows its block's start, indices are contiguous, each block stops once.
    const open = new Set<number>();
    let next = 0;
    for (const { event, data } of events) {
      if (event === "content_block_start") {
        expect(data.index).toBe(next++);
        open.add(data.index);
      } else if (event === "content_block_delta") expect(open.has(data.index)).toBe(true);
      else if (event === "content_block_stop") expect(open.delete(data.index)).toBe(true);
    }
    expect(open.size).toBe(0);
    expect(events.filter((e) => e.event === "content_block_start").map((e) => e.data.content_block.type)).toEqual(["thinking", "text", "tool_use"]);
    const sent = standin.requests.at(-1)!.body;
    expect(sent.messages[0].role).toBe("system");
    expect(sent.messages[0].content).toContain("You are Claude Code.");
    expect(sent.messages[0].content).toContain("Extra instructions.");
    expect(sent.tools.map((t: any) => t.function.name)).toEqual(["Bash", "Later"]);
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBeLessThanOrEqual(16_384);
  });

  test("count_tokens answers for Claude Code's /context: Anthropic's own count for an Anthropic upstream, an estimate otherwise", async () => {
    const count = async (model: string) => {
      const response = await fetch(`${gateway.url}/v1/messages/count_tokens?beta=true`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": gateway.token },
        body: JSON.stringify({ model, system: "Be brief.", messages: [{ role: "user", content: "hello there, how many tokens is this?" }] }),
      });
      expect(response.status).toBe(200);
      return (await json(response)).input_tokens;
    };
    expect(await count("claude-up")).toBe(COUNTED_TOKENS);
    const asked = standin.requests.at(-1)!;
    expect(asked.path).toBe("/v1/messages/count_tokens");
    expect(asked.headers["x-api-key"]).toBe("sk-upstream-test");
    expect(asked.body).toMatchObject({ model: "claude-up", system: [{ text: "Be brief." }] });
    expect(asked.body.stream).toBeUndefined();
    const estimate = await count("chat-up");
    expect(estimate).toBeGreaterThan(5);
    expect(estimate).not.toBe(COUNTED_TOKENS);
  });
});

describe("operations", () => {
  test("usage per client token and model in SQLite at /v1/usage, Prometheus text at /metrics, one log line per request without prompt or token", async () => {
    standin.setScript([{ text: "counted", usage: { input: 11, output: 4, cacheRead: 2 } }]);
    const before = (await json(await fetch(`${gateway.url}/v1/usage`, { headers: auth() }))).data.find((r: any) => r.model === "claude-up");
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: auth(),
      body: JSON.stringify({ model: "claude-up", messages: [{ role: "user", content: "SECRET-PROMPT-TEXT" }] }),
    });
    const id = response.headers.get("x-request-id")!;
    expect((await json(response)).choices[0].message.content).toBe("counted");
    const usage = await json(await fetch(`${gateway.url}/v1/usage`, { headers: auth() }));
    const row = usage.data.find((r: any) => r.model === "claude-up" && r.client === usage.client);
    expect(row.client).toMatch(/^tok_[0-9a-f]{12}$/);
    expect(row.requests).toBe((before?.requests ?? 0) + 1);
    expect(row.input_tokens - (before?.input_tokens ?? 0)).toBe(11);
    expect(row.output_tokens - (before?.output_tokens ?? 0)).toBe(4);
    expect(row.cache_read_tokens - (before?.cache_read_tokens ?? 0)).toBe(2);
    const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: auth() })).text();
    expect(metrics).toMatch(/omp_gateway_requests_total\{endpoint="\/v1\/chat\/completions",status="200"\} \d+/);
    expect(metrics).toMatch(/omp_gateway_tokens_total\{provider="up-anthropic",model="claude-up",type="output"\} \d+/);
    const line = gateway
      .stderr()
      .split("\n")
      .find((l) => l.includes(id));
    expect(JSON.parse(line!)).toMatchObject({ id, path: "/v1/chat/completions", status: 200, model: "up-anthropic/claude-up", output: 4 });
    expect(gateway.stderr()).not.toContain("SECRET-PROMPT-TEXT");
    expect(gateway.stderr()).not.toContain(gateway.token);
    expect(gateway.stderr()).not.toContain("sk-upstream-test");
  });

  test("a client that disconnects aborts the upstream request", async () => {
    standin.setScript([{ text: "a b c d e f g h i j k l m n o p", eventDelayMs: 150 }]);
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": gateway.token },
      body: JSON.stringify({ model: "claude-up", max_tokens: 50, stream: true, messages: [{ role: "user", content: "go" }] }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const recorded = standin.requests.at(-1)!;
    const deadline = Date.now() + 5000;
    while (!recorded.disconnected && Date.now() < deadline) await Bun.sleep(50);
    expect(recorded.disconnected).toBe(true);
  });

  test("status and check report what is served; check --strict probes each credential", async () => {
    const status = await runOmp(["auth-gateway", "status", "--bind", gateway.url.replace("http://", ""), "--json"], { home, env });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, token: { exists: true }, models: 4, providers: ["up-anthropic", "up-chat", "up-gemini", "up-responses"] });
    const stopped = await runOmp(["auth-gateway", "status", "--bind", "127.0.0.1:1"], { home, env });
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain("not running");
    const check = JSON.parse((await runOmp(["auth-gateway", "check", "--json"], { home, env })).stdout);
    expect(check.map((r: any) => [r.provider, r.ok, r.source])).toEqual([
      ["up-anthropic", true, "models.yml apiKey ($UPSTREAM_KEY)"],
      ["up-chat", true, "models.yml apiKey ($UPSTREAM_KEY)"],
      ["up-gemini", true, "models.yml apiKey ($UPSTREAM_KEY)"],
      ["up-responses", true, "models.yml apiKey ($UPSTREAM_KEY)"],
    ]);
    standin.setScript([{ text: "OK" }, { status: 401 }, { text: "OK" }, { text: "OK" }]);
    const strict = await runOmp(["auth-gateway", "check", "--strict"], { home, env });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/FAIL up-chat .*probe chat-up failed: .*401/);
    expect(strict.stdout).toMatch(/ok {3}up-responses .*probe resp-up ok/);
  });

  test("SIGTERM stops taking requests but lets a running stream finish", async () => {
    const own = await startGatewayProcess(home);
    standin.setScript([{ text: "one two three four five six seven eight", eventDelayMs: 120 }]);
    const response = await fetch(`${own.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": own.token },
      body: JSON.stringify({ model: "claude-up", max_tokens: 50, stream: true, messages: [{ role: "user", content: "go" }] }),
    });
    const reader = response.body!.getReader();
    await reader.read();
    own.proc.kill("SIGTERM");
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain("event: message_stop");
    expect(await own.exited()).toBe(0);
    expect(own.stderr()).toContain("letting running requests finish");
  });
});

describe("accounts", () => {
  test("a conversation sticks to one credential; a usage limit moves it to another before anything streamed", async () => {
    const dir = gatewayHome();
    // models.yml's key (UPSTREAM_KEY) comes first, the stored keys after: three accounts.
    writeUpstreamModels(dir, standin.url);
    for (const key of ["sk-account-one", "sk-account-two"]) {
      expect((await runOmp(["auth", "add", "up-anthropic", "--key", key], { home: dir })).code).toBe(0);
    }
    const own = await startGatewayProcess(dir);
    try {
      const ask = (session: string) =>
        fetch(`${own.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": own.token, "x-claude-code-session-id": session },
          body: JSON.stringify({ model: "claude-up", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }),
        });
      standin.setScript([{ text: "a" }, { text: "b" }, { text: "c" }]);
      const start = standin.requests.length;
      for (let i = 0; i < 3; i++) expect((await ask("conversation-A")).status).toBe(200);
      const keys = standin.requests.slice(start).map((r) => r.headers["x-api-key"]);
      expect(new Set(keys).size).toBe(1);

      // The account in use hits its limit: the same request is answered by the other account.
      standin.setScript([{ status: 429, retryAfter: 60 }, { text: "from the other account" }, { text: "still there" }]);
      const mark = standin.requests.length;
      const moved = await ask("conversation-A");
      expect(moved.status).toBe(200);
      expect((await json(moved)).content[0].text).toBe("from the other account");
      const [limited, other] = standin.requests.slice(mark).map((r) => r.headers["x-api-key"]);
      expect(limited).toBe(keys[0]);
      expect(other).not.toBe(limited);
      // And the conversation stays there.
      await ask("conversation-A");
      expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe(other);
    } finally {
      await own.stop();
    }
  });
});

test("a provider silent for seconds before answering still gets the client a stream opened early, with the reply after", async () => {
  standin.setScript([{ text: "worth the wait", delayMs: 4500 }]);
  const sentAt = performance.timeOrigin + performance.now();
  const response = await fetch(`${gateway.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": gateway.token },
    body: JSON.stringify({ model: "claude-up", max_tokens: 50, stream: true, messages: [{ role: "user", content: "go" }] }),
  });
  const headersAt = performance.timeOrigin + performance.now();
  expect(response.status).toBe(200);
  const events = await sseEvents(response);
  const recorded = standin.requests.at(-1)!;
  // The stream opened while the provider had not answered yet.
  expect(headersAt).toBeLessThan(recorded.respondedAt!);
  expect(headersAt - sentAt).toBeLessThan(4500);
  expect(events[0]!.event).toBe("message_start");
  expect(events[1]!.event).toBe("ping");
  expect(events.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta.text).join("")).toBe("worth the wait");
  expect(events.at(-1)!.event).toBe("message_stop");
});

test("a key added with `omp auth add` while the gateway runs is served without a restart", async () => {
  const dir = gatewayHome();
  const own = await startGatewayProcess(dir, { ANTHROPIC_BASE_URL: standin.url });
  try {
    const ids = async () => (await json(await fetch(`${own.url}/v1/models`, { headers: { authorization: `Bearer ${own.token}` } }))).data.map((m: any) => m.owned_by);
    expect(await ids()).not.toContain("anthropic");
    expect((await runOmp(["auth", "add", "anthropic", "--key", "sk-ant-added-later"], { home: dir })).code).toBe(0);
    expect(await ids()).toContain("anthropic");
    standin.setScript([{ text: "served" }]);
    const response = await fetch(`${own.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": own.token },
      body: JSON.stringify({ model: "anthropic/claude-opus-5-5", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }),
    });
    expect((await json(response)).content[0].text).toBe("served");
    expect(standin.requests.at(-1)!.headers["x-api-key"]).toBe("sk-ant-added-later");
  } finally {
    await own.stop();
  }
});
