// Each rule of the edit engine on a small case: tolerant matching and what it says, the miss
// diagnosis, line endings, the apply_patch and hashline parsers, atomicity, refusals, stale reads,
// and which format a model gets.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PathScope } from "../../../core/tools/path-scope.ts";
import { parseApplyPatch, PatchSyntaxError } from "../../../core/tools/edit/apply-patch.ts";
import { parseDoc, renderDoc, spliceLines } from "../../../core/tools/edit/doc.ts";
import type { FileChange } from "../../../core/tools/edit/changes.ts";
import { applyChanges, hashlineTag } from "../../../core/tools/edit/engine.ts";
import { HashlineSyntaxError, parseHashline } from "../../../core/tools/edit/hashline.ts";
import { applyReplace, lfText } from "../../../core/tools/edit/match.ts";
import { editModeFor } from "../../../core/tools/edit/mode.ts";
import { foldTypography, stripReadPrefixes, unescapeText } from "../../../core/tools/edit/normalize.ts";
import { FileReadStore } from "../../../core/tools/edit/read-store.ts";
import { applyPatchTool, hashlineEditTool } from "../../../core/tools/edit/tools.ts";
import { builtinTools, withEditMode } from "../../../core/tools/registry.ts";
import { scratch, textOf, context } from "./helpers.ts";

/** Applies one replace to `text`; the new text, or the error. */
function replace(text: string, old: string, replacement: string, extra: object = {}): { text?: string; how?: string; error?: string } {
  const doc = parseDoc(text);
  const outcome = applyReplace(doc, { old, new: replacement, ...extra });
  return outcome.ok ? { text: renderDoc(doc), ...(outcome.applied.how ? { how: outcome.applied.how } : {}) } : { error: outcome.error };
}

describe("tolerant matching: one candidate or none, and it says how", () => {
  test("exact text needs no note", async () => {
    expect(replace("a\nb\nc\n", "b", "B")).toEqual({ text: "a\nB\nc\n" });
  });

  test("trailing whitespace is ignored; unchanged lines keep the file's", async () => {
    const out = replace("x\nfoo  \nbar\t\n", "foo\nbar", "foo\nBAR");
    expect(out).toEqual({ text: "x\nfoo  \nBAR\n", how: "matched ignoring trailing whitespace at lines 2–3" });
  });

  test("a consistent indentation shift re-indents the new text into the file's", async () => {
    const file = "class A:\n    def f(self):\n        return 1\n";
    const out = replace(file, "def f(self):\n    return 1", "def f(self):\n    x = 1\n    return x");
    expect(out.text).toBe("class A:\n    def f(self):\n        x = 1\n        return x\n");
    expect(out.how).toBe("matched ignoring indentation at lines 2–3");
  });

  test("spaces for tabs: new lines are written with tabs", async () => {
    const out = replace("func f() {\n\tif x {\n\t\ty()\n\t}\n}\n", "    if x {\n        y()", "    if x {\n        y()\n        z()");
    expect(out.text).toBe("func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n");
  });

  test("an inconsistent shift is refused, naming the line", async () => {
    const out = replace("a:\n    b\n        c\n", "      b\n        c", "x");
    expect(out.error).toContain("Line 2 has other indentation or spacing");
  });

  test("a shift that fits two places is ambiguous", async () => {
    const out = replace("def a():\n    x = 1\nclass B:\n    def a(self):\n        x = 1\n", "x = 1", "x = 2");
    expect(out.error).toContain("matches 2 times");
    const lines = replace("if a:\n    p()\n    q()\nif b:\n        p()\n        q()\n", "p()\nq()", "r()");
    expect(lines.error).toContain("matches 2 times (matched ignoring indentation) (at lines 2, 5)");
  });

  test("mixed line endings: untouched lines keep theirs, new lines take the replaced lines'", async () => {
    const out = replace("a\r\nb\r\nc\nd\n", "b\nc", "B\nB2\nc");
    expect(out.text).toBe("a\r\nB\r\nB2\r\nc\nd\n");
    expect(out.how).toContain("ignoring the \\r of CRLF line endings");
    expect(replace("a\r\nb\r\n", "a\r\nb", "A\r\nb").text).toBe("A\r\nb\r\n");
  });

  test("escaped old text is unescaped, and the new text with it", async () => {
    const out = replace('f("x")\ng()\n', 'f(\\"x\\")\\ng()', 'f(\\"y\\")\\ng()');
    expect(out.text).toBe('f("y")\ng()\n');
    expect(out.how).toContain("after unescaping");
    expect(unescapeText("a\\tb\\\\n\\'")).toBe("a\tb\\n'");
  });

  test("a real backslash-n in the file is matched as it is, not unescaped", async () => {
    expect(replace('s = "a\\nb"\n', 's = "a\\nb"', 's = "c\\nd"').text).toBe('s = "c\\nd"\n');
  });

  test("read's prefixes are removed only when consecutive", async () => {
    expect(stripReadPrefixes("     3\ta\n     4\tb")).toEqual({ text: "a\nb", first: 3, last: 4 });
    expect(stripReadPrefixes("3\ta\n4\tb")).toEqual({ text: "a\nb", first: 3, last: 4 });
    expect(stripReadPrefixes("     3\ta\n     5\tb")).toBeUndefined();
    const out = replace("x\na\nb\n", "2\ta\n3\tb", "2\ta\n3\tB");
    expect(out).toEqual({ text: "x\na\nB\n", how: "matched after removing read's line-number prefixes (2–3) at lines 2–3" });
    expect(replace("x\na\nb\n", "     2\ta\n     9\tb", "z").error).toContain("not consecutive");
  });

  test("typographic characters match their ASCII, and the file keeps its own", async () => {
    expect(foldTypography("\u201Cq\u201D \u2014 it\u2019s\u00A0x")).toBe('"q" - it\'s x');
    const out = replace("say \u201Chi\u201D now\n", 'say "hi" now', 'say "hi" later');
    expect(out.text).toBe("say \u201Chi\u201D later\n");
    expect(out.how).toContain("ignoring typographic");
  });

  test("Unicode composition: an NFD file stays NFD", async () => {
    expect(replace("Rene\u0301e\n", "Ren\u00E9e", "Ren\u00E9e D").text).toBe("Rene\u0301e D\n");
  });

  test("never across a missing or an extra line", async () => {
    expect(replace("a\nb\nc\n", "a\nc", "x").error).toContain("the old text was not found");
    expect(replace("a\nb\nc\n", "a\nb\nb2\nc", "x").error).toContain("the old text was not found");
  });

  test("patch hunks search from the cursor and after their @@ anchor", async () => {
    const doc = parseDoc("f():\n  x = 1\ng():\n  x = 1\n");
    const outcome = applyReplace(doc, { old: "  x = 1\n", new: "  x = 2\n", wholeLines: true, anchor: "g():" });
    expect(outcome.ok).toBe(true);
    expect(renderDoc(doc)).toBe("f():\n  x = 1\ng():\n  x = 2\n");
  });
});

