// The session tree in a real terminal (tmux), issue 28: /tree back two turns and on as a new branch,
// a label that stays in the file, Esc Esc, /branch, /name in omp -r, /fork, /resume <text>, /handoff,
// and a 1,000-turn session's tree.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { runAgent, userTextsOf } from "../support/agent-harness.ts";
import { type InteractiveSession, readySessions, sessionFiles } from "../support/tty-session.ts";
import { writeLongSession } from "../support/long-session.ts";
import { tempDir } from "../support/omp.ts";

setDefaultTimeout(90_000);

const ready = readySessions();

async function exchange(s: InteractiveSession, prompt: string, answer: string): Promise<void> {
  s.tty.type(prompt);
  s.tty.press("Enter");
  await s.tty.waitFor(answer);
  await s.tty.waitFor((screen) => !screen.includes("esc to interrupt"));
}

async function command(s: InteractiveSession, text: string, expected: string): Promise<string> {
  s.tty.type(text);
  s.tty.press("Enter");
  return s.tty.waitFor(expected);
}

const lastUserTexts = (s: InteractiveSession) => userTextsOf("anthropic-messages", s.standin.requests.filter((r) => r.method === "POST").at(-1)!.body);
const jsonl = (path: string) => readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line));

describe("/tree", () => {
  test("back two turns, a label, on as a new branch; Esc Esc opens the tree at the current turn; /branch edits an earlier message", async () => {
    const s = await ready({ rows: 40, cols: 120, script: [{ text: "answer one" }, { text: "answer two" }, { text: "answer three" }, { text: "answer four" }, { text: "answer 2b" }] });
    for (const [prompt, answer] of [
      ["first question", "answer one"],
      ["second question", "answer two"],
      ["third question", "answer three"],
      ["fourth question", "answer four"],
    ]) {
      await exchange(s, prompt!, answer!);
    }
    let screen = await command(s, "/tree", "Session tree");
    expect(screen).toMatch(/● .*fourth question/);
    expect(screen).toContain("4 turns");
    s.tty.press("Up", "Up");
    s.tty.type("l");
    await s.tty.waitFor("type the label");
    s.tty.type("keep this");
    s.tty.press("Enter");
    await s.tty.waitFor("[keep this] second question");
    s.tty.press("Enter");
    await s.tty.waitFor("Your next message starts a new branch");
    await exchange(s, "second b", "answer 2b");
    // The model saw the conversation up to turn two, then the new message.
    expect(lastUserTexts(s)).toEqual(["first question", "second question", "second b"]);
    const entries = s.sessionEntries();
    const second = entries.find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes("second question"));
    expect(entries.filter((e) => e.type === "label")).toEqual([expect.objectContaining({ targetId: second.id, label: "keep this" })]);

    // Esc Esc on the empty prompt: the tree, at the current turn, with both branches and the label.
    s.tty.press("Escape");
    await Bun.sleep(100);
    s.tty.press("Escape");
    screen = await s.tty.waitFor("Session tree");
    expect(screen).toMatch(/● .*second b/);
    expect(screen).toMatch(/• .*\[keep this\] second question \(2 branches\)/);
    expect(screen).toMatch(/├─ .*third question/);
    expect(screen).toContain("5 turns");
    s.tty.press("Escape");
    await s.tty.waitFor((text) => !text.includes("Session tree"));

    // /branch: Enter on a turn puts its message in the editor, the conversation as it was before it.
    await command(s, "/branch", "Branch from a turn");
    s.tty.press("Home", "Down", "Enter");
    await s.tty.waitFor("❯ second question");
  });

  test("the status line keeps the session's cost after /tree moves back a turn", async () => {
    const usage = { input: 20_000, output: 20_000 };
    const s = await ready({ rows: 30, cols: 140, script: [{ text: "answer one", usage }, { text: "answer two", usage }] });
    await exchange(s, "first question", "answer one");
    await exchange(s, "second question", "answer two");
    const cost = (screen: string) => /\$\d+\.\d+/.exec(screen.split("\n").filter((line) => line.includes("ctx ")).join("\n"))?.[0];
    const spent = cost(s.tty.screen());
    expect(spent).toBeDefined();
    expect(spent).not.toBe("$0.000");
    await command(s, "/tree", "Session tree");
    s.tty.press("Up");
    s.tty.press("Enter");
    const moved = await s.tty.waitFor("Your next message starts a new branch");
    expect(cost(moved)).toBe(spent);
  });

  test("a 1,000-turn session's tree opens at its last turn", async () => {
    const cwd = tempDir("omp-tty-project-");
    const long = writeLongSession({ sessionDir: tempDir("omp-long-"), cwd, turns: 1000, branchEvery: 100 });
    const s = await ready({ cwd, args: ["-r", long.path], rows: 30, cols: 120 });
    const started = Date.now();
    const screen = await command(s, "/tree", `${long.turns} turns`);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(screen).toMatch(/● .*turn 1000: please look/);
    expect(screen).toMatch(/turn 99\d: please look/);
  });
});

