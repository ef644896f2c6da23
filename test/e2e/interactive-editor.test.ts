// The prompt editor in a real terminal: multi-line input, readline keys, history (persisted and
// searched), large pastes, and @ path completion.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/omp.ts";
import { type InteractiveSession, READY, messagesWhen, readySessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const ready = readySessions();

/** The editor's rows (between the two borders below the status line); tmux drops trailing spaces. */
function editorOf(screen: string): string {
  const rows = screen.split("\n");
  const borders = rows.flatMap((row, i) => (/^─{20,}$/.test(row) ? [i] : []));
  return rows.slice(borders[0]! + 1, borders[1]).join("\n");
}

describe("prompt editor", () => {
  test("Alt+Enter, Shift+Enter (Kitty and xterm encodings) and a trailing backslash add lines; Enter sends them all", async () => {
    const s = await ready({ script: [{ text: "got four lines" }] });
    const { tty } = s;
    tty.type("one");
    tty.press("M-Enter");
    tty.type("two");
    tty.sendRaw("\x1b[13;2u");
    tty.type("three");
    tty.sendRaw("\x1b[27;2;13~");
    tty.type("four\\");
    tty.press("Enter");
    await tty.waitFor((screen) => editorOf(screen).split("\n").length === 5);
    tty.press("BSpace");
    await tty.waitFor((screen) => editorOf(screen) === "❯ one\n  two\n  three\n  four");
    tty.press("Enter");
    await tty.waitFor("got four lines");
    const messages = await messagesWhen(s, 1);
    expect(messages[0]!.text).toBe("one\ntwo\nthree\nfour");
  });

  test("readline keys move and delete by character, word and line", async () => {
    const { tty } = await ready();
    tty.type("hello big world");
    tty.press("C-a");
    tty.type(">");
    tty.press("C-e");
    tty.type("<");
    await tty.waitFor("❯ >hello big world<");
    tty.press("M-b", "C-k");
    await tty.waitFor((s) => editorOf(s) === "❯ >hello big");
    tty.press("C-w");
    await tty.waitFor((s) => editorOf(s) === "❯ >hello");
    tty.press("C-y", "C-y");
    await tty.waitFor((s) => editorOf(s) === "❯ >hello big big");
    tty.press("C-a", "M-f", "M-d");
    await tty.waitFor((s) => editorOf(s) === "❯ >hello big");
    tty.press("C-e", "Left", "Left", "BSpace");
    await tty.waitFor((s) => editorOf(s) === "❯ >hello bg");
    tty.press("C-u");
    await tty.waitFor((s) => editorOf(s) === "❯ g");
    tty.press("C-e", "C-u");
    await tty.waitFor(READY);
  });

  test("history: Up and Down browse earlier prompts, also of earlier runs; Ctrl+R searches them", async () => {
    const first = await ready({ script: [{ text: "a1" }, { text: "a2" }] });
    first.tty.type("fix the parser");
    first.tty.press("Enter");
    await first.tty.waitFor("a1");
    first.tty.type("run the tests");
    first.tty.press("Enter");
    await first.tty.waitFor("a2");
    const home = first.home;
    const db = join(home, ".omp", "agent", "history.db");
    expect(statSync(db).mode & 0o777).toBe(0o600);
    await first.close();

    const s = await ready({ home, script: [{ text: "again" }] });
    const { tty } = s;
    tty.type("draft");
    tty.press("Up");
    await tty.waitFor((screen) => editorOf(screen) === "❯ run the tests");
    tty.press("Up");
    await tty.waitFor((screen) => editorOf(screen) === "❯ fix the parser");
    tty.press("Down", "Down");
    await tty.waitFor((screen) => editorOf(screen) === "❯ draft");
    tty.press("C-u", "C-r");
    tty.type("pars");
    await tty.waitFor("(reverse-i-search)'pars': fix the parser");
    tty.press("Enter");
    await tty.waitFor((screen) => editorOf(screen) === "❯ fix the parser");
    tty.press("C-u", "C-r");
    tty.type("nothing like it");
    await tty.waitFor("(failing reverse-i-search)");
    tty.press("Escape");
    await tty.waitFor(READY);
  });

  test("a large paste becomes a placeholder that is expanded when sent", async () => {
    const s = await ready({ script: [{ text: "read it" }] });
    const { tty } = s;
    const pasted = Array.from({ length: 120 }, (_, i) => `row ${i + 1}`).join("\n");
    tty.type("explain: ");
    tty.paste(pasted);
    await tty.waitFor("❯ explain: [paste #1 +120 lines]");
    tty.press("Enter");
    await tty.waitFor("read it");
    expect(tty.screen()).toContain("more lines (ctrl+o to expand)");
    const messages = await messagesWhen(s, 1);
    expect(messages[0]!.text).toBe(`explain: ${pasted}`);
    // A small paste is inserted as it is.
    tty.paste("short\npaste");
    await tty.waitFor((screen) => editorOf(screen) === "❯ short\n  paste");
  });

  test("@ completes paths with the fuzzy finder; the file goes with the prompt", async () => {
    const s = await ready({ files: { "src/parser/lexer.ts": "export const TOKENS = 1;\n", "docs/guide.md": "# guide\n" }, script: [{ text: "seen the lexer" }] });
    const { tty } = s;
    tty.type("check @lexer");
    await tty.waitFor("src/parser/lexer.ts");
    tty.press("Tab");
    await tty.waitFor((screen) => editorOf(screen) === "❯ check @src/parser/lexer.ts");
    tty.type("please");
    tty.press("Enter");
    await tty.waitFor("seen the lexer");
    const body = JSON.stringify(s.standin.requests.find((r) => r.method === "POST")!.body);
    expect(body).toContain("export const TOKENS = 1;");
    // Directories keep completing inside.
    tty.type("@pars");
    await tty.waitFor("src/parser/");
    tty.press("Tab");
    await tty.waitFor("src/parser/lexer.ts");
    tty.press("Escape");
    await tty.waitFor((screen) => !screen.includes("  src/parser/lexer.ts"));
  });
});

describe("keybindings.yml", () => {
  const homeWith = (text: string) => {
    const home = tempDir("omp-keys-home-");
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "keybindings.yml"), text);
    return home;
  };

  test("a remap moves an action: Ctrl+F searches history, Ctrl+R is free, the thinking cycle was given Ctrl+G; /hotkeys says so", async () => {
    const { tty } = await ready({ home: homeWith("app.history.search: Ctrl+F\napp.thinking.cycle: Ctrl+G\n") });
    tty.press("C-r");
    tty.type("x");
    await tty.waitFor("❯ x");
    expect(tty.screen()).not.toContain("reverse-i-search");
    tty.press("C-u", "C-f");
    await tty.waitFor("(reverse-i-search)");
    tty.press("Escape");
    await tty.waitFor(READY);
    tty.press("C-g");
    await tty.waitFor("Thinking: high");
    tty.type("/hotkeys");
    tty.press("Enter");
    const keys = await tty.waitFor("(app.display.reset)", undefined, () => tty.history());
    expect(keys).toMatch(/ctrl\+f +search prompt history \(app\.history\.search\)/);
    expect(keys).toMatch(/ctrl\+g +next thinking level \(app\.thinking\.cycle\)/);
  });

  test("the original omp's file: an action omp does not know is a warning line each, the known remaps still apply", async () => {
    const { tty } = await ready({ home: homeWith("app.history.serch: Ctrl+E\napp.session.tree: Ctrl+X\napp.history.search: Ctrl+F\n") });
    const screen = await tty.waitFor(/app\.session\.tree:\s+unknown\s+action,\s+skipped/);
    expect(screen).toMatch(/keybindings\.yml: app\.history\.serch: unknown action \(did you mean\s+app\.history\.search\?\), skipped/);
    expect(screen).not.toContain("the default keys apply");
    tty.press("C-f");
    await tty.waitFor("(reverse-i-search)");
  });

  test("a bad chord is reported when the session starts and the default keys keep working", async () => {
    const { tty } = await ready({ home: homeWith("app.history.search: Ctrl+Banana\n") });
    const screen = await tty.waitFor(/the\s+default\s+keys\s+apply\s+until\s+the\s+file\s+is\s+fixed/);
    expect(screen).toMatch(/keybindings\.yml: app\.history\.search: "Ctrl\+Banana": unknown key\s+"banana"/);
    tty.press("C-r");
    await tty.waitFor("(reverse-i-search)");
  });
});

