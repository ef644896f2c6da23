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

async function rgFiles(args: string[]): Promise<string> {
  const child = Bun.spawn(["rg", "--no-config", "--files", "--sort", "path", ...args], { cwd: tree, env: cleanEnv(home), stdio: ["ignore", "pipe", "ignore"] });
  return new Response(child.stdout).text();
}

describe("omp find lists the files rg --files lists", () => {
  const cases: [string[], string[]][] = [
    [["*.rs"], ["-g", "*.rs"]],
    [["*.txt", "--hidden"], ["--hidden", "-g", "*.txt"]],
    [["*", "-t", "f", "--no-ignore"], ["--no-ignore"]],
    [["*", "-t", "f", "--hidden", "--no-ignore"], ["--hidden", "--no-ignore"]],
    [["src/**/*.ts"], ["-g", "src/**/*.ts"]],
  ];
  for (const [ours, theirs] of cases) {
    test(ours.join(" "), async () => {
      const result = await runOmp(["find", ...ours], { home, cwd: tree });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe(await rgFiles(theirs));
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
