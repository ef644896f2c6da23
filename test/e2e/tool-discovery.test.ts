// Deferred tools on the compiled omp: rarely needed built-ins and the tools of an MCP server with
// many (the real server-everything) stay out of the first request; search_tool_bm25 finds them and
// hands over their definitions, and the model runs them through call_tool, so the tools every
// request sends never change (the provider's cached prefix and signed thinking stay valid).
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_FILES, type ProviderApi, agentTestFile, modelRequests, providerTable, runAgent, toolNamesOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { everythingServer, writeUserMcp } from "../support/mcp/fixtures.ts";

const standin = await agentTestFile();
const FILES = { ...DEFAULT_FILES, "src/sum.ts": "export function sum(a: number, b: number) {\n  return a - b;\n}\n" };
const DEFERRED_BUILTINS = ["lsp", "ast_grep", "ast_edit", "web_fetch"];

function toolOf(api: ProviderApi, body: any, name: string): any {
  if (api === "openai-completions") return body.tools.find((t: any) => t.function.name === name)?.function;
  if (api === "google-generative-ai") return body.tools.flatMap((t: any) => t.functionDeclarations ?? []).find((f: any) => f.name === name);
  return body.tools.find((t: any) => t.name === name);
}

function config(home: string, yaml: string): void {
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(home, ".omp", "agent", "config.yml"), yaml);
}

