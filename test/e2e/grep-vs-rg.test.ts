// `omp grep` must print exactly what ripgrep prints (rg -n --no-heading, sorted by path).
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFixtureTree } from "../support/fixture-tree.ts";
import { cleanEnv, runOmp, tempDir } from "../support/omp.ts";

const RG = Bun.which("rg");
if (!RG) throw new Error("ripgrep (rg) is needed as the reference: apt-get install ripgrep");

let tree: string;
let home: string;

beforeAll(() => {
  home = tempDir();
  tree = tempDir("omp-tree-");
  writeFixtureTree(tree);
});

async function rg(args: string[]): Promise<{ code: number; stdout: string }> {
  const child = Bun.spawn([RG!, "--no-config", "-n", "--no-heading", "--sort", "path", "--color", "never", ...args], {
    cwd: tree,
    env: cleanEnv(home),
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  return { code, stdout };
}

const cases: string[][] = [
  ["foo"],
  ["foo", "."],
  ["foo", "src", "docs"],
  ["foo", "src/main.rs"],
  ["foo", "src/main.rs", "src/lib.rs"],
  ["-i", "FOO"],
  ["-S", "Foo"],
  ["-S", "foo"],
  ["-F", "a.b(c"],
  ["a.b(c"],
  ["-U", "foo\\nbar"],
  ["-U", "-c", "foo\\nbar"],
  ["-g", "*.rs", "foo"],
  ["-g", "*.log", "foo"],
  ["-g", "*.txt", "-g", "!a*", "foo"],
  ["-g", "!*.md", "foo"],
  ["-g", "src/**", "-g", "!*.py", "foo"],
  ["-t", "rust", "foo"],
  ["-t", "py", "-t", "ts", "foo"],
  ["--hidden", "foo"],
  ["--no-ignore", "foo"],
  ["--hidden", "--no-ignore", "foo"],
  ["-A", "2", "foo", "context.txt"],
  ["-B", "1", "foo"],
  ["-C", "1", "foo"],
  ["-C", "3", "foo", "context.txt"],
  ["-m", "1", "foo"],
  ["-m", "2", "-A", "1", "foo", "context.txt"],
  ["-l", "foo"],
  ["-c", "foo"],
  ["-c", "foo", "context.txt"],
  ["-M", "50", "foo"],
  ["--max-columns", "50", "-C", "1", "foo", "long.txt"],
  ["日本"],
  ["-i", "école"],
  ["🦀"],
  ["bar", "crlf.txt"],
  ["-i", "-F", "FOO AND"],
  ["zzzz_no_such_text"],
];

describe("omp grep prints what rg prints", () => {
  for (const args of cases) {
    test(args.join(" "), async () => {
      const [ours, reference] = await Promise.all([runOmp(["grep", ...args], { home, cwd: tree }), rg(args)]);
      expect(ours.stdout).toBe(reference.stdout);
      expect(ours.code).toBe(reference.code);
      if (ours.code !== 2) expect(ours.stderr).toBe("");
    });
  }
});

describe("bad input", () => {
  test("a bad regex exits 2 with a message naming the problem", async () => {
    const ours = await runOmp(["grep", "(unclosed"], { home, cwd: tree });
    expect(ours.code).toBe(2);
    expect(ours.stdout).toBe("");
    expect(ours.stderr).toContain("(unclosed");
    expect(ours.stderr.toLowerCase()).toContain("unclosed group");
    expect((await rg(["(unclosed"])).code).toBe(2);
  });

  test("an unknown file type exits 2 and names it", async () => {
    const ours = await runOmp(["grep", "-t", "nosuchtype", "foo"], { home, cwd: tree });
    expect(ours.code).toBe(2);
    expect(ours.stderr).toContain("nosuchtype");
  });

  test("a missing path exits 2 and names it", async () => {
    const ours = await runOmp(["grep", "foo", "no/such/dir"], { home, cwd: tree });
    expect(ours.code).toBe(2);
    expect(ours.stderr).toContain("no/such/dir");
  });

  test("a non-numeric count exits 2 with a usage message", async () => {
    const ours = await runOmp(["grep", "-A", "many", "foo"], { home, cwd: tree });
    expect(ours.code).toBe(2);
    expect(ours.stderr).toContain("expected a whole number");
  });

  test("an unknown flag exits 2", async () => {
    const ours = await runOmp(["grep", "--frobnicate", "foo"], { home, cwd: tree });
    expect(ours.code).toBe(2);
    expect(ours.stderr).toContain("--frobnicate");
  });
});

describe("--json", () => {
  test("one object per matching line and a summary", async () => {
    const ours = await runOmp(["grep", "--json", "foo", "context.txt"], { home, cwd: tree });
    expect(ours.code).toBe(0);
    const lines = ours.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.slice(0, -1)).toEqual(
      [3, 5, 12, 19].map((n) => ({ type: "match", path: "context.txt", line: n, text: `line ${n} foo`, truncated: false })),
    );
    expect(lines.at(-1)).toMatchObject({ type: "summary", totalMatches: 4, filesWithMatches: 1, filesSearched: 1 });
  });
});
