// How the interactive mode treats the terminal: append-only scrollback, resize, 80×24, themes,
// NO_COLOR, and print-mode rules when stdout is not a terminal.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OMP, tempDir } from "../support/omp.ts";
import { Tty } from "../support/tty-tmux.ts";
import { READY, testSessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const { ready, start } = testSessions();

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe("terminal", () => {
  test("Ctrl+Z gives the shell its terminal back and stops omp; fg brings the prompt back as it was, still working", async () => {
    const s = await ready({ shell: true, script: [{ text: "Answered after the resume." }] });
    const { tty } = s;
    tty.type("draft before suspending");
    await tty.waitFor("draft before suspending");
    tty.press("C-z");
    await tty.waitFor(/Stopped/);
    // The terminal is in the mode omp found it in: canonical input, as the shell left it.
    tty.type("stty -a | grep -o -- '-*icanon' | head -1; echo shell-is-$((6*7))");
    tty.press("Enter");
    const shell = await tty.waitFor("shell-is-42");
    expect(shell).toMatch(/^icanon$/m);
    tty.type("fg");
    tty.press("Enter");
    // The editor comes back with the draft, below what the shell printed.
    await tty.waitFor((screen) => screen.lastIndexOf("draft before suspending") > screen.indexOf("shell-is-42"));
    // Raw mode again: keys reach the editor and Enter sends.
    tty.press("C-u");
    tty.type("after the resume");
    tty.press("Enter");
    await tty.waitFor("Answered after the resume.");
    const texts = s.standin.requests.filter((r) => r.method === "POST").map((r) => JSON.stringify(r.body));
    expect(texts.at(-1)).toContain("after the resume");
  });

  test("a long answer scrolls into the scrollback once, in order, without clearing the screen", async () => {
    const code = Array.from({ length: 60 }, (_, i) => `console.log("code line ${i + 1}");`).join("\n");
    const prose = Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} says something.`).join("\n\n");
    const s = await ready({ script: [{ text: `Intro.\n\n\`\`\`js\n${code}\n\`\`\`\n\n${prose}\n\nThe end.`, eventDelayMs: 200 }] });
    const { tty } = s;
    tty.type("a long one");
    tty.press("Enter");
    await tty.waitFor("The end.");
    await tty.waitFor((screen) => !screen.includes("esc to interrupt"));
    const history = tty.history();
    expect(count(history, "omp 0.1.0")).toBe(1);
    expect(count(history, "❯ a long one")).toBe(1);
    let at = -1;
    for (let i = 1; i <= 60; i++) {
      expect(count(history, `"code line ${i}"`)).toBe(1);
      const next = history.indexOf(`"code line ${i}"`);
      expect(next).toBeGreaterThan(at);
      at = next;
    }
    for (let i = 1; i <= 30; i++) expect(count(history, `Paragraph ${i} says`)).toBe(1);
    // The editor stays at the bottom of an 80×24 screen.
    const rows = tty.screen().split("\n");
    expect(rows.length).toBeGreaterThanOrEqual(24);
    expect(rows.slice(0, 24).some((row) => row.startsWith("❯ Ask anything"))).toBe(true);
  });

  test("a resize redraws everything for the new width, once", async () => {
    const sentence = "This sentence is long enough that it has to wrap differently once the terminal gets narrower than before.";
    const s = await ready({ script: [{ text: sentence }] });
    const { tty } = s;
    tty.type("wrap please");
    tty.press("Enter");
    await tty.waitFor("narrower");
    tty.resize(50, 20);
    // tmux rewraps the old 80-column rows at once (a 50 and a 30 column piece of each border); omp's redraw follows.
    await tty.waitFor((screen) => /^─+$/m.test(screen) && screen.split("\n").every((row) => !/^─+$/.test(row) || row.length === 50));
    const history = tty.history();
    expect(count(history, "omp 0.1.0")).toBe(1);
    expect(count(history, "❯ wrap please")).toBe(1);
    for (const row of history.split("\n")) expect(row.length).toBeLessThanOrEqual(50);
    expect(history.replace(/\n {2}/g, " ")).toContain(sentence);
    tty.resize(100, 30);
    await tty.waitFor((screen) => screen.includes("─".repeat(100)));
    expect(count(tty.history(), "❯ wrap please")).toBe(1);
    tty.type("still typing");
    await tty.waitFor("❯ still typing");
  });

  test("NO_COLOR leaves colours out but keeps bold; themes follow the background", async () => {
    const plain = await ready({ env: { NO_COLOR: "1" }, script: [{ text: "**strong** words" }] });
    plain.tty.type("hi");
    plain.tty.press("Enter");
    await plain.tty.waitFor("strong words");
    const styled = plain.tty.styledScreen();
    expect(styled).not.toMatch(/\x1b\[[0-9;]*3[89];5;/);
    expect(styled).not.toMatch(/\x1b\[[0-9;]*3[89];2;/);
    // Bold survives (tmux reports attributes only where they change, so look at where it ends).
    expect(styled).toContain("\x1b[1m");
    expect(styled).toMatch(/strong\x1b\[0m/);
    await plain.close();

    const colourOf = async (env: Record<string, string>, home?: string) => {
      const s = await ready({ env, home });
      const styled = s.tty.styledScreen();
      await s.close();
      // The status line's model name (the welcome line's has "anthropic/" before it).
      return /\x1b\[(38;[0-9;]+)mclaude-sonnet-4-5/.exec(styled)?.[1];
    };
    const dark = await colourOf({ COLORFGBG: "15;0" });
    const light = await colourOf({ COLORFGBG: "0;15" });
    const forced = await colourOf({ COLORFGBG: "0;15", OMP_THEME: "dark" });
    expect(dark).toBeDefined();
    expect(light).toBeDefined();
    expect(light).not.toBe(dark);
    expect(forced).toBe(dark);
    const truecolor = await colourOf({ COLORTERM: "truecolor", OMP_THEME: "dark" });
    expect(truecolor).toBe("38;2;122;162;247");
    // The theme setting in config.yml fixes the colours whatever the terminal says; OMP_THEME still wins.
    const home = tempDir("omp-theme-home-");
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "theme: light\n");
    expect(await colourOf({ COLORFGBG: "15;0" }, home)).toBe(light);
    expect(await colourOf({ COLORFGBG: "15;0", OMP_THEME: "dark" }, home)).toBe(dark);
  });

  test("works in 80×24 with a two-row editor and a list open", async () => {
    const { tty } = await ready({ cols: 80, rows: 24 });
    tty.type("first line");
    tty.press("M-Enter");
    tty.type("second line");
    const screen = await tty.waitFor("  second line");
    expect(screen).toContain("❯ first line");
    tty.press("C-c");
    await tty.waitFor(READY);
    tty.type("/");
    const list = await tty.waitFor("/compact");
    const rows = list.replace(/\n+$/, "").split("\n");
    expect(rows.length).toBeLessThanOrEqual(24);
    expect(rows.some((row) => row.startsWith("❯ /"))).toBe(true);
    // Seven suggestions fit at this height; the rest scroll into view.
    expect(rows.filter((row) => /^ {2}\/\w/.test(row))).toHaveLength(7);
    // Down scrolls the rest into view, one row at a time, until the built-in /exit shows.
    for (let i = 0; i < 40 && !tty.screen().includes("/exit"); i++) {
      tty.press("Down");
      await Bun.sleep(50);
    }
    await tty.waitFor("/exit");
  });

  test("with stdout not a terminal, print-mode rules apply: the answer only, no escape codes", async () => {
    const session = await start({ args: ["say", "hi"], redirect: "| cat", script: [{ text: "plain **answer**" }] });
    const screen = await session.tty.waitFor("plain **answer**");
    expect(screen).not.toContain("Ask anything");
    expect(session.tty.styledScreen()).not.toContain("\x1b[1m");
  });

  test("a known newer release is mentioned once the prompt is up", async () => {
    const home = tempDir("omp-tty-home-");
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "update-check.json"), JSON.stringify({ checkedAt: Date.now(), channel: "stable", latest: "99.0.0" }));
    const s = await ready({ home, env: { OMP_NO_UPDATE_CHECK: undefined } });
    await s.tty.waitFor("omp 99.0.0 is available");
  });

  test("omp leaves the terminal in the mode it found it, the transcript above the shell prompt", async () => {
    const home = tempDir("omp-tty-home-");
    const tty = Tty.start({ home, cwd: home, binary: "bash", args: ["--norc", "--noprofile"], env: { PS1: "$ ", OMP_NO_UPDATE_CHECK: "1", ANTHROPIC_API_KEY: "sk-ant-test-key-0123456789" } });
    try {
      await tty.waitFor("$");
      tty.type(`stty -g > before; ${OMP} --model anthropic/claude-sonnet-4-5`);
      tty.press("Enter");
      await tty.waitFor(READY);
      tty.press("C-d");
      await tty.waitFor(/ctrl\+c twice quits\n\$$/m);
      tty.type("stty -g > after; cmp before after && echo same-mode");
      tty.press("Enter");
      await tty.waitFor(/^same-mode$/m);
      expect(tty.screen()).not.toContain(READY);
    } finally {
      tty.kill();
    }
  });
});
