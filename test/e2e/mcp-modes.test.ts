// MCP tools in the json and rpc modes, and over streamable HTTP: server-everything run on loopback
// as a remote server, its session lost when it restarts mid-run.
import { afterAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RpcProcess } from "../support/agent-rpc.ts";
import { agentTestFile, frames, modelRequests, runAgent, toolNamesOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { EVERYTHING, edgeServer, freePort, fromServer, writeUserMcp } from "../support/mcp/fixtures.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest-mcp-key" });
const results = (index: number) => toolResultsOf("anthropic-messages", modelRequests(standin)[index]!.body);

/** server-everything's streamable HTTP mode on a loopback port; resolves once it listens. */
async function startEverythingHttp(port: number): Promise<Subprocess> {
  const child = Bun.spawn(["node", EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdout: "ignore", stderr: "pipe" });
  const decoder = new TextDecoder();
  let seen = "";
  for await (const chunk of child.stderr as ReadableStream<Uint8Array>) {
    seen += decoder.decode(chunk);
    if (seen.includes("listening on port")) return child;
  }
  throw new Error(`server-everything did not start: ${seen}`);
}

const children: Subprocess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
});

describe("MCP in every mode", () => {
  test("json mode over streamable HTTP: the tool call and its result are events; a lost session is opened again", async () => {
    const { home, repo } = workspace();
    const port = freePort();
    let server = await startEverythingHttp(port);
    children.push(server);
    writeUserMcp(home, { remote: { type: "http", url: `http://127.0.0.1:${port}/mcp` } });
    standin.setScript([
      { toolCalls: [{ id: "c1", name: "mcp__remote__echo", arguments: { message: "first" } }] },
      { toolCalls: [{ id: "c2", name: "mcp__remote__echo", arguments: { message: "second" } }], delayMs: 6000 },
      { text: "done" },
    ]);
    standin.requests.length = 0;
    const running = runAgent(["--mode", "json", "--model", MODEL, "go"], { home, cwd: repo, env: env() });
    // Once the first result is on its way to the model, the server restarts and forgets the session.
    while (modelRequests(standin).length < 2) await Bun.sleep(50);
    server.kill();
    await server.exited;
    server = await startEverythingHttp(port);
    children.push(server);
    const result = await running;
    expect(result.code).toBe(0);
    const events = frames(result.stdout.split("\n"));
    const ends = events.filter((e) => e.type === "tool_execution_end");
    expect(ends.map((e) => [e.toolName, e.isError])).toEqual([
      ["mcp__remote__echo", false],
      ["mcp__remote__echo", false],
    ]);
    // server-everything has many tools: they are found with search_tool_bm25 (called here by name, which loads it), and the second request carries it.
    expect(toolNamesOf("anthropic-messages", modelRequests(standin)[1]!.body)).toContain("mcp__remote__echo");
    expect(results(2).map((r) => r.text)).toEqual(["Echo: first", "Echo: second"].map((text) => fromServer("remote", text)));
  });

  test("a remote server from the project's .mcp.json is a host the user did not name: print mode refuses its calls, showing the arguments; --allow-host lets them go", async () => {
    const { home, repo } = workspace();
    const port = freePort();
    children.push(await startEverythingHttp(port));
    writeFileSync(join(repo, ".mcp.json"), JSON.stringify({ mcpServers: { remote: { type: "http", url: `http://127.0.0.1:${port}/mcp` } } }));
    const call = async (args: string[]) => {
      standin.setScript([{ toolCalls: [{ id: "c1", name: "mcp__remote__echo", arguments: { message: "sk-secret" } }] }, { text: "done" }]);
      standin.requests.length = 0;
      expect((await runAgent(["-p", "--trust", "--model", MODEL, ...args, "go"], { home, cwd: repo, env: env() })).code).toBe(0);
      return results(1)[0]!;
    };
    const refused = await call([]);
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('mcp__remote__echo was not run: it would send the arguments {"message":"sk-secret"} (MCP server "remote" from the project\'s configuration) to 127.0.0.1, a host the user has not named');
    expect(refused.text).toContain("--allow-host 127.0.0.1");
    const allowed = await call(["--allow-host", "127.0.0.1"]);
    expect(allowed.text).toBe(fromServer("remote", "Echo: sk-secret"));
  });

  test("a remote server from a plugin the project installs asks like the project's own: print refuses its calls", async () => {
    const { home, repo } = workspace();
    const port = freePort();
    children.push(await startEverythingHttp(port));
    const market = join(home, "market");
    mkdirSync(join(market, ".claude-plugin"), { recursive: true });
    mkdirSync(join(market, "kit"), { recursive: true });
    writeFileSync(join(market, ".claude-plugin", "marketplace.json"), JSON.stringify({ name: "team", owner: { name: "t" }, plugins: [{ name: "kit", source: "./kit" }] }));
    writeFileSync(join(market, "kit", ".mcp.json"), JSON.stringify({ mcpServers: { vendor: { type: "http", url: `http://127.0.0.1:${port}/mcp` } } }));
    expect((await runAgent(["plugin", "marketplace", "add", market], { home, cwd: repo })).code).toBe(0);
    expect((await runAgent(["plugin", "install", "kit@team", "--scope", "project"], { home, cwd: repo })).code).toBe(0);
    standin.setScript([{ toolCalls: [{ id: "c1", name: "mcp__vendor__echo", arguments: { message: "sk-secret" } }] }, { text: "done" }]);
    standin.requests.length = 0;
    expect((await runAgent(["-p", "--trust", "--model", MODEL, "go"], { home, cwd: repo, env: env() })).code).toBe(0);
    const refused = results(1)[0]!;
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('(MCP server "vendor" from a plugin the project brings) to 127.0.0.1, a host the user has not named');
  });

  test("rpc mode: a prompt whose model calls an MCP tool gets its result", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { edge: edgeServer("basic") });
    standin.setScript([{ toolCalls: [{ id: "c1", name: "mcp__edge__look", arguments: { what: "rpc" } }] }, { text: "seen" }]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.out.waitFor(() => true);
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "look" });
      const end = await rpc.waitFrame((f) => f.type === "tool_execution_end", mark);
      expect(end.toolName).toBe("mcp__edge__look");
      expect(end.isError).toBe(false);
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(results(1)[0]!.text).toBe(fromServer("edge", "looked at rpc"));
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });
});
