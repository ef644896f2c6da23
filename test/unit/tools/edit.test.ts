import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EditDetails, editTool } from "../../../core/tools/edit.ts";
import { context, scratch, textOf } from "./helpers.ts";

type EditInput = { oldText: string; newText: string; replaceAll?: boolean };

async function edit(dir: string, path: string, edits: EditInput[]) {
  return editTool.execute({ path, edits }, context(dir));
}

function file(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
}

/** Applies a diff with git to a copy of the original: the diff must reproduce the edited file exactly. */
function applyWithGit(original: string, diff: string, name: string): string {
  const dir = scratch();
  file(dir, name, original);
  writeFileSync(join(dir, "change.diff"), diff);
  const proc = Bun.spawnSync(["git", "apply", "--whitespace=nowarn", "change.diff"], { cwd: dir });
  if (proc.exitCode !== 0) throw new Error(`git apply failed: ${proc.stderr.toString()}\n${diff}`);
  return readFileSync(join(dir, name), "utf8");
}

const source = `import { a } from "./a";

export function greet(name: string) {
  return "hello " + name;
}

export function shout(name: string) {
  return "HELLO " + name;
}
`;

describe("edit: replacements", () => {
  test("replaces one exact occurrence and returns a diff git can apply", async () => {
    const dir = scratch();
    const path = file(dir, "src/greet.ts", source);
    const result = await edit(dir, "src/greet.ts", [{ oldText: 'return "hello " + name;', newText: "return `hello ${name}!`;" }]);
    expect(result.isError).toBeFalsy();
    const after = readFileSync(path, "utf8");
    expect(after).toBe(source.replace('return "hello " + name;', "return `hello ${name}!`;"));
    const details = result.details as EditDetails;
    expect(details.diff).toContain("--- a/src/greet.ts\n+++ b/src/greet.ts\n@@ -1,7 +1,7 @@\n");
    expect(details.diff).toContain('-  return "hello " + name;\n+  return `hello ${name}!`;\n');
    expect(details).toMatchObject({ added: 1, removed: 1, firstChangedLine: 4 });
    expect(textOf(result)).toStartWith("Edited src/greet.ts: 1 edit applied, +1 -1 lines.\n\n--- a/src/greet.ts");
    expect(textOf(result)).toContain(details.diff);
    expect(applyWithGit(source, details.diff, "src/greet.ts")).toBe(after);
  });

  test("replaceAll replaces every occurrence", async () => {
    const dir = scratch();
    const path = file(dir, "a.ts", source);
    const result = await edit(dir, "a.ts", [{ oldText: "name: string", newText: "name: String", replaceAll: true }]);
    expect(result.isError).toBeFalsy();
    const after = readFileSync(path, "utf8");
    expect(after.match(/name: String/g)?.length).toBe(2);
    expect(after).not.toContain("name: string");
    expect(applyWithGit(source, (result.details as EditDetails).diff, "a.ts")).toBe(after);
  });

  test("newText with $ patterns is inserted literally", async () => {
    const dir = scratch();
    const path = file(dir, "a.txt", "price: X\n");
    await edit(dir, "a.txt", [{ oldText: "X", newText: "$& $1 $$" }]);
    expect(readFileSync(path, "utf8")).toBe("price: $& $1 $$\n");
  });

  test("several edits apply in order, each to the result of the previous", async () => {
    const dir = scratch();
    const path = file(dir, "a.txt", "one\ntwo\nthree\n");
    const result = await edit(dir, "a.txt", [
      { oldText: "two", newText: "TWO" },
      { oldText: "TWO\nthree", newText: "TWO\n3" },
    ]);
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("one\nTWO\n3\n");
    expect(textOf(result)).toContain("2 edits applied, +2 -2 lines");
  });

  test("deleting text and a missing final newline show up in the diff", async () => {
    const dir = scratch();
    const original = "keep\ndrop\nlast";
    const path = file(dir, "a.txt", original);
    const result = await edit(dir, "a.txt", [{ oldText: "drop\nlast", newText: "last\n" }]);
    const diff = (result.details as EditDetails).diff;
    expect(diff).toContain("\\ No newline at end of file");
    expect(applyWithGit(original, diff, "a.txt")).toBe(readFileSync(path, "utf8"));
  });
});

