// ast_grep and ast_edit from the compiled binary, on ast-grep's engine embedded in it (its N-API
// addon and the Python, Go and Rust grammars, extracted to the natives cache on first use).
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };

const FILES: Record<string, string> = {
  "web/cart.ts": '// console.log("not code") in a comment\nexport function total(xs: number[]): number {\n  console.log("total", xs.length);\n  return xs.reduce((a, b) => a + b, 0);\n}\nconst note = "console.log(x) in a string";\n',
  "web/view.tsx": "export const View = () => <div>{console.log(1)}</div>;\n",
  "tools/report.py": "import logging\n\ndef report(items):\n    print('items', len(items))\n    # print(never) in a comment\n    return [str(i) for i in items]\n",
  "svc/main.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello", 42)\n\tfmt.Println("again")\n}\n',
  "docs/notes.md": "# notes\n",
  "core/src/lib.rs": "pub fn parse(s: &str) -> i32 {\n    let v: i32 = s.parse().unwrap();\n    v + other().unwrap()\n}\n",
};

type Call = { name: string; arguments: Record<string, unknown> };

async function run(repo: string, home: string, calls: Call[], args: string[] = []): Promise<string[]> {
  standin.setScript([...calls.map((call) => ({ toolCalls: [call] })), { text: "done" }]);
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", MODEL, ...args, "go"], { home, cwd: repo, env });
  expect(result.code).toBe(0);
  const requests = modelRequests(standin);
  return calls.map((_, i) => toolResultsOf("anthropic-messages", requests[i + 1]!.body).at(-1)!.text);
}

describe("ast_grep", () => {
  test("finds code by structure in TS, TSX, Python, Go and Rust, not in comments or strings, with paging", async () => {
    const { home, repo } = workspace(FILES);
    const [ts, py, go, rs, paged, rest, none] = await run(repo, home, [
      { name: "ast_grep", arguments: { pattern: "console.log($$$ARGS)" } },
      { name: "ast_grep", arguments: { pattern: "print($$$A)", path: "tools" } },
      { name: "ast_grep", arguments: { pattern: "fmt.Println($$$A)", glob: "**/*.go" } },
      { name: "ast_grep", arguments: { pattern: "$X.unwrap()", path: "core/src/lib.rs" } },
      { name: "ast_grep", arguments: { pattern: "fmt.Println($$$A)", limit: 1 } },
      { name: "ast_grep", arguments: { pattern: "fmt.Println($$$A)", limit: 1, offset: 1 } },
      { name: "ast_grep", arguments: { pattern: "x", path: "docs" } },
    ]);
    expect(ts).toContain("2 match(es) in 2 file(s)");
    expect(ts).toContain('web/cart.ts:3:3: console.log("total", xs.length)');
    expect(ts).toContain("web/view.tsx:1:");
    expect(py).toContain("1 match(es)");
    expect(py).toContain("tools/report.py:4:5: print('items', len(items))");
    expect(go).toContain("2 match(es) in 1 file(s)");
    expect(go).toContain('svc/main.go:6:2: fmt.Println("hello", 42)');
    expect(rs).toContain("2 match(es)");
    expect(rs).toContain("core/src/lib.rs:2:18: s.parse().unwrap()");
    expect(paged).toContain("svc/main.go:6:2");
    expect(paged).toContain("[1 more; offset: 1]");
    expect(rest).toContain('svc/main.go:7:2: fmt.Println("again")');
    expect(none).toContain("No files of a language ast-grep knows here");
  });
});

