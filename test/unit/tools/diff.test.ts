import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unifiedDiff } from "../../../core/tools/diff.ts";
import { scratch } from "./helpers.ts";

/** Applies the diff with git to `before` and returns the result. */
function gitApply(before: string, diff: string, context = 3): string {
  const dir = scratch();
  writeFileSync(join(dir, "f.txt"), before);
  writeFileSync(join(dir, "p.diff"), diff);
  // Without context lines git only trusts the hunk positions when told to.
  const zero = context === 0 ? ["--unidiff-zero"] : [];
  const proc = Bun.spawnSync(["git", "apply", "--whitespace=nowarn", ...zero, "p.diff"], { cwd: dir });
  if (proc.exitCode !== 0) throw new Error(`git apply: ${proc.stderr.toString()}\n--- before\n${before}\n--- diff\n${diff}`);
  return readFileSync(join(dir, "f.txt"), "utf8");
}

/** Deterministic pseudo-random numbers, so a failure can be reproduced. */
function rng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

describe("unifiedDiff", () => {
  test("equal texts give an empty diff", () => {
    expect(unifiedDiff("a\nb\n", "a\nb\n", "f.txt")).toEqual({ text: "", added: 0, removed: 0 });
  });

  test("a one-line change is one hunk with three lines of context", () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n") + "\n";
    const after = before.replace("l10\n", "L10\n");
    const diff = unifiedDiff(before, after, "f.txt");
    expect(diff.text).toBe("--- a/f.txt\n+++ b/f.txt\n@@ -7,7 +7,7 @@\n l7\n l8\n l9\n-l10\n+L10\n l11\n l12\n l13\n");
    expect(diff).toMatchObject({ added: 1, removed: 1, firstChangedLine: 10 });
  });

  test("distant changes make separate hunks, close ones merge", () => {
    const before = Array.from({ length: 40 }, (_, i) => `l${i + 1}`).join("\n") + "\n";
    const far = unifiedDiff(before, before.replace("l5\n", "x\n").replace("l30\n", "y\n"), "f.txt");
    expect(far.text.match(/^@@/gm)?.length).toBe(2);
    const near = unifiedDiff(before, before.replace("l5\n", "x\n").replace("l11\n", "y\n"), "f.txt");
    expect(near.text.match(/^@@/gm)?.length).toBe(1);
  });

  test("pure insertions and deletions number the empty side like diff(1)", () => {
    expect(unifiedDiff("", "a\n", "f.txt").text).toBe("--- a/f.txt\n+++ b/f.txt\n@@ -0,0 +1,1 @@\n+a\n");
    expect(unifiedDiff("a\n", "", "f.txt").text).toBe("--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +0,0 @@\n-a\n");
  });

  test("random edits round-trip through git apply", () => {
    const random = rng(42);
    const make = () => {
      const n = Math.floor(random() * 25);
      const body = Array.from({ length: n }, () => "abcdef"[Math.floor(random() * 6)]).join("\n");
      return random() < 0.5 && n > 0 ? `${body}\n` : body;
    };
    for (let i = 0; i < 150; i++) {
      const before = make();
      const after = make();
      const context = Math.floor(random() * 4);
      const diff = unifiedDiff(before, after, "f.txt", context);
      if (before === after) expect(diff.text).toBe("");
      else expect(gitApply(before, diff.text, context)).toBe(after);
    }
  });

  test("edits within a big file are minimal", () => {
    const before = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const after = before.replace("line 100\n", "").replace("line 4000\n", "line 4000\nnew\n");
    const diff = unifiedDiff(before, after, "f.txt");
    expect(diff).toMatchObject({ added: 1, removed: 1 });
    expect(gitApply(before, diff.text)).toBe(after);
  });

  test("completely different large texts fall back to a replaced block that still applies", () => {
    const before = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join("\n") + "\n";
    const after = Array.from({ length: 3000 }, (_, i) => `new ${i}`).join("\n") + "\n";
    const diff = unifiedDiff(before, after, "f.txt");
    expect(diff).toMatchObject({ added: 3000, removed: 3000 });
    expect(gitApply(before, diff.text)).toBe(after);
  });
});
