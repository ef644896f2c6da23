// read's range lists and git conflict hunks, as parsed on their own (the e2e tests run them in omp).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { editedLines, parseConflicts, replaceHunk, sideLines } from "../../../core/git/conflict-hunks.ts";
import { MAX_RANGES, parseRangeList, resolveReadTarget, SelectorError } from "../../../core/tools/read-path.ts";
import { scratch } from "./helpers.ts";

describe("range lists", () => {
  test("parts are sorted and merged where they overlap or touch; open ends swallow what follows", () => {
    expect(parseRangeList("1-2,5-6")).toEqual([{ start: 1, end: 2 }, { start: 5, end: 6 }]);
    expect(parseRangeList("960-973,5-16")).toEqual([{ start: 5, end: 16 }, { start: 960, end: 973 }]);
    expect(parseRangeList("1-3,4-6,5+5")).toEqual([{ start: 1, end: 9 }]);
    expect(parseRangeList("2..4,10-,12-13")).toEqual([{ start: 2, end: 4 }, { start: 10 }]);
    expect(parseRangeList("L3, L7")).toEqual([{ start: 3 }]);
    expect(parseRangeList("1-2,raw")).toBeUndefined();
    expect(() => parseRangeList("1-2,0")).toThrow(SelectorError);
    expect(() => parseRangeList(Array.from({ length: MAX_RANGES + 1 }, (_, i) => `${i * 3 + 1}`).join(","))).toThrow(`at most ${MAX_RANGES}`);
  });

  test("read targets: a list, raw with a range either way round, conflicts; a file named like a selector is that file", () => {
    const dir = scratch();
    writeFileSync(join(dir, "f.txt"), "x\n");
    writeFileSync(join(dir, "a:1-2"), "literal\n");
    expect(resolveReadTarget(dir, "f.txt:1-2,5-6")).toEqual({ path: join(dir, "f.txt"), ranges: [{ start: 1, end: 2 }, { start: 5, end: 6 }] });
    expect(resolveReadTarget(dir, "f.txt:1-2,3-4")).toEqual({ path: join(dir, "f.txt"), range: { offset: 1, limit: 4 } });
    expect(resolveReadTarget(dir, "f.txt:2-3:raw")).toEqual({ path: join(dir, "f.txt"), range: { offset: 2, limit: 2 }, raw: true });
    expect(resolveReadTarget(dir, "f.txt:raw:2-3")).toEqual({ path: join(dir, "f.txt"), range: { offset: 2, limit: 2 }, raw: true });
    expect(resolveReadTarget(dir, "f.txt:conflicts")).toEqual({ path: join(dir, "f.txt"), conflicts: true });
    expect(resolveReadTarget(dir, "a:1-2")).toEqual({ path: join(dir, "a:1-2") });
    expect(resolveReadTarget(dir, "a:1-2:raw")).toEqual({ path: join(dir, "a:1-2"), raw: true });
  });
});

const MERGE = ["top", "<<<<<<< HEAD", "ours 1", "=======", "theirs 1", ">>>>>>> feature", "middle", "<<<<<<< HEAD", "ours 2", "||||||| base", "base 2", "=======", "theirs 2a", "theirs 2b", ">>>>>>> feature", "end", ""].join("\n");

describe("conflict hunks", () => {
  test("merge and diff3 hunks with their labels, sides and lines", () => {
    const [first, second, ...rest] = parseConflicts(MERGE);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ startLine: 2, endLine: 6, oursLabel: "HEAD", theirsLabel: "feature", ours: ["ours 1"], theirs: ["theirs 1"] });
    expect(first!.base).toBeUndefined();
    expect(second).toMatchObject({ startLine: 8, endLine: 15, baseLabel: "base", ours: ["ours 2"], base: ["base 2"], theirs: ["theirs 2a", "theirs 2b"] });
    expect(sideLines(second!, "both")).toEqual(["ours 2", "theirs 2a", "theirs 2b"]);
    expect(sideLines(first!, "base")).toBeUndefined();
  });

  test("markers that never close, longer marker runs and a separator alone are no conflict", () => {
    expect(parseConflicts("<<<<<<< HEAD\na\n=======\nb\n")).toEqual([]);
    expect(parseConflicts("<<<<<<<< x\na\n=======\nb\n>>>>>>>> y\n")).toEqual([]);
    expect(parseConflicts("a\n=======\nb\n")).toEqual([]);
    // An opening inside an open hunk: the first was none, the second is one.
    const [only] = parseConflicts("<<<<<<< A\nx\n<<<<<<< B\ny\n=======\nz\n>>>>>>> C\n");
    expect(only).toMatchObject({ startLine: 3, oursLabel: "B", ours: ["y"], theirs: ["z"] });
  });

  test("CRLF files keep their line endings through a resolve", () => {
    const text = "a\r\n<<<<<<< HEAD\r\nmine\r\n=======\r\nyours\r\n>>>>>>> other\r\nb\r\n";
    const [hunk] = parseConflicts(text);
    expect(hunk!.ours).toEqual(["mine\r"]);
    expect(replaceHunk(text, hunk!, sideLines(hunk!, "theirs")!)).toBe("a\r\nyours\r\nb\r\n");
    expect(replaceHunk(text, hunk!, editedLines("new\nlines\n", true))).toBe("a\r\nnew\r\nlines\r\nb\r\n");
  });

  test("resolving one hunk leaves the others; a hunk no longer in the file is not found", () => {
    const [first, second] = parseConflicts(MERGE);
    const once = replaceHunk(MERGE, second!, sideLines(second!, "theirs")!)!;
    expect(once).toBe(["top", "<<<<<<< HEAD", "ours 1", "=======", "theirs 1", ">>>>>>> feature", "middle", "theirs 2a", "theirs 2b", "end", ""].join("\n"));
    expect(parseConflicts(once)).toHaveLength(1);
    const twice = replaceHunk(once, first!, editedLines("", false))!;
    expect(twice).toBe("top\nmiddle\ntheirs 2a\ntheirs 2b\nend\n");
    expect(replaceHunk(twice, first!, ["x"])).toBeUndefined();
  });
});
