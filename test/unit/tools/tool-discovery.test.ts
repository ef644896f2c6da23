import { describe, expect, test } from "bun:test";
import { Bm25Index, tokenize } from "../../../core/tools/discovery/bm25.ts";
import { MCP_SENT_MAX, deferredTools, discoveryPolicy } from "../../../core/tools/discovery/policy.ts";
import { searchToolImplementation, toolDocument } from "../../../core/tools/discovery/search-tool.ts";
import { ToolDiscovery, namedCall } from "../../../core/tools/discovery/tool-discovery.ts";
import type { Tool } from "../../../core/tools/types.ts";
import { builtinTools, selectTools } from "../../../core/tools/registry.ts";
import { presentTool, terminalArgument, terminalNote } from "../../../core/tools/presentation.ts";

function tool(name: string, description: string, keys: string[] = [], extra: Partial<Tool> = {}): Tool {
  const properties = Object.fromEntries(keys.map((key) => [key, { type: "string" }]));
  return { name, description, effect: "read", parameters: { type: "object", properties }, load: () => Promise.reject(new Error("not loaded")), ...extra };
}

const deferred = (name: string, description: string, keys: string[] = [], extra: Partial<Tool> = {}) => tool(name, description, keys, { loadMode: "discoverable", ...extra });
const mcp = (server: string, name: string, description: string, keys: string[] = []) =>
  deferred(`mcp__${server}__${name}`, `[MCP server "${server}", untrusted] ${description}`, keys, { mcpServer: server });

const CORPUS: Tool[] = [
  deferred("lsp", "Language server: type errors, definition, references, hover, symbols, rename, quick fixes.", ["op", "path", "symbol", "newName"]),
  deferred("ast_grep", "Structural code search (ast-grep).", ["pattern", "path", "glob"]),
  deferred("ast_edit", "Structural rewrite (ast-grep): pattern → rewrite; diff, apply writes.", ["pattern", "rewrite", "apply"]),
  deferred("web_fetch", "Fetch a URL: HTML comes back as Markdown.", ["url", "offset"]),
  mcp("github", "create_issue", "Opens an issue in a repository.", ["owner", "repo", "title", "body"]),
  mcp("github", "list_pull_requests", "Lists pull requests of a repository.", ["owner", "repo", "state"]),
  mcp("slack", "post_message", "Posts a message to a Slack channel.", ["channel", "text"]),
];
const ranked = (query: string) => new Bm25Index(CORPUS, toolDocument).search(query, (t) => t.name).map((match) => match.item.name);

describe("BM25 over tools", () => {
  test("tokens: accents dropped, camelCase, acronyms and digits split, punctuation a separator", () => {
    expect(tokenize("readHTTPFile2Json")).toEqual(["read", "http", "file", "2", "json"]);
    expect(tokenize("mcp__github__create_issue")).toEqual(["mcp", "github", "create", "issue"]);
    expect(tokenize("Café-Überblick, v2")).toEqual(["cafe", "uberblick", "v", "2"]);
    expect(tokenize("--- ???")).toEqual([]);
  });

  test("the name weighs most, then the server and description, then parameter names", () => {
    // "edit" is only in ast_edit's name.
    expect(ranked("edit")).toEqual(["ast_edit"]);
    expect(ranked("rename symbol")[0]).toBe("lsp");
    expect(ranked("structural code search")[0]).toBe("ast_grep");
    expect(ranked("rewrite pattern")[0]).toBe("ast_edit");
    // The server name finds its tools; the tool named after the words comes first.
    expect(ranked("github pull requests")).toEqual(["mcp__github__list_pull_requests", "mcp__github__create_issue"]);
    expect(ranked("slack channel")).toEqual(["mcp__slack__post_message"]);
    // A parameter name alone is enough to match.
    expect(ranked("newName")).toEqual(["lsp"]);
    // Nothing shared: no match rather than noise.
    expect(ranked("kubernetes")).toEqual([]);
  });

  test("a rare word outranks a common one; equal scores go by name", () => {
    // "repository" is in two documents, "opens" in one: the tool with the rare word wins.
    expect(ranked("opens repository")[0]).toBe("mcp__github__create_issue");
    const twins = [deferred("b_tool", "alpha"), deferred("a_tool", "alpha")];
    expect(new Bm25Index(twins, toolDocument).search("alpha", (t) => t.name).map((m) => m.item.name)).toEqual(["a_tool", "b_tool"]);
  });

  test("a query without a letter or number is an error saying so", () => {
    expect(() => new Bm25Index(CORPUS, toolDocument).search("?!", (t) => t.name)).toThrow("Query must contain at least one letter or number.");
  });
});