describe("a miss names the concrete difference and shows the current lines", () => {
  test("an invisible carriage return", async () => {
    const out = replace("alpha\nbe\rta\ngamma\n", "alpha\nbeta\ngamma", "x");
    expect(out.error).toContain("Line 2 has an invisible \\r (carriage return)");
    expect(out.error).toContain("\n1\talpha");
  });

  test("escapes the file does not have", async () => {
    expect(replace("print(1)\n", 'print(\\"a\\")', "x").error).toContain('the escape sequence \\", which the file does not have');
    // A file with other backslashes still gets the escape named.
    expect(replace('s = "a\\nb"\nprint(1)\n', 'print(\\"a\\")', "x").error).toContain('escape sequence \\"');
  });

  test("a curly quote and its code point", async () => {
    const out = replace("const s = \u201Chello\u201D; // one\nnext();\n", 'const s = "hullo"; // one\nnext();', "x");
    expect(out.error).toContain("\u201C (U+201C)");
  });

  test("tabs against spaces", async () => {
    expect(replace("f {\n\tg(1)\n\th(2)\n}\n", "f {\n    g(1)\n  h(2)", "x").error).toContain("indented with tabs in the file and with spaces");
  });

  test("no percentages", async () => {
    expect(replace("function shout() {}\n", "function shoot() {}", "x").error).not.toMatch(/% similar/);
  });
});

describe("line endings, BOM and the final newline", () => {
  test("splicing keeps a missing final newline and a CRLF file's endings", async () => {
    const doc = parseDoc("\uFEFFa\r\nb");
    spliceLines(doc, 1, 2, ["B", "C"]);
    expect(renderDoc(doc)).toBe("\uFEFFa\r\nB\r\nC");
    expect(lfText(parseDoc("a\r\nb\r\n"))).toBe("a\nb\n");
  });

  test("appending after a last line without a newline", async () => {
    const doc = parseDoc("a\nb");
    spliceLines(doc, 2, 2, ["c"]);
    expect(renderDoc(doc)).toBe("a\nb\nc");
  });
});

