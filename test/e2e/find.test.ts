// `omp find`: same ignore rules as rg, stable order, kinds, limits and metadata.
import { beforeAll, describe, expect, test } from "bun:test";
import { statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { writeFixtureTree } from "../support/fixture-tree.ts";
import { cleanEnv, runOmp, tempDir } from "../support/omp.ts";

let tree: string;
let home: string;

beforeAll(() => {
  home = tempDir();
  tree = tempDir("omp-tree-");
  writeFixtureTree(tree);
});

/**
 * The files rg would search with these flags, kept to those matching `glob`. The glob is applied
 * here rather than with rg's -g because -g overrides ignore files, which `omp find` does not do;
 * and .git is dropped because `omp find` never lists inside it.
 */
async function rgFiles(glob: string, args: string[]): Promise<string> {
  const child = Bun.spawn(["rg", "--no-config", "--files", "--sort", "path", ...args], { cwd: tree, env: cleanEnv(home), stdio: ["ignore", "pipe", "ignore"] });
  const matcher = new Bun.Glob(glob);
  const files = (await new Response(child.stdout).text())
    .split("\n")
    .filter((path) => path && !path.startsWith(".git/"))
    .filter((path) => matcher.match(glob.includes("/") ? path : path.slice(path.lastIndexOf("/") + 1)));
  return files.map((path) => `${path}\n`).join("");
}

describe("omp find lists the files rg --files lists", () => {
  const cases: [string, string[]][] = [
    ["*.rs", []],
    ["*.txt", ["--hidden"]],
    ["*.txt", ["--no-ignore"]],
    ["*", ["--hidden", "--no-ignore"]],
    ["src/**/*.ts", []],
  ];
  for (const [glob, flags] of cases) {
    test([glob, ...flags].join(" "), async () => {
      const result = await runOmp(["find", glob, "-t", "f", ...flags], { home, cwd: tree });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe(await rgFiles(glob, flags));
      expect(result.code).toBe(0);
    });
  }
});

describe("omp find options", () => {
  test("directories only", async () => {
    const result = await runOmp(["find", "*", "-t", "d"], { home, cwd: tree });
    expect(result.stdout).toBe(["a", "a-c", "bin", "docs", "src", "src/util"].join("\n") + "\n");
  });

  test("a path argument prefixes the results", async () => {
    const result = await runOmp(["find", "*.rs", "src"], { home, cwd: tree });
    expect(result.stdout).toBe("src/lib.rs\nsrc/main.rs\n");
  });

  test("--newest orders by modification time and -m limits", async () => {
    const now = Date.now() / 1000;
    utimesSync(join(tree, "a.txt"), now - 30, now - 30);
    utimesSync(join(tree, "a/b.txt"), now - 10, now - 10);
    utimesSync(join(tree, "a-c/x.txt"), now - 20, now - 20);
    const result = await runOmp(["find", "--newest", "-m", "2", "{a.txt,b.txt,x.txt}"], { home, cwd: tree });
    expect(result.stdout).toBe("a/b.txt\na-c/x.txt\n");
    expect(result.code).toBe(0);
  });

  test("--json carries size and mtime", async () => {
    const result = await runOmp(["find", "--json", "context.txt"], { home, cwd: tree });
    const entry = JSON.parse(result.stdout.trim());
    const stat = statSync(join(tree, "context.txt"));
    expect(entry).toEqual({ path: "context.txt", kind: "file", size: stat.size, mtimeMs: expect.any(Number) });
    expect(Math.abs(entry.mtimeMs - stat.mtimeMs)).toBeLessThan(1);
  });

  test("nothing found exits 1", async () => {
    const result = await runOmp(["find", "*.nothing"], { home, cwd: tree });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
  });

  test("a bad glob or type exits 2 with a message", async () => {
    const glob = await runOmp(["find", "src/[ab"], { home, cwd: tree });
    expect(glob.code).toBe(2);
    expect(glob.stderr).toContain("src/[ab");
    const type = await runOmp(["find", "*", "-t", "socket"], { home, cwd: tree });
    expect(type.code).toBe(2);
    expect(type.stderr).toContain("unknown type \"socket\"");
  });
});
