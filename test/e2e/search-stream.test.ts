// Streaming `omp grep` / `omp find` on a tree of a few thousand files: path order identical to
// `rg --sort path`, `--sort none` the same lines as plain rg, and a closed pipe stops the search.
import { beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { openSync, closeSync, constants } from "node:fs";
import { join } from "node:path";
import { writeTree } from "../support/fixture-tree.ts";
import { cleanEnv, OMP, runOmp, tempDir } from "../support/omp.ts";

const RG = Bun.which("rg");
if (!RG) throw new Error("ripgrep (rg) is needed as the reference: apt-get install ripgrep");

const FILES = 3000;
let tree: string;
let home: string;

/** Enough output (~2.5 MB for `needle`) that it cannot all sit in the pipe and the queue of chunks. */
function treeFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    const lines: string[] = [];
    for (let l = 0; l < 30; l++) {
      const word = (i * 31 + l * 7) % 3 === 0 ? "needle" : (i + l) % 13 === 0 ? "Needle" : "hay";
      lines.push(`line ${l} of file ${i}: ${word} ${"x".repeat(20 + ((i * l) % 40))}`);
    }
    // Names that sort differently by byte and by path component: `a-b` vs `a/b` vs `a.b`.
    files[`d${i % 9}/${i % 3 === 0 ? "a-b" : i % 3 === 1 ? "a/b" : "a.b"}/f${i}.txt`] = `${lines.join("\n")}\n`;
  }
  files[".gitignore"] = "ignored/\n";
  files["ignored/needle.txt"] = "needle\n";
  return files;
}

beforeAll(() => {
  home = tempDir();
  tree = tempDir("omp-stream-tree-");
  writeTree(tree, treeFiles());
  execFileSync("git", ["init", "-q", tree]);
});

