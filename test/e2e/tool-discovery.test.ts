// Deferred tools on the compiled omp: rarely needed built-ins and the tools of an MCP server with
// many (the real server-everything) stay out of the first request; search_tool_bm25 finds them, and
// each one found joins the end of the list of the next request, where the model calls it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
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
  test.each(providerTable())("%s: found tools join the end of the list and are called in the next step", async (_api, provider) => {
    const api = provider.api;
    const { home, repo } = workspace(FILES);
    writeUserMcp(home, { everything: everythingServer() });
    standin.setScript([
      { toolCalls: [{ id: "s1", name: "search_tool_bm25", arguments: { query: "echo the message back", limit: 1 } }] },
      {
        toolCalls: [
          { id: "e1", name: "mcp__everything__echo", arguments: { message: "found me" } },
          { id: "s2", name: "search_tool_bm25", arguments: { query: "structural code search", limit: 1 } },
        ],
      },
      { toolCalls: [{ id: "g1", name: "ast_grep", arguments: { pattern: "return $A - $B", path: "src" } }] },
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
    expect(names[0]!.at(-1)).toBe("search_tool_bm25");
    const description = toolOf(api, bodies[0], "search_tool_bm25").description;
    expect(description).toContain("ast_grep");
    expect(description).toMatch(/MCP server everything \(\d+ tools\)/);

    // Each step's list is the previous one, unchanged, with what was found at its end.
    expect(names[1]).toEqual([...names[0]!, "mcp__everything__echo"]);
    expect(names[2]).toEqual([...names[1]!, "ast_grep"]);
    expect(names[3]).toEqual(names[2]!);
    expect(JSON.stringify(toolOf(api, bodies[1], "mcp__everything__echo").parameters ?? toolOf(api, bodies[1], "mcp__everything__echo").input_schema)).toContain("message");

    const [found] = toolResultsOf(api, bodies[1]);
    const summary = JSON.parse(found!.text);
    expect(summary).toMatchObject({ query: "echo the message back", activated_tools: ["mcp__everything__echo"], match_count: 1 });
    expect(summary.total_tools).toBeGreaterThan(DEFERRED_BUILTINS.length + 5);
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

  test("job, deferred until bash starts one, is loaded by the call bash's result shows, and joins the list", async () => {
    const [, provider] = providerTable()[0]!;
    const { home, repo } = workspace(FILES);
    standin.setScript([
      { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo line-one; sleep 60", background: true } }] },
      { toolCalls: [{ id: "j1", name: "job", arguments: { action: "read", id: 1, wait_for: "line-one", timeout: 60 } }] },
      { text: "done" },
    ]);
    const before = modelRequests(standin).length;
    expect((await runAgent(["-p", "--model", provider.model, "go"], { home, cwd: repo, env: provider.env(standin.url) })).code).toBe(0);
    const bodies = modelRequests(standin).slice(before).map((r) => r.body);
    const names = bodies.map((body) => toolNamesOf("anthropic-messages", body));
    expect(names[0]).not.toContain("job");
    expect(toolOf("anthropic-messages", bodies[0], "search_tool_bm25").description).toContain("job");
    expect(toolResultsOf("anthropic-messages", bodies[1])[0]!.text).toContain('job {"action":"read","id":1}');
    expect(names[2]).toEqual([...names[0]!, "job"]);
    const read = toolResultsOf("anthropic-messages", bodies[2]).at(-1)!;
    expect(read.isError).toBe(false);
    expect(read.text).toContain("line-one");
  });
});