describe("edit: failures change nothing", () => {
  test("zero matches: an inconsistent indentation is named and the current lines are shown", async () => {
    const dir = scratch();
    const path = file(dir, "a.ts", source);
    const result = await edit(dir, "a.ts", [{ oldText: '  export function shout(name: string) {\n return "HELLO " + name;', newText: "x" }]);
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain("the old text was not found");
    expect(text).toContain("Line 7 has other indentation or spacing in the file");
    expect(text).toContain("the other lines do not shift consistently");
    expect(text).toContain('\n8\t  return "HELLO " + name;');
    expect(text).toContain("No changes were written.");
    expect(readFileSync(path, "utf8")).toBe(source);
  });

  test("zero matches: the closest similar lines are shown when nothing matches loosely", async () => {
    const dir = scratch();
    file(dir, "a.ts", source);
    const result = await edit(dir, "a.ts", [{ oldText: 'export function shoot(name: string) {\n  return "HALLO " + name;', newText: "x" }]);
    const text = textOf(result);
    expect(text).toContain('Line 7 differs: the file has "export function shout(name: string) {", the old text has "export function shoot(name: string) {"');
    expect(text).toContain("The closest lines in the file now (5–9)");
    expect(text).not.toContain("% similar");
    expect(text).toContain("7\texport function shout(name: string) {");
  });

  test("zero matches: nothing similar says to re-read", async () => {
    const dir = scratch();
    file(dir, "a.ts", source);
    const text = textOf(await edit(dir, "a.ts", [{ oldText: "qqqqqq zzzzzz", newText: "x" }]));
    expect(text).toContain("Nothing like it is in the file; read the file again");
  });

  test("several matches without replaceAll: error with the count and line numbers", async () => {
    const dir = scratch();
    const path = file(dir, "a.ts", source);
    const result = await edit(dir, "a.ts", [{ oldText: "export function", newText: "function" }]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("the old text matches 2 times (at lines 3, 7)");
    expect(textOf(result)).toContain("replaceAll: true");
    expect(readFileSync(path, "utf8")).toBe(source);
  });

  test("all or nothing: a failing later edit leaves the file untouched", async () => {
    const dir = scratch();
    const path = file(dir, "a.txt", "one\ntwo\n");
    const inode = statSync(path).ino;
    const result = await edit(dir, "a.txt", [
      { oldText: "one", newText: "ONE" },
      { oldText: "one", newText: "uno" },
    ]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Edit 2 of 2 failed in a.txt (searched in the file as changed by the edits before it)");
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\n");
    expect(statSync(path).ino).toBe(inode);
  });

  test("empty oldText, identical texts and missing files are explained", async () => {
    const dir = scratch();
    file(dir, "a.txt", "x\n");
    expect(textOf(await edit(dir, "a.txt", [{ oldText: "", newText: "y" }]))).toContain("The old text is empty but a.txt is not");
    expect(textOf(await edit(dir, "a.txt", [{ oldText: "x", newText: "x" }]))).toContain("identical");
    const missing = await edit(dir, "b.txt", [{ oldText: "x", newText: "y" }]);
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain("File not found: b.txt");
    expect(textOf(missing)).toBe("File not found: b.txt. Did you mean a.txt?\nTo create a file, use write (or an empty old text).\nNo changes were written.");
  });

  test("files that are not UTF-8 are refused rather than corrupted", async () => {
    const dir = scratch();
    const path = join(dir, "latin1.txt");
    const bytes = Buffer.from("caf\xe9 au lait\n", "latin1");
    writeFileSync(path, bytes);
    const result = await edit(dir, "latin1.txt", [{ oldText: "lait", newText: "sucre" }]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("not valid UTF-8");
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  test("binary files are refused", async () => {
    const dir = scratch();
    file(dir, "a.bin", "ab\0cd");
    const result = await edit(dir, "a.bin", [{ oldText: "ab", newText: "x" }]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("binary");
  });
});

describe("edit: file properties", () => {
  test("CRLF files stay CRLF while oldText uses \\n", async () => {
    const dir = scratch();
    const path = file(dir, "win.txt", "alpha\r\nbeta\r\ngamma\r\n");
    const result = await edit(dir, "win.txt", [{ oldText: "alpha\nbeta", newText: "alpha\nBETA\nextra" }]);
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("alpha\r\nBETA\r\nextra\r\ngamma\r\n");
  });

  test("LF files are not converted and a BOM is kept", async () => {
    const dir = scratch();
    const path = file(dir, "bom.txt", "\uFEFFone\ntwo\n");
    await edit(dir, "bom.txt", [{ oldText: "one", newText: "uno" }]);
    expect(readFileSync(path, "utf8")).toBe("\uFEFFuno\ntwo\n");
  });

  test("mode is kept and the write is atomic", async () => {
    const dir = scratch();
    const path = file(dir, "tool.sh", "#!/bin/sh\necho a\n");
    chmodSync(path, 0o755);
    await edit(dir, "tool.sh", [{ oldText: "echo a", newText: "echo b" }]);
    expect(statSync(path).mode & 0o7777).toBe(0o755);
    expect(readdirSync(dir)).toEqual(["tool.sh"]);
  });
});
