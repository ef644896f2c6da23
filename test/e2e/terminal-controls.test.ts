// The model's own text cannot act on the terminal: OSC 52 (clipboard), OSC 0 (title), OSC 8 links,
// DCS strings and cursor/erase sequences in its answer and its thinking reach neither the
// interactive mode's pane nor print mode's stdout on a terminal; omp's own colours stay.
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { eventually, testSessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);
const sessions = testSessions();

const HOSTILE = "Hello\x1b]52;c;c2stc2VjcmV0\x07\x1b]0;pwned\x07\x1b[2J\x1b[H \x1b]8;;http://evil.example/\x07world\x1b]8;;\x07\x1bPq#0;2;0;0;0\x1b\\ \u009b31mdone.";
const THINKING = "planning\x1b]2;thought-title\x1b\\ \x1b]52;c;dGhpbmtpbmc=\x07quietly";

function untouched(tty: { title(): string; clipboard(): string }): void {
  expect(tty.title()).not.toContain("pwned");
  expect(tty.title()).not.toContain("thought-title");
  expect(tty.clipboard()).toBe("");
}

test("interactive: OSC 52, OSC 0/2, OSC 8, DCS and CSI in the answer and the thinking do nothing; the text and omp's colours stay", async () => {
  const s = await sessions.ready({ script: [{ thinking: THINKING, text: HOSTILE }] });
  s.tty.type("say hello");
  s.tty.press("Enter");
  const screen = await s.tty.waitFor("world");
  expect(screen).toContain("Hello world");
  expect(screen).toContain("done.");
  expect(screen).toContain("say hello");
  untouched(s.tty);
  // The answer's bullet is still painted in omp's accent colour.
  expect(s.tty.styledScreen()).toMatch(/\x1b\[[0-9;]*m● /);
});

test("print mode on a terminal: the same sequences are stripped from stdout, and from the progress lines on stderr that carry the model's arguments", async () => {
  const s = await sessions.start({ script: [{ toolCalls: [{ name: "read", arguments: { path: "notes\x1b]0;pwned\x07.txt" } }] }, { thinking: THINKING, text: HOSTILE }], args: ["-p", "say hello"] });
  await eventually(() => (existsSync(s.tty.exitFile) ? readFileSync(s.tty.exitFile, "utf8") : undefined), "omp -p to exit");
  expect(readFileSync(s.tty.exitFile, "utf8").trim()).toBe("0");
  expect(s.tty.history()).toContain("Hello world");
  expect(s.tty.history()).toContain("→ read notes.txt");
  untouched(s.tty);
});
