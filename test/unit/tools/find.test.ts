// Runs against the real native addon (bun run build:native). If it is missing these tests fail: they are never skipped.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findTool } from "../../../core/tools/find.ts";
import { context, scratch, textOf } from "./helpers.ts";

let root: string;

/** Creates a file with a modification time `age` seconds in the past, so "newest first" is testable. */
function put(path: string, age: number) {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, path);
  const time = Date.now() / 1000 - age;
  utimesSync(full, time, time);
}

beforeAll(() => {
  root = scratch();
  expect(Bun.spawnSync(["git", "init", "-q"], { cwd: root }).exitCode).toBe(0);
  put(".gitignore", 500);
  writeFileSync(join(root, ".gitignore"), "dist/\n");
  put("src/old.ts", 300);
  put("src/new.ts", 10);
  put("src/mid.ts", 100);
  put("src/deep/inner.ts", 200);
  put("src/readme.md", 50);
  put("dist/bundle.ts", 1);
  put(".config/settings.ts", 400);
  for (let i = 0; i < 30; i++) put(`gen/file${i}.txt`, 1000 + i);
});

async function find(input: Parameters<typeof findTool.execute>[0], cwd = root) {
  const result = await findTool.execute(input, context(cwd));
  return { result, text: textOf(result) };
}

describe("find", () => {
  test("matches names at any depth, newest first, skipping ignored paths and .git", async () => {
    const { result, text } = await find({ pattern: "*.ts" });
    expect(result.isError).toBeFalsy();
    expect(text).toBe(["src/new.ts", "src/mid.ts", "src/deep/inner.ts", "src/old.ts", ".config/settings.ts"].join("\n"));
    expect(result.details).toMatchObject({ totalMatches: 5, limitReached: false });
  });

  test("a pattern with / matches the path below the search directory", async () => {
    expect((await find({ pattern: "src/*.ts" })).text).toBe("src/new.ts\nsrc/mid.ts\nsrc/old.ts");
    expect((await find({ pattern: "*.ts", path: "src/deep" })).text).toBe("src/deep/inner.ts");
  });

  test("type filters files or directories; directories end with /", async () => {
    const dirs = await find({ pattern: "*", type: "dir", path: "src" });
    expect(dirs.text).toBe("src/deep/");
    const files = await find({ pattern: "*e*", type: "file", path: "src" });
    expect(files.text.split("\n")).toEqual(["src/new.ts", "src/readme.md", "src/deep/inner.ts"]);
  });

  test("caps results and says how many there are", async () => {
    const { result, text } = await find({ pattern: "*.txt", limit: 5 });
    expect(text.split("\n").slice(0, 5)).toEqual(["gen/file0.txt", "gen/file1.txt", "gen/file2.txt", "gen/file3.txt", "gen/file4.txt"]);
    expect(text).toEndWith("[Showing the 5 newest of 30 matches. Use a narrower pattern or path, or a larger limit (max 1000).]");
    expect(result.details).toMatchObject({ totalMatches: 30, limitReached: true });
  });

  test("no matches is a plain answer", async () => {
    const { result, text } = await find({ pattern: "*.rs", type: "file" });
    expect(result.isError).toBeFalsy();
    expect(text).toBe("No files matching *.rs in the working directory.");
  });

  test("missing directories and file paths are errors", async () => {
    const missing = await find({ pattern: "*", path: "scr" });
    expect(missing.result.isError).toBe(true);
    expect(missing.text).toBe("Directory not found: scr. Did you mean src?");
    const file = await find({ pattern: "*", path: "src/new.ts" });
    expect(file.result.isError).toBe(true);
    expect(file.text).toContain("is a file, not a directory");
  });

  test("a bad glob is an error result", async () => {
    const { result, text } = await find({ pattern: "src/[" });
    expect(result.isError).toBe(true);
    expect(text).toContain("Invalid glob");
  });

  test("paths are absolute when the root is outside the cwd", async () => {
    const { text } = await find({ pattern: "inner.ts", path: root }, scratch());
    expect(text).toBe(join(root, "src/deep/inner.ts"));
  });
});
