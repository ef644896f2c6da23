import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EditorBuffer } from "../../../cli/interactive/widgets/editor-buffer.ts";
import type { Key } from "../../../cli/interactive/terminal/keys.ts";
import { PromptEditor } from "../../../cli/interactive/widgets/prompt-editor.ts";
const stripAnsi = (text: string) => Bun.stripANSI(text);
import { Theme } from "../../../cli/interactive/render/theme.ts";
import { HistoryStore } from "../../../core/history/store.ts";

const key = (name: string, mods: Partial<Key> = {}): Key => ({ name, ctrl: false, alt: false, shift: false, ...mods });
const char = (text: string): Key => key(text.toLowerCase(), { text });
const theme = new Theme("dark", "none");

describe("EditorBuffer", () => {
  test("inserts across lines and deletes graphemes, not code units", () => {
    const b = new EditorBuffer();
    b.insert("ab👍🏽c\nde");
    expect(b.lines).toEqual(["ab👍🏽c", "de"]);
    expect([b.row, b.col]).toEqual([1, 2]);
    b.home();
    b.backspace();
    expect(b.lines).toEqual(["ab👍🏽cde"]);
    b.left();
    b.backspace();
    expect(b.text).toBe("abcde");
  });

  test("words, kills and yank", () => {
    const b = new EditorBuffer();
    b.insert("foo bar-baz qux");
    b.wordLeft();
    expect(b.col).toBe(12);
    b.wordLeft();
    b.killWordForward();
    expect(b.text).toBe("foo bar- qux");
    b.end();
    b.killWhitespaceWord();
    expect(b.text).toBe("foo bar- ");
    b.yank();
    expect(b.text).toBe("foo bar- qux");
    b.home();
    b.killToEnd();
    expect(b.text).toBe("");
    b.yank();
    expect(b.text).toBe("foo bar- qux");
  });
});

describe("PromptEditor", () => {
  test("a trailing backslash continues on a new line; Enter sends", () => {
    const e = new PromptEditor(theme, () => []);
    for (const c of "one\\") e.handleKey(char(c));
    expect(e.handleKey(key("enter"))).toBe("changed");
    for (const c of "two") e.handleKey(char(c));
    expect(e.handleKey(key("enter"))).toBe("submit");
    expect(e.take()).toBe("one\ntwo");
  });

  test("large pastes become placeholders, deleted whole and expanded on take", () => {
    const e = new PromptEditor(theme, () => []);
    const big = Array.from({ length: 40 }, (_, i) => `l${i}`).join("\r\n");
    e.paste(big);
    expect(e.text).toBe("[paste #1 +40 lines]");
    e.handleKey(char(" "));
    e.paste("small");
    expect(e.take()).toBe(`${big.replaceAll("\r\n", "\n")} small`);
    e.paste(big);
    e.handleKey(key("backspace"));
    expect(e.isEmpty).toBe(true);
  });

  test("Up and Down move through wrapped rows first, then through the history", () => {
    const e = new PromptEditor(theme, () => ["newest", "older"]);
    for (const c of "x".repeat(30)) e.handleKey(char(c));
    e.render(22, 10, "", "prompt");
    expect(e.handleKey(key("up"))).toBe("moved");
    expect(e.handleKey(key("up"))).toBe("changed");
    expect(e.text).toBe("newest");
    e.handleKey(key("up"));
    expect(e.text).toBe("older");
    expect(e.handleKey(key("up"))).toBe("ignored");
    e.handleKey(key("down"));
    e.handleKey(key("down"));
    expect(e.text).toBe("x".repeat(30));
  });

  test("the cursor is placed after wide characters and on the next row at a wrap point", () => {
    const e = new PromptEditor(theme, () => []);
    for (const c of "世界") e.handleKey(char(c));
    expect(e.render(40, 5, "", "prompt").cursor).toEqual({ row: 0, col: 6 });
    for (const c of "abcd") e.handleKey(char(c));
    // 8 cells of text in a 10-column terminal (2 for the prompt marker): the cursor wraps.
    const drawn = e.render(10, 5, "", "prompt");
    expect(drawn.rows.map(stripAnsi)).toEqual(["❯ 世界abcd", "  "]);
    expect(drawn.cursor).toEqual({ row: 1, col: 2 });
  });
});

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("HistoryStore", () => {
  test("keeps prompts private, newest first, without repeats, searchable", () => {
    const dir = mkdtempSync(join(tmpdir(), "omp-history-"));
    dirs.push(dir);
    const path = join(dir, "agent", "history.db");
    const store = HistoryStore.open(path);
    for (const text of ["fix the bug", "fix the bug", "run tests", "", "fix the bug", "100% done_ok"]) store.add(text, "/p");
    expect(store.recent(10)).toEqual(["100% done_ok", "fix the bug", "run tests"]);
    expect(store.search("FIX", 10)).toEqual(["fix the bug"]);
    expect(store.search("%", 10)).toEqual(["100% done_ok"]);
    expect(store.search("e_o", 10)).toEqual(["100% done_ok"]);
    store.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "agent")).mode & 0o777).toBe(0o700);
    const again = HistoryStore.open(path);
    expect(again.recent(1)).toEqual(["100% done_ok"]);
    again.close();
  });
});