describe("apply_patch parsing", () => {
  test("the envelope with every kind of section", async () => {
    const changes = parseApplyPatch(
      "*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@ fn\n ctx\n-old\n+new\n*** Add File: n.md\n+hi\n*** Delete File: gone.txt\n*** End Patch",
    );
    expect(changes.map((c) => c.kind)).toEqual(["update", "create", "delete"]);
    expect(changes[0]).toMatchObject({ path: "a.ts", moveTo: "b.ts", ops: [{ kind: "replace", old: "ctx\nold\n", new: "ctx\nnew\n", anchor: "fn", wholeLines: true }] });
    expect(changes[1]).toEqual({ kind: "create", path: "n.md", content: "hi\n" });
  });

  test("a fence, a heredoc and a missing envelope are taken off", async () => {
    for (const input of ["```\n*** Begin Patch\n*** Delete File: x\n*** End Patch\n```", "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF", "*** Delete File: x"]) {
      expect(parseApplyPatch(input)).toEqual([{ kind: "delete", path: "x" }]);
    }
  });

  test("syntax errors say what is wrong", async () => {
    expect(() => parseApplyPatch("*** Begin Patch\nhello\n*** End Patch")).toThrow(PatchSyntaxError);
    expect(() => parseApplyPatch("*** Add File: a\nno plus")).toThrow("every line must start with +");
    expect(() => parseApplyPatch("*** Update File: a\n ctx only")).toThrow("changes nothing");
  });
});

describe("hashline parsing", () => {
  test("operations and their lenient forms", async () => {
    const { changes, warnings } = parseHashline("[a.ts#0a3b]\nSWAP 1.=2:\n+x\nDEL 4\nINS.POST 5:\n+y\nSWAP 7-8\nbare\nINS.HEAD:\n+h\nINS.TAIL:\n+t");
    expect(changes[0]).toMatchObject({ path: "a.ts", tag: "0A3B" });
    const ops = (changes[0] as Extract<FileChange, { kind: "update" }>).ops;
    expect(ops).toEqual([
      { kind: "lines", from: 1, to: 2, lines: ["x"] },
      { kind: "lines", from: 4, to: 4, lines: [] },
      { kind: "lines", from: 6, to: 5, lines: ["y"] },
      { kind: "lines", from: 7, to: 8, lines: ["bare"] },
      { kind: "lines", from: 1, to: 0, lines: ["h"] },
      { kind: "lines", from: -1, to: -2, lines: ["t"], tail: true },
    ]);
    expect(warnings[0]).toContain("Auto-prefixed bare body row");
  });

  test("what the original refuses is refused with its guidance", async () => {
    expect(() => parseHashline("SWAP 1:\n+x")).toThrow("[PATH");
    expect(() => parseHashline("[a]\nSWAP 1:\n-x")).toThrow("`-` rows are not valid");
    expect(() => parseHashline("[a]\nSWAP.BLK 3:\n+x")).toThrow("SWAP N.=M:");
    expect(() => parseHashline("[a]\n*** Update File: a")).toThrow("apply_patch sentinel");
    expect(() => parseHashline("[a]\nDEL 2.=3:")).toThrow(HashlineSyntaxError);
    expect(() => parseHashline("[a]\n@@ -1 +1 @@")).toThrow("`@@`");
  });
});

