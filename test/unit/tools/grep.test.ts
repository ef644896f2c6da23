// Runs against the real native addon (bun run build:native). If it is missing these tests fail: they are never skipped.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { grepTool } from "../../../core/tools/grep.ts";
import { context, scratch, textOf } from "./helpers.ts";

let root: string;

function put(path: string, content: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

beforeAll(() => {
  root = scratch();
  // ripgrep honours .gitignore inside a git repository only.
  expect(Bun.spawnSync(["git", "init", "-q"], { cwd: root }).exitCode).toBe(0);
  put(".gitignore", "build/\n");
  put("src/app.ts", "import { needle } from './lib';\nconst x = 1;\nconsole.log(needle);\n");
  put("src/lib.ts", "export const needle = 42;\n// NEEDLE in caps\nexport const a = 'a.b(c';\n");
  put("src/notes.md", "a needle in markdown\n");
  put("build/out.js", "needle in build output\n");
  put(".github/workflow.yml", "needle: hidden config\n");
  put(".git/needle-file", "needle inside .git\n");
  put("context.txt", Array.from({ length: 20 }, (_, i) => ([4, 5, 15].includes(i + 1) ? `hit ${i + 1}` : `line ${i + 1}`)).join("\n") + "\n");
  put("many.txt", Array.from({ length: 250 }, (_, i) => `match ${i + 1}`).join("\n") + "\n");
  put("long.txt", `short match\n${"x".repeat(700)}match${"y".repeat(100)}\n`);
  put("multi.txt", "start\nfoo\n   bar\nend\n");
  for (let i = 0; i < 300; i++) put(`pages/f${String(i).padStart(3, "0")}.txt`, "paged hit\nother\npaged hit\npaged hit\n");
});

async function grep(input: Parameters<typeof grepTool.execute>[0], cwd = root) {
  const result = await grepTool.execute(input, context(cwd));
  return { result, text: textOf(result) };
}

describe("grep", () => {
  test("groups matching lines by file, with line numbers and relative paths", async () => {
    const { result, text } = await grep({ pattern: "needle" });
    expect(result.isError).toBeFalsy();
    expect(text).toBe(
      [
        ".github/workflow.yml\n  1: needle: hidden config",
        "src/app.ts\n  1: import { needle } from './lib';\n  3: console.log(needle);",
        "src/lib.ts\n  1: export const needle = 42;",
        "src/notes.md\n  1: a needle in markdown",
      ].join("\n\n"),
    );
    expect(result.details).toMatchObject({ totalMatches: 5, filesWithMatches: 4 });
  });

  test("skips gitignored files and .git, searches hidden files", async () => {
    const { text } = await grep({ pattern: "needle" });
    expect(text).not.toContain("build/out.js");
    expect(text).not.toContain(".git/");
    expect(text).toContain(".github/workflow.yml");
  });

  test("context lines use - and separate groups with --", async () => {
    const { text } = await grep({ pattern: "^hit", path: "context.txt", context: 1 });
    expect(text).toBe("context.txt\n  3- line 3\n  4: hit 4\n  5: hit 5\n  6- line 6\n  --\n  14- line 14\n  15: hit 15\n  16- line 16");
  });

  test("ignoreCase, literal and multiline", async () => {
    expect((await grep({ pattern: "NEEDLE", path: "src" })).text).toBe("src/lib.ts\n  2: // NEEDLE in caps");
    expect((await grep({ pattern: "NEEDLE", path: "src", ignoreCase: true })).result.details).toMatchObject({ totalMatches: 5 });
    expect((await grep({ pattern: "a.b(c", literal: true })).text).toBe("src/lib.ts\n  3: export const a = 'a.b(c';");
    const multi = await grep({ pattern: "foo\\n\\s*bar", multiline: true });
    expect(multi.text).toBe("multi.txt\n  2: foo\n  3:    bar");
  });

  test("glob and type narrow the files", async () => {
    expect((await grep({ pattern: "needle", glob: "*.md" })).text).toBe("src/notes.md\n  1: a needle in markdown");
    const types = await grep({ pattern: "needle", type: "ts" });
    expect(types.text).toContain("src/app.ts");
    expect(types.text).not.toContain("notes.md");
    const excluded = await grep({ pattern: "needle", glob: "!*.ts" });
    expect(excluded.text).not.toContain("src/app.ts");
    expect(excluded.text).toContain("src/notes.md");
  });

  test("pages of 100 matches with a note naming the next offset", async () => {
    const first = await grep({ pattern: "^match", path: "many.txt" });
    expect(first.text).toContain("  100: match 100");
    expect(first.text).not.toContain("match 101");
    expect(first.text).toEndWith("[Showing matches 1-100 of 250 in 1 file. Use offset=100 for the next page.]");
    const last = await grep({ pattern: "^match", path: "many.txt", offset: 200 });
    expect(last.text).toStartWith("many.txt\n  201: match 201");
    expect(last.text).toEndWith("[Showing matches 201-250 of 250 in 1 file.]");
    const small = await grep({ pattern: "^match", path: "many.txt", limit: 5 });
    expect(small.text).toContain("Use offset=5 for the next page.");
  });

  test("a page deep into many files holds the right lines, and the totals count every file", async () => {
    // 3 matches per file: matches 446-455 are the last two of f148, f149, f150 and the first two of f151.
    const { result, text } = await grep({ pattern: "paged hit", path: "pages", offset: 445, limit: 10 });
    expect(text.split("\n\n").slice(0, 4)).toEqual([
      "pages/f148.txt\n  3: paged hit\n  4: paged hit",
      "pages/f149.txt\n  1: paged hit\n  3: paged hit\n  4: paged hit",
      "pages/f150.txt\n  1: paged hit\n  3: paged hit\n  4: paged hit",
      "pages/f151.txt\n  1: paged hit\n  3: paged hit",
    ]);
    expect(text).toEndWith("[Showing matches 446-455 of 900 in 300 files. Use offset=455 for the next page.]");
    expect(result.details).toMatchObject({ totalMatches: 900, filesWithMatches: 300, filesSearched: 300, limitReached: true });
    const files = await grep({ pattern: "paged hit", path: "pages", outputMode: "files", offset: 297 });
    expect(files.text).toStartWith("pages/f297.txt\npages/f298.txt\npages/f299.txt\n\n[Showing files 298-300 of 300.]");
  });

  test("an offset past the end is an error", async () => {
    const { result, text } = await grep({ pattern: "^match", path: "many.txt", offset: 400 });
    expect(result.isError).toBe(true);
    expect(text).toContain("offset 400 is past the end: there are 250 matches");
  });

  test("long lines are cut at 500 chars", async () => {
    const { text } = await grep({ pattern: "match", path: "long.txt" });
    const line = text.split("\n")[2]!;
    expect(line).toStartWith(`  2: ${"x".repeat(500)}… [line cut:`);
    expect(line.length).toBeLessThan(560);
  });

  test("files and count output modes", async () => {
    expect((await grep({ pattern: "needle", outputMode: "files" })).text).toBe(".github/workflow.yml\nsrc/app.ts\nsrc/lib.ts\nsrc/notes.md");
    expect((await grep({ pattern: "needle", outputMode: "count", path: "src" })).text).toBe("src/app.ts: 2\nsrc/lib.ts: 1\nsrc/notes.md: 1");
    const paged = await grep({ pattern: "needle", outputMode: "files", limit: 2 });
    expect(paged.text).toBe(".github/workflow.yml\nsrc/app.ts\n\n[Showing files 1-2 of 4. Use offset=2 for the next page.]");
  });

  test("a bad regex is an error result with the engine's message", async () => {
    const { result, text } = await grep({ pattern: "foo(" });
    expect(result.isError).toBe(true);
    expect(text).toContain("Invalid regex");
    expect(text).toContain("unclosed group");
    expect(text).toContain("literal: true");
  });

  test("an unknown type is an error naming valid ones", async () => {
    const { result, text } = await grep({ pattern: "x", type: "nosuchtype" });
    expect(result.isError).toBe(true);
    expect(text).toContain("nosuchtype");
  });

  test("a missing path is an error with a suggestion", async () => {
    const { result, text } = await grep({ pattern: "x", path: "srcc" });
    expect(result.isError).toBe(true);
    expect(text).toBe("Path not found: srcc. Did you mean src?");
  });

  test("no matches is a plain answer, not an error", async () => {
    const { result, text } = await grep({ pattern: "zzz_absent_zzz", path: "src", glob: "*.ts" });
    expect(result.isError).toBeFalsy();
    expect(text).toBe('No matches for "zzz_absent_zzz" in src (glob *.ts); 2 files searched.');
  });

  test("paths outside the cwd are shown absolute", async () => {
    const { text } = await grep({ pattern: "needle", path: join(root, "src/notes.md") }, scratch());
    expect(text).toBe(`${join(root, "src/notes.md")}\n  1: a needle in markdown`);
  });
});

test("grep: an aborted signal ends the search with an error result", async () => {
  const controller = new AbortController();
  controller.abort();
  const result = await grepTool.execute({ pattern: "needle" }, context(root, { signal: controller.signal }));
  expect(result.isError).toBe(true);
  expect(textOf(result)).toBe("Search aborted.");
});
