// How tools present themselves to front ends (ACP's tool_call kind, title and locations): one table,
// a row per tool, the generic row for the rest.
import { describe, expect, test } from "bun:test";
import { presentTool } from "../../../core/tools/presentation.ts";

const cwd = "/repo";

describe("presentTool", () => {
  test("the tools that came with the shell, web, code-intelligence and edit work have rows of their own", () => {
    expect(presentTool("apply_patch", { input: "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Add File: b.ts\n+x\n*** End Patch" }, cwd)).toEqual({
      kind: "edit",
      title: "Patch src/a.ts, b.ts",
      locations: [{ path: "/repo/src/a.ts" }, { path: "/repo/b.ts" }],
    });
    expect(presentTool("job", { action: "read", id: 2 }, cwd)).toMatchObject({ kind: "read", title: "Job 2 read" });
    expect(presentTool("job", { action: "kill", id: 2 }, cwd)).toMatchObject({ kind: "execute" });
    expect(presentTool("web_fetch", { url: "https://example.com/docs" }, cwd)).toMatchObject({ kind: "fetch", title: "Fetch https://example.com/docs" });
    expect(presentTool("web_search", { query: "bun spawn pty" }, cwd)).toMatchObject({ kind: "fetch" });
    expect(presentTool("lsp", { op: "references", path: "src/a.ts", line: 3, symbol: "total" }, cwd)).toEqual({ kind: "search", title: "lsp references src/a.ts total", locations: [{ path: "/repo/src/a.ts", line: 3 }] });
    expect(presentTool("lsp", { op: "rename", path: "src/a.ts", apply: true }, cwd).kind).toBe("edit");
    expect(presentTool("ast_grep", { pattern: "console.log($X)", path: "src" }, cwd)).toMatchObject({ kind: "search", locations: [{ path: "/repo/src" }] });
    expect(presentTool("ast_edit", { pattern: "a($X)", rewrite: "b($X)" }, cwd)).toMatchObject({ kind: "search", title: "ast-edit a($X) → b($X)" });
  });

  test("a tool without a row, and arguments of the wrong shape, get the generic row", () => {
    expect(presentTool("mcp__docs__lookup", { q: "x" }, cwd)).toEqual({ kind: "other", title: 'docs: lookup {"q":"x"}', locations: [] });
    expect(presentTool("lsp", null, cwd).kind).toBe("search");
  });
});

describe("the same rows as a terminal shows them", () => {
  test("header arguments and notes, and how each result shows, come from the tool's row", async () => {
    const { resultView, terminalArgument, terminalNote } = await import("../../../core/tools/presentation.ts");
    expect(terminalArgument("read", { path: "src/a.ts", offset: 40 })).toBe("src/a.ts:40");
    expect(terminalArgument("grep", { pattern: "TODO", path: "src" })).toBe("TODO  in src");
    expect(terminalArgument("edit", { input: "[src/b.ts#AB12]\nSWAP 3" })).toBe("src/b.ts");
    expect(terminalArgument("mcp__docs__lookup", { q: "x" })).toBe('{"q":"x"}');
    expect(terminalNote("edit", { added: 3, removed: 1 })).toBe("+3 −1");
    expect(terminalNote("grep", { totalMatches: 1, filesWithMatches: 1 })).toBe("1 match in 1 file");
    expect(terminalNote("bash", { durationMs: 1500, exitCode: 2 })).toBe("1.5s · exit 2");
    expect(terminalNote("job", { anything: 1 })).toBe("");
    expect([resultView("bash"), resultView("apply_patch"), resultView("todo"), resultView("write"), resultView("ls"), resultView("task")]).toEqual(["output", "diff", "list", "first-line", "on-expand", "brief"]);
  });
});
