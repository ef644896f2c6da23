import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Writes `files` (path → content) under `root`, making the folders they need. */
export function writeTree(root: string, files: Record<string, string | Uint8Array>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/**
 * A small repository that exercises what differs between searchers: ignore files, hidden and
 * binary files, types, sort order, context overlap, multiline, CRLF, long lines and Unicode.
 */
export function writeFixtureTree(root: string): void {
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "ignored_dir/\n*.log\n",
    ".ignore": "dotignored.txt\n",
    "src/main.rs": 'fn main() {\n    println!("foo bar");\n    let Foo = 1;\n}\n',
    "src/lib.rs": "pub fn foo() -> u32 {\n    42\n}\n// FOO in a comment\n",
    "src/util/helpers.ts": "export const foo = 'a.b(c';\nexport const bar = 'axb(c';\n",
    "src/util/Helpers.py": "def foo():\n    return 'foo'\n",
    "docs/readme.md": "# Foo\n\nFOO and foo.\nÉcole and école.\n日本語のテキスト foo\ncrab 🦀 foo\n",
    "ignored_dir/secret.txt": "foo in an ignored dir\n",
    "app.log": "foo in a log\n",
    "dotignored.txt": "foo in a .ignore'd file\n",
    ".hidden/inside.txt": "foo hidden inside\n",
    ".hiddenfile": "foo hidden\n",
    "bin/data.bin": new Uint8Array([0, 1, 2, 0x66, 0x6f, 0x6f, 10, 0x66, 0x6f, 0x6f, 10]),
    "crlf.txt": "foo\r\nbar\r\nfoo bar\r\n",
    "long.txt": `short foo\n${"x".repeat(120)} foo ${"y".repeat(120)}\n`,
    "a-c/x.txt": "foo\n",
    "a/b.txt": "foo\n",
    "a.txt": "foo\n",
    "multi.txt": "start\nfoo\nbar\nend\nfoo\nbaz\n",
    "context.txt": Array.from({ length: 20 }, (_, i) => ([3, 5, 12, 19].includes(i + 1) ? `line ${i + 1} foo` : `line ${i + 1}`)).join("\n") + "\n",
  };
  writeTree(root, files);
  // ripgrep honours .gitignore only inside a git repository.
  mkdirSync(join(root, ".git"));
  writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
}

/**
 * bench/tool-loop.ts's tree: 1,000 small source files in 20 folders under src/, and module.ts, the
 * 5 KB module its reads (and the 11-request session's) read.
 */
export function writeToolLoopTree(root: string): void {
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(root, "src", `pkg${d}`), { recursive: true });
    for (let f = 0; f < 50; f++) writeFileSync(join(root, "src", `pkg${d}`, `file${f}.ts`), `export const value${f} = ${d * 50 + f};\n// ${"x".repeat(80)}\n`);
  }
  const lines = Array.from({ length: 80 }, (_, i) => `export function f${i}(x: number): number {\n  return x * ${i} + 1;\n}`);
  writeFileSync(join(root, "module.ts"), `${lines.join("\n\n")}\n`);
  writeFileSync(join(root, ".gitignore"), "node_modules/\n");
}