describe("names, fork, search, handoff", () => {
  test("/name shows in omp -r; /fork goes on in a linked copy; /resume <text> finds a session by what was said", async () => {
    const s = await ready({ script: [{ text: "parser looked at" }, { text: "fork reply" }, { text: "docs reply" }] });
    await exchange(s, "refactor the parser module", "parser looked at");
    await command(s, "/name parser work", 'Session named "parser work"');
    await command(s, "/name", 'This session is named "parser work"');
    const original = sessionFiles(s.home)[0]!;
    await command(s, "/fork", "Forked into");
    await exchange(s, "in the fork", "fork reply");
    const fork = sessionFiles(s.home).find((path) => path !== original)!;
    expect(jsonl(fork)[0]).toMatchObject({ type: "session", parentSession: original });
    expect(jsonl(original).some((e) => e.message?.content === "in the fork")).toBe(false);
    await command(s, "/new", "New session.");
    await exchange(s, "write the docs", "docs reply");

    const screen = await command(s, "/resume parsr modle", 'Sessions matching "parsr modle"');
    const picker = screen.slice(screen.indexOf("Sessions matching"));
    // The original and its fork, told apart by "(fork)"; not the docs session.
    expect(picker.match(/parser work +just now · refactor the parser module/g)).toHaveLength(1);
    expect(picker.match(/parser work \(fork\) +just now · refactor the parser module/g)).toHaveLength(1);
    expect(picker).not.toContain("docs");
    s.tty.press("Enter");
    await s.tty.waitFor("Resumed");

    const listing = await runAgent(["-r"], { home: s.home, cwd: s.cwd });
    expect(listing.stdout).toMatch(/parser work — refactor the parser module/);
    expect(listing.stdout).toContain("write the docs");
  });

  test("/handoff: a new session starts from the model's brief, and its first request carries it", async () => {
    const s = await ready({ script: [{ text: "parser looked at" }, { text: "too late", delayMs: 10_000 }, { text: "## Goal\nFinish the lexer rewrite" }, { text: "on it" }] });
    await exchange(s, "rewrite the lexer", "parser looked at");
    const old = sessionFiles(s.home)[0]!;
    // Esc cancels a brief being written; nothing changes.
    await command(s, "/handoff", "Writing the handoff brief");
    s.tty.press("Escape");
    await s.tty.waitFor("Handoff cancelled");
    expect(sessionFiles(s.home)).toEqual([old]);
    await command(s, "/handoff tests first", "started from a brief");
    await exchange(s, "go on", "on it");
    const texts = lastUserTexts(s);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain("Finish the lexer rewrite");
    expect(texts[1]).toBe("go on");
    const fresh = sessionFiles(s.home).find((path) => path !== old)!;
    expect(jsonl(fresh)[0]).toMatchObject({ parentSession: old, title: "Handoff: tests first" });
  });
});