describe("the engine: all or nothing, refusals, what is kept", () => {
  const ctx = (cwd: string, reads?: FileReadStore) => ({ cwd, ...(reads ? { reads } : {}) });

  test("a failing file leaves every other file as it was", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), "one\n");
    writeFileSync(join(dir, "b.txt"), "two\n");
    const result = await applyChanges(
      [
        { kind: "update", path: "a.txt", ops: [{ kind: "replace", old: "one", new: "ONE" }] },
        { kind: "update", path: "b.txt", ops: [{ kind: "replace", old: "nope", new: "x" }] },
      ],
      ctx(dir),
    );
    expect(result.isError).toBe(true);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("one\n");
  });

  test("a read-only file is refused naming its mode", async () => {
    const dir = scratch();
    const path = join(dir, "ro.txt");
    writeFileSync(path, "keep\n");
    chmodSync(path, 0o444);
    const result = await applyChanges([{ kind: "update", path: "ro.txt", ops: [{ kind: "replace", old: "keep", new: "x" }] }], ctx(dir));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("ro.txt is read-only (mode 0444)");
    expect(readFileSync(path, "utf8")).toBe("keep\n");
  });

  test("a symlink's target is edited and the link stays; a move keeps the mode", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "real.txt"), "a\n");
    symlinkSync("real.txt", join(dir, "link.txt"));
    expect((await applyChanges([{ kind: "update", path: "link.txt", ops: [{ kind: "replace", old: "a", new: "b" }] }], ctx(dir))).isError).toBeFalsy();
    expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "real.txt"), "utf8")).toBe("b\n");
    writeFileSync(join(dir, "run.sh"), "echo a\n");
    chmodSync(join(dir, "run.sh"), 0o750);
    expect((await applyChanges([{ kind: "update", path: "run.sh", moveTo: "go.sh", ops: [{ kind: "replace", old: "echo a\n", new: "echo b\n", wholeLines: true }] }], ctx(dir))).isError).toBeFalsy();
    expect(existsSync(join(dir, "run.sh"))).toBe(false);
    expect(statSync(join(dir, "go.sh")).mode & 0o777).toBe(0o750);
  });

  test("an empty old text creates a missing file; an existing one is not overwritten by Add File", async () => {
    const dir = scratch();
    expect((await applyChanges([{ kind: "update", path: "new.txt", ops: [{ kind: "replace", old: "", new: "hi\n" }] }], ctx(dir))).isError).toBeFalsy();
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("hi\n");
    expect(textOf(await applyChanges([{ kind: "create", path: "new.txt", content: "x" }], ctx(dir)))).toContain("already exists");
  });

  test("hashline: a stale tag is refused with the current lines; the result names the new tag", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), "1\n2\n3\n");
    const bad = await hashlineEditTool.execute({ input: "[a.txt#FFFF]\nSWAP 2.=2:\n+two" }, context(dir));
    expect(textOf(bad)).toContain("does not match its current content");
    const good = await hashlineEditTool.execute({ input: `[a.txt#${hashlineTag("1\n2\n3\n")}]\nSWAP 2.=2:\n+two\nINS.TAIL:\n+4` }, context(dir));
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("1\ntwo\n3\n4\n");
    expect(textOf(good)).toContain(`[a.txt#${hashlineTag("1\ntwo\n3\n4\n")}]`);
  });

  test("apply_patch adds, deletes and updates in one call", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), "x\ny\n");
    writeFileSync(join(dir, "old.txt"), "bye\n");
    const result = await applyPatchTool.execute({ input: "*** Begin Patch\n*** Update File: a.txt\n x\n-y\n+z\n*** Add File: n.txt\n+new\n*** Delete File: old.txt\n*** End Patch" }, context(dir));
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("x\nz\n");
    expect(readFileSync(join(dir, "n.txt"), "utf8")).toBe("new\n");
    expect(existsSync(join(dir, "old.txt"))).toBe(false);
  });
});

describe("stale reads", () => {
  test("a change on disk where the edit applies is refused with the changed lines; elsewhere it goes through", async () => {
    const dir = scratch();
    const path = join(dir, "s.txt");
    writeFileSync(path, "a\nb\nc\nd\ne\n");
    const reads = new FileReadStore();
    reads.recordFile(path);
    writeFileSync(path, "a\nB!\nc\nd\ne\n");
    const refused = await applyChanges([{ kind: "update", path: "s.txt", ops: [{ kind: "replace", old: "B!\nc", new: "x\nc" }] }], { cwd: dir, reads });
    expect(textOf(refused)).toContain("changed on disk since you last read it, at line 2");
    expect(textOf(refused)).toContain("\n2\tB!");
    expect(readFileSync(path, "utf8")).toBe("a\nB!\nc\nd\ne\n");
    const allowed = await applyChanges([{ kind: "update", path: "s.txt", ops: [{ kind: "replace", old: "e", new: "E" }] }], { cwd: dir, reads });
    expect(allowed.isError).toBeFalsy();
    expect(textOf(allowed)).toContain("changed on disk at line 2");
    // What omp wrote is what the model knows now: the next edit is not stale.
    expect((await applyChanges([{ kind: "update", path: "s.txt", ops: [{ kind: "replace", old: "B!", new: "b" }] }], { cwd: dir, reads })).isError).toBeFalsy();
  });
});