async function rg(args: string[], cwd = tree): Promise<{ code: number; stdout: string }> {
  const child = Bun.spawn([RG!, "--no-config", "-n", "--no-heading", "--color", "never", ...args], {
    cwd,
    env: cleanEnv(home),
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  return { code, stdout };
}

const sortedLines = (text: string) => text.split("\n").filter(Boolean).sort();

const queries: string[][] = [["needle"], ["-i", "needle"], ["-C", "2", "needle"], ["-l", "needle"], ["-c", "needle"], ["-F", "of file 17:"], ["needle", "d1", "d0"]];

describe("--sort path (the default) prints byte for byte what rg --sort path prints", () => {
  for (const args of queries) {
    test(args.join(" "), async () => {
      const [ours, explicit, reference] = await Promise.all([
        runOmp(["grep", ...args], { home, cwd: tree }),
        runOmp(["grep", "--sort", "path", ...args], { home, cwd: tree }),
        rg(["--sort", "path", ...args]),
      ]);
      expect(reference.stdout.length).toBeGreaterThan(0);
      expect(ours.stdout).toBe(reference.stdout);
      expect(explicit.stdout).toBe(reference.stdout);
      expect(ours.code).toBe(0);
      expect(ours.stderr).toBe("");
    });
  }
});

describe("a file with more output than is held at once (printed while it is searched) prints what rg prints", () => {
  // ~1 MB of lines from one file, between files with matches of their own: its lines go out in
  // several pieces, and context groups and their `--` lines must join up across the pieces.
  let big: string;
  beforeAll(() => {
    big = tempDir("omp-stream-big-");
    const lines: string[] = [];
    for (let l = 0; l < 30_000; l++) lines.push(l % 3 === 0 || l % 7 === 0 ? `needle ${l} ${"z".repeat(40)}` : `hay ${l}`);
    writeTree(big, { "a.txt": "needle first\n", "b/huge.txt": `${lines.join("\n")}\n`, "c.txt": "hay\nneedle last\n" });
  });

  for (const args of [["needle"], ["-C", "1", "needle"], ["-A", "2", "-m", "9000", "needle"]]) {
    test(args.join(" "), async () => {
      const [ours, reference] = await Promise.all([runOmp(["grep", ...args, "."], { home, cwd: big }), rg(["--sort", "path", ...args, "."], big)]);
      expect(reference.stdout.length).toBeGreaterThan(500_000);
      expect(ours.stdout).toBe(reference.stdout);
      expect(ours.code).toBe(0);
    });
  }
});

describe("--sort none prints the lines plain rg prints", () => {
  for (const args of queries.filter((q) => !q.includes("-C"))) {
    test(args.join(" "), async () => {
      const [ours, reference] = await Promise.all([runOmp(["grep", "--sort", "none", ...args], { home, cwd: tree }), rg(args)]);
      expect(sortedLines(ours.stdout)).toEqual(sortedLines(reference.stdout));
      expect(ours.code).toBe(0);
    });
  }

  test("nothing found still exits 1", async () => {
    const ours = await runOmp(["grep", "--sort", "none", "zzz_absent"], { home, cwd: tree });
    expect(ours).toEqual({ code: 1, stdout: "", stderr: "" });
  });

  test("an unknown order is a usage error", async () => {
    const ours = await runOmp(["grep", "--sort", "modified", "needle"], { home, cwd: tree });
    expect(ours.code).toBe(2);
    expect(ours.stderr).toContain("expected path or none");
  });
});

describe("omp find streams", () => {
  test("path order is rg --files --sort path, none is the same set", async () => {
    const reference = (await rg(["--files", "--sort", "path", "-g", "*.txt"])).stdout;
    const [sorted, unsorted] = await Promise.all([
      runOmp(["find", "*.txt"], { home, cwd: tree }),
      runOmp(["find", "--sort", "none", "*.txt"], { home, cwd: tree }),
    ]);
    expect(reference.split("\n").length).toBeGreaterThan(FILES);
    expect(sorted.stdout).toBe(reference);
    expect(sortedLines(unsorted.stdout)).toEqual(sortedLines(reference));
  });

  test("-m stops after that many paths, in order", async () => {
    const result = await runOmp(["find", "-m", "3", "*.txt", "d4"], { home, cwd: tree });
    const reference = (await rg(["--files", "--sort", "path", "-g", "*.txt", "d4"])).stdout.split("\n").slice(0, 3);
    expect(result.stdout).toBe(`${reference.join("\n")}\n`);
  });
});

describe("a closed pipe stops the search", () => {
  /**
   * The last root is a FIFO nobody ever writes to: searching it blocks until a writer opens it,
   * so the command can only end if the search stopped before reaching it. rg itself searches a
   * FIFO named on the command line. A bounded wait, then the FIFO is opened to unblock a search
   * that failed to stop, so a regression fails the test instead of hanging it.
   */
  async function headOne(args: string[], root = "."): Promise<{ first: string; status: string; stderr: string; stoppedByItself: boolean }> {
    const fifo = join(tempDir("omp-fifo-"), "never-written");
    execFileSync("mkfifo", [fifo]);
    const script = `"$0" grep ${args.join(" ")} ${root} "${fifo}" | head -1; echo "status=\${PIPESTATUS[0]}" >&2`;
    const child = Bun.spawn(["bash", "-c", script, OMP], { cwd: tree, env: cleanEnv(home), stdio: ["ignore", "pipe", "pipe"] });
    const timer = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 30_000));
    const stoppedByItself = (await Promise.race([child.exited.then(() => "done" as const), timer])) === "done";
    if (!stoppedByItself) closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    await child.exited;
    const status = /status=(\d+)/.exec(stderr)?.[1] ?? "?";
    return { first: stdout, status, stderr: stderr.replace(/status=\d+\n/, ""), stoppedByItself };
  }

  test("omp grep needle | head -1 ends without reaching the end of the walk, quietly", async () => {
    const reference = (await rg(["--sort", "path", "needle", "."])).stdout;
    expect(reference.length).toBeGreaterThan(2_000_000);
    const result = await headOne(["needle"]);
    expect(result.stoppedByItself).toBe(true);
    expect(result.first).toBe(reference.slice(0, reference.indexOf("\n") + 1));
    expect(result.status).toBe("0");
    expect(result.stderr).toBe("");
  }, 60_000);

  test("also with --json: its records stream too", async () => {
    const reference = (await rg(["--sort", "path", "needle", "."])).stdout;
    const [path, line, ...text] = reference.slice(0, reference.indexOf("\n")).split(":");
    const result = await headOne(["--json", "needle"]);
    expect(result.stoppedByItself).toBe(true);
    expect(JSON.parse(result.first)).toEqual({ type: "match", path, line: Number(line), text: text.join(":"), truncated: false });
    expect(result.status).toBe("0");
  }, 60_000);

  test("also when the search has nothing more to write: the reader going away is seen as it goes", async () => {
    // One file's lines, all in the pipe at once; then the search waits on the FIFO and never
    // writes again, so only noticing the closed pipe without a write can end it.
    const file = "d0/a-b/f0.txt";
    const reference = (await rg(["needle", file])).stdout;
    const result = await headOne(["-H", "needle"], file);
    expect(result.stoppedByItself).toBe(true);
    expect(result.first).toBe(`${file}:${reference.slice(0, reference.indexOf("\n") + 1)}`);
    expect(result.status).toBe("0");
    expect(result.stderr).toBe("");
  }, 60_000);

  test("also with --sort none", async () => {
    const result = await headOne(["--sort", "none", "needle"]);
    expect(result.stoppedByItself).toBe(true);
    expect(result.first).toMatch(/needle/);
    expect(result.status).toBe("0");
  }, 60_000);
});
