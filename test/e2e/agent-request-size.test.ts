// Request economy: the first request a default session sends (system prompt, the tools sent as they
// are, search_tool_bm25 for the deferred ones, the user's words) stays small in every wire format:
// at most 16 KB in print mode with every tool available, and never over 24 KB in any mode (json,
// rpc, ACP, plan mode, interactive). Rarely needed tools are found with search_tool_bm25 instead of sent
// (tool-discovery.test.ts). bench/results/request-size.md records the sizes. A whole session stays
// lean too: bench/tool-loop.ts's 11-request session sends at most 200 KB of request bodies in all.
import { describe, expect, test } from "bun:test";
import { AcpClient } from "../support/acp-client.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { agentTestFile, modelRequests, providerTable, runAgent, toolNamesOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { writeToolLoopTree } from "../support/fixture-tree.ts";
import { tempDir } from "../support/temp.ts";
import { readySessions } from "../support/tty-session.ts";

const standin = await agentTestFile();
const ready = readySessions();
const PRINT_LIMIT = 16 * 1024;
const LIMIT = 24 * 1024;
const SESSION_LIMIT = 200 * 1000;
const [, ANTHROPIC] = providerTable()[0]!;

/** The size of the first request from `before` on; a failure names it, so whoever grew it sees by how much. */
function firstRequestBytes(before: number, limit: number): { bytes: number; body: any } {
  const body = modelRequests(standin)[before]!.body;
  const bytes = Buffer.byteLength(JSON.stringify(body));
  expect({ bytes, withinLimit: bytes <= limit }).toEqual({ bytes, withinLimit: true });
  return { bytes, body };
}

describe("the first request's size", () => {
  test.each(providerTable())("%s: print mode, every tool available: at most 16 KB", async (_api, provider) => {
    const api = provider.api;
    const { home, repo } = workspace();
    standin.setScript([{ text: "ok" }]);
    const before = modelRequests(standin).length;
    const result = await runAgent(["-p", "--model", provider.model, "hi"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    const { body } = firstRequestBytes(before, PRINT_LIMIT);
    // Not an empty request that passes by accident: the essential tools and the search for the rest are in it.
    const names = toolNamesOf(api, body);
    expect(names).toContain("bash");
    expect(names).toContain("search_tool_bm25");
  });

  test("json mode and plan mode: at most 24 KB", async () => {
    for (const args of [["--mode", "json"], ["--approval-mode", "plan"]]) {
      const { home, repo } = workspace();
      standin.setScript([{ text: "ok" }]);
      const before = modelRequests(standin).length;
      const result = await runAgent(["-p", ...args, "--model", ANTHROPIC.model, "hi"], { home, cwd: repo, env: ANTHROPIC.env(standin.url) });
      expect(result.code).toBe(0);
      firstRequestBytes(before, LIMIT);
    }
  });

  test("rpc mode, with the plan-mode tools (ask, exit_plan_mode): at most 24 KB", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "ok" }]);
    const before = modelRequests(standin).length;
    const rpc = new RpcProcess(["--model", ANTHROPIC.model, "--approval-mode", "plan"], { home, cwd: repo, env: ANTHROPIC.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "hi" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
    } finally {
      await rpc.close();
    }
    const { body } = firstRequestBytes(before, LIMIT);
    expect(toolNamesOf("anthropic-messages", body)).toContain("exit_plan_mode");
  });

  test("ACP: at most 24 KB", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "ok" }]);
    const before = modelRequests(standin).length;
    const client = new AcpClient({ home, cwd: repo, env: ANTHROPIC.env(standin.url), args: ["acp", "--model", ANTHROPIC.model] });
    try {
      await client.initialize();
      const session = await client.newSession(repo);
      expect((await client.prompt(session.sessionId, "hi")).stopReason).toBe("end_turn");
    } finally {
      await client.close();
    }
    firstRequestBytes(before, LIMIT);
  });

  test("interactive: at most 24 KB", async () => {
    const s = await ready({ script: [{ text: "Hello there." }] });
    s.tty.type("hi");
    s.tty.press("Enter");
    await s.tty.waitFor("Hello there.");
    const body = s.standin.requests.find((r) => r.method === "POST")!.body;
    const bytes = Buffer.byteLength(JSON.stringify(body));
    expect({ bytes, withinLimit: bytes <= LIMIT }).toEqual({ bytes, withinLimit: true });
    expect(toolNamesOf("anthropic-messages", body)).toContain("ask");
  });
});

describe("a session's request bytes", () => {
  test("bench/tool-loop.ts's 11-request session (reads of a 5 KB module and `ls src` in turn) sends at most 200 KB in all; tools and system prompt are the same bytes in every request", async () => {
    // A plain folder, as the bench's: no git section in the system prompt.
    const home = tempDir("omp-agent-home-");
    const dir = tempDir("omp-session11-");
    writeToolLoopTree(dir);
    const calls = Array.from({ length: 10 }, (_, i) => ({ toolCalls: [i % 2 === 0 ? { name: "read", arguments: { path: "module.ts" } } : { name: "bash", arguments: { command: "ls src" } }] }));
    standin.setScript([...calls, { text: "done" }]);
    const before = modelRequests(standin).length;
    const result = await runAgent(["-p", "--model", ANTHROPIC.model, "go"], { home, cwd: dir, env: ANTHROPIC.env(standin.url) });
    expect(result.code).toBe(0);
    const requests = modelRequests(standin).slice(before);
    expect(requests).toHaveLength(11);
    const total = requests.reduce((sum, request) => sum + Buffer.byteLength(request.rawBody ?? ""), 0);
    expect({ total, withinLimit: total <= SESSION_LIMIT }).toEqual({ total, withinLimit: true });

    // The prompt cache's prefix: nothing in the tools or the system prompt changes between requests.
    const prefix = (body: any) => JSON.stringify({ tools: body.tools, system: body.system });
    for (const request of requests) expect(prefix(request.body)).toBe(prefix(requests[0]!.body));

    // Not a session that passes by leaving things out: every result is there, the module once in full
    // (numbered lines) and each later read of it a reference to that result.
    const results = toolResultsOf("anthropic-messages", requests.at(-1)!.body);
    expect(results).toHaveLength(10);
    expect(results[0]!.text).toStartWith("1\texport function f0(x: number): number {\n");
    expect(results[0]!.text).toContain("319\t}");
    for (const i of [2, 4, 6, 8]) expect(results[i]!.text).toBe(`[Unchanged: the same output as read call ${results[0]!.id} above.]`);
    for (const i of [1, 3, 5, 7, 9]) expect(results[i]!.text).toContain("pkg19");
  });
});