describe("ast_edit", () => {
  test("a dry run shows the diff and writes nothing; apply rewrites with metavariables in every language", async () => {
    const { home, repo } = workspace(FILES);
    const [dry, tsApplied, pyApplied, goApplied, rsApplied] = await run(repo, home, [
      { name: "ast_edit", arguments: { pattern: "console.log($$$ARGS)", rewrite: "logger.debug($$$ARGS)", path: "web/cart.ts" } },
      { name: "ast_edit", arguments: { pattern: "console.log($$$ARGS)", rewrite: "logger.debug($$$ARGS)", path: "web", apply: true } },
      { name: "ast_edit", arguments: { pattern: "print($A, $B)", rewrite: "logging.info($A, $B)", apply: true } },
      { name: "ast_edit", arguments: { pattern: "fmt.Println($$$A)", rewrite: "log.Println($$$A)", apply: true } },
      { name: "ast_edit", arguments: { pattern: "$X.unwrap()", rewrite: "$X?", apply: true } },
    ]);
    expect(dry).toContain("dry run");
    expect(dry).toContain('+  logger.debug("total", xs.length);');
    expect(tsApplied).toContain("Rewrote 2 match(es) in 2 file(s)");
    const cart = readFileSync(join(repo, "web/cart.ts"), "utf8");
    expect(cart).toContain('logger.debug("total", xs.length);');
    expect(cart).toContain('// console.log("not code") in a comment');
    expect(cart).toContain('"console.log(x) in a string"');
    expect(readFileSync(join(repo, "web/view.tsx"), "utf8")).toContain("{logger.debug(1)}");
    expect(pyApplied).toContain("Rewrote 1");
    expect(readFileSync(join(repo, "tools/report.py"), "utf8")).toContain("    logging.info('items', len(items))\n    # print(never) in a comment");
    expect(goApplied).toContain("Rewrote 2");
    expect(readFileSync(join(repo, "svc/main.go"), "utf8")).toContain('\tlog.Println("hello", 42)\n\tlog.Println("again")');
    expect(rsApplied).toContain("Rewrote 2");
    expect(readFileSync(join(repo, "core/src/lib.rs"), "utf8")).toBe("pub fn parse(s: &str) -> i32 {\n    let v: i32 = s.parse()?;\n    v + other()?\n}\n");
    // The engine was extracted into the natives cache, next to omp's own addon.
    const cache = join(home, ".omp", "natives");
    const versions = readdirSync(cache);
    expect(readdirSync(join(cache, versions[0]!))).toEqual(expect.arrayContaining(["ast-grep-napi.node", "tree-sitter-python.so", "tree-sitter-go.so", "tree-sitter-rust.so"]));
  });

  test("a statement keeps its `;` when the pattern and rewrite leave it out", async () => {
    const { home, repo } = workspace({ "src/a.ts": "const total = sum(1, 2);\nfunction f() {\n  return total;\n}\nconsole.log(total);\n" });
    const [declared, returned, dropped] = await run(repo, home, [
      { name: "ast_edit", arguments: { pattern: "const $A = $B", rewrite: "let $A = $B", apply: true } },
      { name: "ast_edit", arguments: { pattern: "return $X", rewrite: "return $X + 1", apply: true } },
      // A pattern that names the `;` and a rewrite without it: the model asked for it gone.
      { name: "ast_edit", arguments: { pattern: "console.log($A);", rewrite: "log($A)", apply: true } },
    ]);
    expect([declared, returned, dropped].map((text) => text?.split(" match")[0])).toEqual(["Rewrote 1", "Rewrote 1", "Rewrote 1"]);
    expect(readFileSync(join(repo, "src/a.ts"), "utf8")).toBe("let total = sum(1, 2);\nfunction f() {\n  return total + 1;\n}\nlog(total)\n");
  });

  test("apply needs approval under --approval-mode write; the dry run does not", async () => {
    const { home, repo } = workspace(FILES);
    const call = { pattern: "fmt.Println($$$A)", rewrite: "log.Println($$$A)" };
    const [dry, applied] = await run(repo, home, [{ name: "ast_edit", arguments: call }, { name: "ast_edit", arguments: { ...call, apply: true } }], ["--approval-mode", "write"]);
    expect(dry).toContain("dry run");
    expect(applied).toContain("needs approval under --approval-mode write");
    expect(readFileSync(join(repo, "svc/main.go"), "utf8")).toContain("fmt.Println");
  });
});