describe("which format a model gets", () => {
  test("GPT and Codex models get apply_patch, others replace; settings and models.yml win", async () => {
    expect(editModeFor({ id: "gpt-6.2-sol", provider: "openai" }, undefined, undefined)).toBe("apply_patch");
    expect(editModeFor({ id: "gpt-5-codex", provider: "openai" }, undefined, undefined)).toBe("apply_patch");
    expect(editModeFor({ id: "openai/gpt-oss-120b", provider: "openrouter" }, undefined, undefined)).toBe("apply_patch");
    expect(editModeFor({ id: "claude-sonnet-5-5", provider: "anthropic" }, undefined, undefined)).toBe("replace");
    expect(editModeFor({ id: "claude-sonnet-5-5", provider: "anthropic" }, "hashline", undefined)).toBe("hashline");
    expect(editModeFor({ id: "gpt-6", provider: "openai" }, "hashline", "replace")).toBe("replace");
  });

  test("the edit tool is swapped in its place; the others stay", async () => {
    const tools = builtinTools();
    const swapped = withEditMode(tools, "apply_patch");
    expect(swapped.map((t) => t.name)).toEqual(tools.map((t) => (t.name === "edit" ? "apply_patch" : t.name)));
    expect(withEditMode(tools, "hashline").find((t) => t.name === "edit")!.parameters).toMatchObject({ required: ["input"] });
    expect(withEditMode(tools, "replace")).toBe(tools);
  });

  test("apply_patch and hashline paths outside the project are seen by the approval scope", async () => {
    const dir = scratch();
    const scope = new PathScope(dir);
    expect(scope.outside("apply_patch", { input: "*** Begin Patch\n*** Update File: /etc/hosts\n-a\n+b\n*** End Patch" })).toEqual(["/etc/hosts"]);
    expect(scope.outside("apply_patch", { input: "*** Begin Patch\n*** Add File: in.txt\n+a\n*** End Patch" })).toEqual([]);
    expect(scope.outside("edit", { input: "[/etc/passwd]\nDEL 1" })).toEqual(["/etc/passwd"]);
    expect(scope.outside("edit", { path: "a.txt", rename: "/tmp/out.txt", diff: "" })).toEqual(["/tmp/out.txt"]);
  });
});

describe("big files: the fast path and the windowed diff", () => {
  test("the windowed diff equals the full diff wherever the change is", async () => {
    const { unifiedDiff } = await import("../../../core/tools/diff.ts");
    const { windowedDiff } = await import("../../../core/tools/edit/fast-path.ts");
    const base = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
    const variants: [string, string][] = [
      [`${base}\n`, `${base.replace("line 1\n", "LINE 1\n")}\n`],
      [`${base}\n`, `${base.replace("line 20\n", "line 20\nnew a\nnew b\n")}\n`],
      [`${base}\n`, `${base.replace("line 21\nline 22\n", "")}\n`],
      [`${base}\n`, base.replace("line 40", "line forty")],
      [base, `${base}\nline 41\n`],
      [`${base}\n`, `${base.replace("line 3\n", "line three\n").replace("line 30\n", "line thirty\n")}\n`],
    ];
    for (const [before, after] of variants) expect(windowedDiff(before, after, "f.txt")).toEqual(unifiedDiff(before, after, "f.txt"));
  });

  test("the fast path gives what the full engine gives", async () => {
    const { fastApply } = await import("../../../core/tools/edit/fast-path.ts");
    const text = "a\nb\nc\nb\n";
    expect(fastApply(text, [{ kind: "replace", old: "c", new: "C" }])).toEqual({ text: "a\nb\nC\nb\n", touched: [[3, 3]] });
    expect(fastApply(text, [{ kind: "replace", old: "b", new: "B" }])).toBeUndefined();
    expect(fastApply(text, [{ kind: "replace", old: "b\n", new: "B\n", wholeLines: true }])?.text).toBe("a\nB\nc\nb\n");
    expect(fastApply(text, [{ kind: "lines", from: 2, to: 3, lines: ["x"] }])?.text).toBe("a\nx\nb\n");
    expect(fastApply("a\r\nb\r\n", [{ kind: "replace", old: "a", new: "A" }])).toBeUndefined();
    expect(fastApply(text, [{ kind: "lines", from: 5, to: 6, lines: ["x"] }])).toBeUndefined();
    expect(fastApply(text, [{ kind: "lines", from: -1, to: -2, lines: ["z"], tail: true }])?.text).toBe("a\nb\nc\nb\nz\n");
  });
});

describe("apply_patch to Claude-format hooks and agents", () => {
  test("it is an Edit with the patch's first file as file_path, and comes back as it was", async () => {
    const { fromClaude, matchNames, toClaude } = await import("../../../core/extensions/hooks/claude-tools.ts");
    const input = { input: "*** Begin Patch\n*** Update File: src/a.ts\n-x\n+y\n*** End Patch" };
    expect(matchNames("apply_patch")).toContain("Edit");
    expect(toClaude("apply_patch", input)).toEqual({ toolName: "Edit", toolInput: { file_path: "src/a.ts", ...input } });
    expect(fromClaude("apply_patch", { file_path: "src/a.ts", ...input })).toEqual(input);
  });
});