describe("which tools are deferred", () => {
  const sent = tool("read", "Read a file.");
  const few = [mcp("a", "one", "x"), mcp("a", "two", "y")];
  const many = Array.from({ length: MCP_SENT_MAX + 1 }, (_, i) => mcp("a", `t${i}`, "z"));
  const names = (tools: Tool[]) => tools.map((t) => t.name);

  test("auto: discoverable built-ins always, MCP tools only past a few; all, mcp-only, off; essentialOverride wins", () => {
    const lsp = CORPUS[0]!;
    expect(names(deferredTools([sent, lsp, ...few], { mode: "auto", essential: [] }))).toEqual(["lsp"]);
    expect(names(deferredTools([sent, lsp, ...many], { mode: "auto", essential: [] }))).toEqual(["lsp", ...names(many)]);
    expect(names(deferredTools([sent, lsp, ...few], { mode: "all", essential: [] }))).toEqual(["lsp", ...names(few)]);
    expect(names(deferredTools([sent, lsp, ...few], { mode: "mcp-only", essential: [] }))).toEqual(names(few));
    expect(deferredTools([sent, lsp, ...many], { mode: "off", essential: [] })).toEqual([]);
    expect(names(deferredTools([sent, lsp, ...few], { mode: "all", essential: ["lsp", "mcp__a__one"] }))).toEqual(["mcp__a__two"]);
  });

  test("the built-ins marked discoverable carry it from their definitions; --tools naming one sends it", () => {
    const marked = builtinTools({ webSearch: true }).filter((t) => t.loadMode === "discoverable").map((t) => t.name);
    expect(marked).toEqual(["eval", "ls", "job", "web_fetch", "inspect_image", "lsp", "ast_grep", "ast_edit", "resolve", "checkpoint", "rewind"]);
    const [lsp] = selectTools(builtinTools(), { only: ["lsp"] });
    expect(lsp!.name).toBe("lsp");
    expect(deferredTools([lsp!], { mode: "all", essential: [] })).toEqual([]);
  });

  test("settings: the original's mcp.discoveryMode true is mcp-only under auto", () => {
    const settings = (mode: "auto" | "all", legacy?: boolean) => ({ tools: { discoveryMode: mode, essentialOverride: [] }, mcp: { discoveryMode: legacy } }) as any;
    expect(discoveryPolicy(settings("auto", true)).mode).toBe("mcp-only");
    expect(discoveryPolicy(settings("all", true)).mode).toBe("all");
    expect(discoveryPolicy(undefined)).toEqual({ mode: "auto", essential: [] });
  });
});

describe("a session's discovery", () => {
  test("finding changes no tool sent: found tools come back as definitions for call_tool; a search does not return what was found; a call by name joins the end", async () => {
    let changes = 0;
    const discovery = new ToolDiscovery({ mode: "all", essential: [] }, [], () => changes++);
    const all = [tool("read", "Read a file."), ...CORPUS];
    const first = discovery.offer(all);
    expect(names(first)).toEqual(["read", "search_tool_bm25", "call_tool"]);
    expect(discovery.offer(all)).toBe(first);
    const search = await first[1]!.load();
    const run = async (query: string, limit?: number) => JSON.parse(((await search.execute({ query, limit }, {} as any)).content[0] as { text: string }).text);
    const found = CORPUS.find((t) => t.name === "mcp__github__list_pull_requests")!;
    expect(await run("github pull requests", 1)).toEqual({
      query: "github pull requests",
      activated_tools: ["mcp__github__list_pull_requests"],
      match_count: 1,
      total_tools: CORPUS.length,
      tools: [{ name: found.name, description: found.description, parameters: found.parameters }],
    });
    expect(await run("rename symbol", 1)).toMatchObject({ activated_tools: ["lsp"] });
    expect(changes).toBe(0);
    expect(discovery.offer(all)).toBe(first);
    // Found tools run through call_tool, without joining the list.
    expect(discovery.deferredTool("lsp")?.name).toBe("lsp");
    expect(discovery.callsThrough("lsp")).toBe(true);
    // Already found: the next best is returned instead.
    expect((await run("github pull requests", 1)).activated_tools).toEqual(["mcp__github__create_issue"]);
    // Called by its own name: it joins the end of the list (a history must not name a tool that was not sent).
    expect(discovery.unlisted("web_fetch")?.name).toBe("web_fetch");
    expect(discovery.unlisted("nope")).toBeUndefined();
    expect(changes).toBe(1);
    expect(names(discovery.offer(all))).toEqual(["read", "search_tool_bm25", "call_tool", "web_fetch"]);
    expect(discovery.callsThrough("web_fetch")).toBe(false);
  });

  test("a resumed session's deferred names count as joined; nothing deferred means no search tool and no call_tool", () => {
    const discovery = new ToolDiscovery({ mode: "auto", essential: [] }, ["read", "search_tool_bm25", "lsp"], () => {});
    expect(names(discovery.offer([tool("read", "r"), ...CORPUS.slice(0, 2)]))).toEqual(["read", "search_tool_bm25", "call_tool", "lsp"]);
    expect(names(new ToolDiscovery({ mode: "off", essential: [] }, [], () => {}).offer([tool("read", "r"), ...CORPUS]))).toEqual(["read", ...names(CORPUS)]);
  });

  test("an empty query is an error result", async () => {
    const result = await searchToolImplementation({ deferred: () => CORPUS, activated: () => [], activate: () => {} }).execute({ query: "  " }, {} as any);
    expect(result.isError).toBe(true);
  });
});

describe("a call through call_tool", () => {
  test("stands for the tool it names with the arguments it gives; other calls stay as they are; a bad shape names no tool", () => {
    expect(namedCall("call_tool", { name: "lsp", arguments: { action: "rename" } })).toEqual({ name: "lsp", arguments: { action: "rename" } });
    expect(namedCall("read", { path: "a" })).toEqual({ name: "read", arguments: { path: "a" } });
    expect(namedCall("call_tool", { name: 3, arguments: [1] })).toEqual({ name: "", arguments: {} });
  });
});

describe("how a search shows", () => {
  test("its query in the header, what it loaded beside it, a search kind for editors", () => {
    expect(terminalArgument("search_tool_bm25", { query: "rename symbol", limit: 2 })).toBe("rename symbol");
    expect(terminalNote("search_tool_bm25", { activated_tools: ["lsp", "ast_edit"] })).toBe("loaded lsp, ast_edit");
    expect(terminalNote("search_tool_bm25", { activated_tools: [] })).toBe("nothing found");
    expect(presentTool("search_tool_bm25", { query: "rename symbol" }, "/")).toEqual({ kind: "search", title: "Find tools: rename symbol", locations: [] });
  });
});

const names = (tools: Tool[]) => tools.map((t) => t.name);