describe("search_tool_bm25", () => {
  test.each(providerTable())("%s: found tools are run through call_tool in the next step; the tools sent never change", async (_api, provider) => {
    const api = provider.api;
    const { home, repo } = workspace(FILES);
    writeUserMcp(home, { everything: everythingServer() });
    standin.setScript([
      { thinking: "a tool that echoes would do", toolCalls: [{ id: "s1", name: "search_tool_bm25", arguments: { query: "echo the message back", limit: 1 } }] },
      {
        toolCalls: [
          { id: "e1", name: "call_tool", arguments: { name: "mcp__everything__echo", arguments: { message: "found me" } } },
          { id: "s2", name: "search_tool_bm25", arguments: { query: "structural code search", limit: 1 } },
        ],
      },
      { toolCalls: [{ id: "g1", name: "call_tool", arguments: { name: "ast_grep", arguments: { pattern: "return $A - $B", path: "src" } } }] },
      { text: "done" },
    ]);
    const before = modelRequests(standin).length;
    const result = await runAgent(["-p", "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.stderr).not.toContain("omp:");
    expect(result.code).toBe(0);
    const bodies = modelRequests(standin).slice(before).map((r) => r.body);
    const names = bodies.map((body) => toolNamesOf(api, body));

    // The first request: no deferred tool, the search tool naming what it can find.
    for (const name of DEFERRED_BUILTINS) expect(names[0]).not.toContain(name);
    expect(names[0]!.some((name) => name.startsWith("mcp__everything__"))).toBe(false);
    expect(names[0]).toContain("read");
    expect(names[0]!.slice(-2)).toEqual(["search_tool_bm25", "call_tool"]);
    const description = toolOf(api, bodies[0], "search_tool_bm25").description;
    expect(description).toContain("ast_grep");
    expect(description).toMatch(/MCP server everything \(\d+ tools\)/);

    // Every request sends the same tools, byte for byte: finding a tool changes nothing before the messages.
    for (const body of bodies) expect(JSON.stringify(body.tools)).toBe(JSON.stringify(bodies[0].tools));
    if (api === "anthropic-messages") {
      // The signed thinking before the first search is still sent at the end (the stand-in checks its prefix).
      const thinking = bodies.at(-1).messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((c: any) => c.type === "thinking");
      expect(thinking).toHaveLength(1);
      expect(thinking[0].signature).toBeTruthy();
    }

    const [found] = toolResultsOf(api, bodies[1]);
    const summary = JSON.parse(found!.text);
    expect(summary).toMatchObject({ query: "echo the message back", activated_tools: ["mcp__everything__echo"], match_count: 1 });
    expect(summary.total_tools).toBeGreaterThan(DEFERRED_BUILTINS.length + 5);
    // The definition the model calls it by.
    expect(summary.tools).toHaveLength(1);
    expect(summary.tools[0].name).toBe("mcp__everything__echo");
    expect(JSON.stringify(summary.tools[0].parameters)).toContain("message");
    const [echo, second] = toolResultsOf(api, bodies[2]).slice(-2);
    expect(echo!.text).toContain("Echo: found me");
    expect(JSON.parse(second!.text).activated_tools).toEqual(["ast_grep"]);
    const grep = toolResultsOf(api, bodies[3]).at(-1)!;
    expect(grep.text).toContain("src/sum.ts");
    expect(grep.text).toContain("return a - b");
  });

  test("a deferred tool named without a search runs, and joins the list; a resume keeps what was found", async () => {
    const [, provider] = providerTable()[0]!;
    const { home, repo } = workspace(FILES);
    const env = provider.env(standin.url);
    // Signed thinking before the call: the list changes after it, and the prefix check must still pass.
    standin.setScript([{ thinking: "a structural search finds it", toolCalls: [{ id: "g1", name: "ast_grep", arguments: { pattern: "return $A - $B" } }] }, { text: "done" }]);
    const before = modelRequests(standin).length;
    expect((await runAgent(["-p", "--model", provider.model, "go"], { home, cwd: repo, env })).code).toBe(0);
    let bodies = modelRequests(standin).slice(before).map((r) => r.body);
    expect(toolResultsOf("anthropic-messages", bodies[1])[0]!.text).toContain("src/sum.ts");
    expect(bodies).toHaveLength(2);
    expect(toolNamesOf("anthropic-messages", bodies[0])).not.toContain("ast_grep");
    expect(toolNamesOf("anthropic-messages", bodies[1])).toEqual([...toolNamesOf("anthropic-messages", bodies[0]), "ast_grep"]);

    standin.setScript([{ text: "again" }]);
    const resumedAt = modelRequests(standin).length;
    expect((await runAgent(["-p", "-c", "--model", provider.model, "more"], { home, cwd: repo, env })).code).toBe(0);
    bodies = modelRequests(standin).slice(resumedAt).map((r) => r.body);
    expect(toolNamesOf("anthropic-messages", bodies[0]).at(-1)).toBe("ast_grep");
  });

  test("a query with no letter or number is refused with the reason; tools.discoveryMode off sends every tool and no search tool", async () => {
    const [, provider] = providerTable()[0]!;
    const { home, repo } = workspace(FILES);
    const env = provider.env(standin.url);
    standin.setScript([{ toolCalls: [{ id: "s1", name: "search_tool_bm25", arguments: { query: "--- ???" } }] }, { text: "done" }]);
    let before = modelRequests(standin).length;
    expect((await runAgent(["-p", "--model", provider.model, "go"], { home, cwd: repo, env })).code).toBe(0);
    const [refused] = toolResultsOf("anthropic-messages", modelRequests(standin)[before + 1]!.body);
    expect(refused).toMatchObject({ isError: true, text: "Query must contain at least one letter or number." });

    config(home, "tools:\n  discoveryMode: off\n");
    standin.setScript([{ text: "ok" }]);
    before = modelRequests(standin).length;
    expect((await runAgent(["-p", "--model", provider.model, "go"], { home, cwd: repo, env })).code).toBe(0);
    const names = toolNamesOf("anthropic-messages", modelRequests(standin)[before]!.body);
    for (const name of DEFERRED_BUILTINS) expect(names).toContain(name);
    expect(names).not.toContain("search_tool_bm25");

    config(home, "tools:\n  essentialOverride: [lsp]\n");
    standin.setScript([{ text: "ok" }]);
    before = modelRequests(standin).length;
    expect((await runAgent(["-p", "--model", provider.model, "go"], { home, cwd: repo, env })).code).toBe(0);
    const kept = toolNamesOf("anthropic-messages", modelRequests(standin)[before]!.body);
    expect(kept).toContain("lsp");
    expect(kept).not.toContain("ast_grep");
    expect(kept).toContain("search_tool_bm25");
  });

  test("a call through call_tool is the named tool's call to the approval gate: a deny rule for it and plan mode hold", async () => {
    const [, provider] = providerTable()[0]!;
    const { home, repo } = workspace(FILES);
    mkdirSync(join(home, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["ast_edit"] } }));
    const edit = { pattern: "return $A - $B", rewrite: "return $A + $B", apply: true };
    standin.setScript([{ toolCalls: [{ id: "c1", name: "call_tool", arguments: { name: "ast_edit", arguments: edit } }] }, { text: "done" }]);
    const before = modelRequests(standin).length;
    expect((await runAgent(["-p", "--approval-mode", "yolo", "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) })).code).toBe(0);
    const [refused] = toolResultsOf("anthropic-messages", modelRequests(standin)[before + 1]!.body);
    expect(refused!.isError).toBe(true);
    expect(refused!.text).toContain("ast_edit");
    expect(readFileSync(join(repo, "src/sum.ts"), "utf8")).toContain("return a - b");

    // Plan mode refuses the named tool's change the same way.
    rmSync(join(home, ".claude"), { recursive: true });
    standin.setScript([{ toolCalls: [{ id: "c2", name: "call_tool", arguments: { name: "ast_edit", arguments: edit } }] }, { text: "done" }]);
    const planned = modelRequests(standin).length;
    expect((await runAgent(["-p", "--approval-mode", "plan", "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) })).code).toBe(0);
    const [inPlan] = toolResultsOf("anthropic-messages", modelRequests(standin)[planned + 1]!.body);
    expect(inPlan!.isError).toBe(true);
    expect(inPlan!.text).toContain("plan mode");
    expect(readFileSync(join(repo, "src/sum.ts"), "utf8")).toContain("return a - b");
  });

  test("job, deferred, runs through the call_tool call bash's result shows; signed thinking and the tools sent stay", async () => {
    const [, provider] = providerTable()[0]!;
    const { home, repo } = workspace(FILES);
    standin.setScript([
      { thinking: "start it in the background", toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo line-one; sleep 60", background: true } }] },
      { toolCalls: [{ id: "j1", name: "call_tool", arguments: { name: "job", arguments: { action: "read", id: 1, wait_for: "line-one", timeout: 60 } } }] },
      { text: "done" },
    ]);
    const before = modelRequests(standin).length;
    expect((await runAgent(["-p", "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) })).code).toBe(0);
    const bodies = modelRequests(standin).slice(before).map((r) => r.body);
    const names = bodies.map((body) => toolNamesOf("anthropic-messages", body));
    expect(names[0]).not.toContain("job");
    expect(toolOf("anthropic-messages", bodies[0], "search_tool_bm25").description).toContain("job");
    expect(toolResultsOf("anthropic-messages", bodies[1])[0]!.text).toContain('call_tool {"name":"job","arguments":{"action":"read","id":1}}');
    expect(names[2]).toEqual(names[0]!);
    expect(JSON.stringify(bodies[2].tools)).toBe(JSON.stringify(bodies[0].tools));
    expect(bodies[2].messages.some((m: any) => Array.isArray(m.content) && m.content.some((c: any) => c.type === "thinking" && c.signature))).toBe(true);
    const read = toolResultsOf("anthropic-messages", bodies[2]).at(-1)!;
    expect(read.isError).toBe(false);
    expect(read.text).toContain("line-one");
  });
});
