// MCP tools reaching the model through the compiled omp: real server-everything over stdio, our
// SDK-built edge server for what real servers rarely do on demand, the provider stand-in as the model.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolNamesOf, toolResultsOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { edgeServer, sendEveryTool, everythingServer, fromServer, writeUserMcp } from "../support/mcp/fixtures.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const SEND_ALL = sendEveryTool();
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest-mcp-key" });
const tools = (index: number) => toolNamesOf("anthropic-messages", modelRequests(standin)[index]!.body);
const results = (index: number) => toolResultsOf("anthropic-messages", modelRequests(standin)[index]!.body);

function run(args: string[], home: string, cwd: string, extra: Record<string, string> = {}) {
  standin.requests.length = 0;
  return runAgent(["-p", "--model", MODEL, ...SEND_ALL, ...args], { home, cwd, env: { ...env(), ...extra } });
}

describe("MCP tools in print mode", () => {
  test("server-everything over stdio: its tools reach the first request and the echo result reaches the model", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { everything: everythingServer() });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "mcp__everything__echo", arguments: { message: "hi there" } }] }, { text: "done" }]);
    const result = await run(["use echo"], home, repo);
    expect(result.stderr).not.toContain("omp:");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(tools(0)).toContain("mcp__everything__echo");
    expect(tools(0)).toContain("read");
    expect(results(1)[0]!.text).toContain("Echo: hi there");
    expect(results(1)[0]!.isError).toBe(false);
    // The tool list is cached for the next start.
    const cache = JSON.parse(readFileSync(join(home, ".omp", "agent", "cache", "mcp-tools.json"), "utf8"));
    expect(cache.servers.everything.tools.map((t: any) => t.name)).toContain("echo");
  });

  test("progress lines name each call's argument: MCP tools, web_fetch, job, skill and task", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { edge: edgeServer("basic") });
    mkdirSync(join(home, ".claude", "skills", "tidy"), { recursive: true });
    writeFileSync(join(home, ".claude", "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidies files\n---\nTidy.\n");
    standin.setScript([
      {
        toolCalls: [
          { id: "c1", name: "mcp__edge__look", arguments: { what: "the logs" } },
          { id: "c2", name: "web_fetch", arguments: { url: "http://127.0.0.1:9/status" } },
          { id: "c3", name: "job", arguments: { action: "read", id: 7 } },
          { id: "c4", name: "skill", arguments: { name: "tidy" } },
        ],
      },
      { toolCalls: [{ id: "c5", name: "task", arguments: { subagent_type: "general-purpose", description: "count files", prompt: "count the files" } }] },
      { text: "counted" },
      { text: "done" },
    ]);
    const result = await run(["go"], home, repo);
    expect(result.code).toBe(0);
    const lines = result.stderr.split("\n").filter((line) => line.startsWith("→ "));
    expect(lines).toEqual(['→ mcp__edge__look {"what":"the logs"}', "→ web_fetch http://127.0.0.1:9/status", "→ job read #7", "→ skill tidy", "→ task general-purpose: count files"]);
  });

  test("isError, image and structured content come back faithfully; paginated tools/list is read to the end", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { edge: edgeServer("basic") });
    standin.setScript([
      { toolCalls: [{ id: "c1", name: "mcp__edge__fail", arguments: {} }, { id: "c2", name: "mcp__edge__picture", arguments: {} }] },
      { text: "ok" },
    ]);
    const result = await run(["go"], home, repo);
    expect(result.code).toBe(0);
    // Six tools over three pages of two.
    expect(tools(0).filter((n) => n.startsWith("mcp__edge__")).sort()).toEqual(
      ["env", "fail", "look", "picture", "slow", "touch"].map((n) => `mcp__edge__${n}`),
    );
    const body = modelRequests(standin)[1]!.body;
    const blocks = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : []));
    expect(blocks[0].is_error).toBe(true);
    expect(JSON.stringify(blocks[0].content)).toContain("it broke on purpose");
    const picture = blocks[1].content;
    expect(picture.some((b: any) => b.type === "image" && b.source?.media_type === "image/png")).toBe(true);
    expect(JSON.stringify(picture)).toContain("one pixel");
    expect(JSON.stringify(picture)).toContain('{\\"width\\":1,\\"height\\":1}');
  });

  test("annotations decide the approval: under --approval-mode write a readOnlyHint tool runs, another is denied", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { edge: edgeServer("basic") });
    standin.setScript([
      { toolCalls: [{ id: "c1", name: "mcp__edge__look", arguments: { what: "a" } }, { id: "c2", name: "mcp__edge__touch", arguments: { what: "b" } }] },
      { text: "ok" },
    ]);
    const result = await run(["--approval-mode", "write", "go"], home, repo);
    expect(result.code).toBe(0);
    const [look, touch] = results(1);
    expect(look!.text).toBe(fromServer("edge", "looked at a"));
    expect(touch!.isError).toBe(true);
    expect(touch!.text).toContain("mcp__edge__touch was not run: it needs approval");
  });

  test("progress notifications keep a long call alive past OMP_MCP_TIMEOUT_MS; without them it times out", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { edge: edgeServer("basic") });
    standin.setScript([
      { toolCalls: [{ id: "c1", name: "mcp__edge__slow", arguments: { progress: true } }] },
      { toolCalls: [{ id: "c2", name: "mcp__edge__slow", arguments: { progress: false } }] },
      { text: "ok" },
    ]);
    const result = await run(["go"], home, repo, { OMP_MCP_TIMEOUT_MS: "800" });
    expect(result.code).toBe(0);
    expect(results(1)[0]!.text).toBe(fromServer("edge", "slow done"));
    const timedOut = results(2)[1]!;
    expect(timedOut.isError).toBe(true);
    expect(timedOut.text).toContain("no answer within 0.8 s");
  });

  test("a stdio server inherits the whole environment plus its env, with ${VAR} and ${VAR:-default} expanded", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { edge: edgeServer("basic", { env: { FROM_ENTRY: "${OMP_TEST_TOKEN}-x", DEFAULTED: "${OMP_TEST_UNSET:-fallback}" } }) });
    standin.setScript([
      {
        toolCalls: [
          { id: "c1", name: "mcp__edge__env", arguments: { name: "FROM_ENTRY" } },
          { id: "c2", name: "mcp__edge__env", arguments: { name: "DEFAULTED" } },
          { id: "c3", name: "mcp__edge__env", arguments: { name: "OMP_TEST_INHERITED" } },
        ],
      },
      { text: "ok" },
    ]);
    const result = await run(["go"], home, repo, { OMP_TEST_TOKEN: "tok", OMP_TEST_INHERITED: "yes" });
    expect(result.code).toBe(0);
    expect(results(1).map((r) => r.text)).toEqual(["FROM_ENTRY=tok-x", "DEFAULTED=fallback", "OMP_TEST_INHERITED=yes"].map((text) => fromServer("edge", text)));
  });

  test("a server prompt typed as /mcp__server__prompt becomes the user message", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { edge: edgeServer("prompts") });
    standin.setScript([{ text: "ok" }]);
    const result = await run(["/mcp__edge__review focus=speed file=lib.ts"], home, repo);
    expect(result.code).toBe(0);
    expect(userTextsOf("anthropic-messages", modelRequests(standin)[0]!.body)).toEqual(["Please review lib.ts focusing on speed."]);
    const unknown = await run(["/mcp__edge__nope"], home, repo);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no MCP prompt /mcp__edge__nope; the servers offer: /mcp__edge__review");
  });

  test("with a cached tool list the first request goes out at once with the tools; a call waits for the slow server", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { slow: edgeServer("basic", { env: { EDGE_START_DELAY_MS: "4000" } }) });
    standin.setScript([{ text: "warm the cache" }]);
    expect((await run(["go"], home, repo)).code).toBe(0);
    standin.setScript([{ toolCalls: [{ id: "c1", name: "mcp__slow__look", arguments: { what: "late" } }] }, { text: "ok" }]);
    const started = Date.now();
    const result = await run(["go"], home, repo);
    expect(result.code).toBe(0);
    expect(tools(0)).toContain("mcp__slow__look");
    expect(modelRequests(standin)[0]!.receivedAt - started).toBeLessThan(3000);
    expect(results(1)[0]!.text).toBe(fromServer("slow", "looked at late"));
  });

  test("a PreToolUse hook with an mcp__ matcher applies to MCP tools as to built-in ones", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { edge: edgeServer("basic") });
    const hook = { matcher: "mcp__edge__touch", hooks: [{ type: "command", command: "echo 'no touching' >&2; exit 2" }] };
    writeFileSync(join(home, ".omp", "agent", "config.yml"), JSON.stringify({ hooks: { PreToolUse: [hook] } }));
    standin.setScript([
      { toolCalls: [{ id: "c1", name: "mcp__edge__touch", arguments: { what: "x" } }, { id: "c2", name: "mcp__edge__look", arguments: { what: "y" } }] },
      { text: "ok" },
    ]);
    const result = await run(["go"], home, repo);
    expect(result.code).toBe(0);
    const [touch, look] = results(1);
    expect(touch!.isError).toBe(true);
    expect(touch!.text).toBe("no touching");
    expect(look!.text).toBe(fromServer("edge", "looked at y"));
  });
});
