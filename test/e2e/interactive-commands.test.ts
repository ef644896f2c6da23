// Every slash command of the interactive mode, driven through a real terminal (tmux).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, exchange, messagesOf, sessionFiles, readySessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const ready = readySessions();

describe("slash commands", () => {
  test("/ lists matching commands; Tab completes, Enter runs; /help and /hotkeys explain", async () => {
    const { tty } = await ready();
    tty.type("/h");
    const list = await tty.waitFor("/hotkeys");
    expect(list).toContain("/help");
    expect(list).not.toContain("/model");
    tty.press("Down", "Tab");
    await tty.waitFor("❯ /hotkeys");
    tty.press("Enter");
    // Longer than the screen: the actions scroll up into the history.
    const keys = await tty.waitFor("paste what was deleted last", undefined, () => tty.history());
    expect(keys).toMatch(/ctrl\+r +search prompt history \(app\.history\.search\)/);
    expect(keys).toContain("remap the first group in ~/.omp/agent/keybindings.yml");
    tty.type("/help");
    tty.press("Enter");
    // Longer than the screen once /extensions is in it: read from the history.
    const help = await tty.waitFor("Tips", undefined, () => tty.history());
    for (const name of ["/model", "/thinking", "/new", "/resume", "/session", "/compact", "/export", "/copy", "/exit"]) expect(help).toContain(name);
    // A usage longer than the column (/plugin's) has a row of its own; its description stays in the column.
    const rows = help.split("\n");
    const plugin = rows.findIndex((row) => row.startsWith("  /plugin ["));
    expect(plugin).toBeGreaterThan(-1);
    expect(rows[plugin + 1]).toMatch(/^ {32}browse marketplaces, install, enable and disable/);
    // Wrapped, it goes on in the column too, never at column 0.
    expect(rows[plugin + 2]).toMatch(/^ {32}\S|^ {2}\//);
    const model = rows.find((row) => row.startsWith("  /model "))!;
    expect(model.indexOf("pick the model")).toBe(32);
  });

  test("an unknown command gets a suggestion and nothing is sent", async () => {
    const s = await ready();
    s.tty.type("/sesion");
    s.tty.press("Enter");
    await s.tty.waitFor("Unknown command /sesion. Did you mean /session?");
    s.tty.type("/zzzz");
    s.tty.press("Enter");
    await s.tty.waitFor("Unknown command /zzzz. /help");
    expect(s.standin.requests.filter((r) => r.method === "POST")).toHaveLength(0);
  });

  test("/model picks from the available models; the next request goes to it", async () => {
    const s = await ready({ script: [{ text: "answered by opus" }] });
    const { tty } = s;
    tty.type("/model");
    tty.press("Enter");
    await tty.waitFor("filter:");
    tty.type("opus-4-5");
    await tty.waitFor("(1 of");
    tty.press("Enter");
    await tty.waitFor("Model: anthropic/claude-opus-4-5");
    expect(tty.screen()).toContain("claude-opus-4-5 ·");
    await exchange(s, "hello", "answered by opus");
    expect(s.standin.requests.find((r) => r.method === "POST")!.body.model).toBe("claude-opus-4-5");
    const entries = s.sessionEntries();
    expect(entries.some((e) => e.type === "model_change" && e.model === "anthropic/claude-opus-4-5")).toBe(true);
  });

  test("/thinking sets the level from a list or an argument", async () => {
    const s = await ready({ script: [{ text: "thought" }] });
    const { tty } = s;
    tty.type("/thinking");
    tty.press("Enter");
    await tty.waitFor("Thinking level");
    tty.press("Down", "Enter");
    await tty.waitFor("Thinking: high");
    tty.type("/thinking low");
    tty.press("Enter");
    await tty.waitFor("Thinking: low");
    tty.type("/thinking lots");
    tty.press("Enter");
    await tty.waitFor('Unknown thinking level "lots"');
    await exchange(s, "think", "thought");
    const levels = s.sessionEntries().filter((e) => e.type === "thinking_level_change").map((e) => e.thinkingLevel);
    expect(levels).toEqual(["high", "low"]);
  });

  test("/session shows id, file, tokens and cost; /new starts another file; /resume picks one back by title", async () => {
    const s = await ready({ script: [{ text: "the first answer", usage: { input: 1200, output: 345 } }, { text: "the second answer" }, { text: "back again" }] });
    const { tty } = s;
    await exchange(s, "first session question", "the first answer");
    tty.type("/session");
    tty.press("Enter");
    const info = await tty.waitFor("context");
    const firstId = s.sessionEntries()[0].id as string;
    expect(info).toContain(firstId);
    expect(info).toContain("1.2k in · 345 out");
    expect(info).toMatch(/cost\s+\$0\.\d{3}/);

    tty.type("/new");
    tty.press("Enter");
    await tty.waitFor("New session.");
    await exchange(s, "second session question", "the second answer");
    await eventually(() => (sessionFiles(s.home).length === 2 ? true : undefined), "a second session file");

    tty.type("/resume");
    tty.press("Enter");
    const picker = (await tty.waitFor("Resume a session")).split("Resume a session")[1]!;
    expect(picker).toContain("first session question");
    expect(picker).toMatch(/just now · 2 messages/);
    // The session in use is not offered.
    expect(picker).not.toContain("second session question");
    tty.press("Enter");
    await tty.waitFor("Resumed");
    expect(tty.screen()).toContain("the first answer");
    await exchange(s, "continuing", "back again");
    const resumed = sessionFiles(s.home).map((file) => messagesOf(readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l))));
    const first = resumed.find((m) => m[0]?.text === "first session question")!;
    expect(first.map((m) => m.text)).toEqual(["first session question", "the first answer", "continuing", "back again"]);
  });

  test("/compact summarises the older messages into the session", async () => {
    const s = await ready({ script: [{ text: "one" }, { text: "two" }, { text: "The summary of the first exchange." }] });
    const { tty } = s;
    tty.type("/compact");
    tty.press("Enter");
    await tty.waitFor("Nothing to compact yet");
    await exchange(s, "first", "one");
    await exchange(s, "second", "two");
    tty.type("/compact keep it short");
    tty.press("Enter");
    await tty.waitFor("into a summary");
    const compaction = s.sessionEntries().find((e) => e.type === "compaction");
    expect(compaction.summary).toBe("The summary of the first exchange.");
    const request = s.standin.requests.filter((r) => r.method === "POST")[2]!;
    expect(JSON.stringify(request.body)).toContain("keep it short");
  });

  test("/export writes HTML (as rpc export_html) or Markdown files of the conversation; /stats writes the stats page", async () => {
    const s = await ready({ script: [{ text: "Here is **the** answer.\n\n```sh\necho hi\n```" }] });
    const { tty } = s;
    await exchange(s, "export me", "Here is the answer.");
    tty.type("/export");
    tty.press("Enter");
    await tty.waitFor("(HTML)");
    const id = (s.sessionEntries()[0].id as string).slice(0, 8);
    expect(readFileSync(join(s.cwd, `omp-session-${id}.html`), "utf8")).toContain("export me");
    tty.type("/export notes.md");
    tty.press("Enter");
    await tty.waitFor("(Markdown)");
    const markdown = readFileSync(join(s.cwd, "notes.md"), "utf8");
    expect(markdown).toContain("## User\n\nexport me");
    expect(markdown).toContain("Here is **the** answer.");
    tty.type("/export notes/out.html");
    tty.press("Enter");
    await tty.waitFor("Could not write");
    tty.type("/export out.html");
    tty.press("Enter");
    await tty.waitFor("/out.html (HTML)");
    const html = readFileSync(join(s.cwd, "out.html"), "utf8");
    expect(html).toStartWith("<!doctype html>");
    expect(html).toContain("<strong>the</strong>");
    expect(html).toContain("<pre><code>echo hi</code></pre>");
    tty.type("/stats");
    tty.press("Enter");
    await tty.waitFor("Wrote the stats of the last 30 days");
    const page = readFileSync(join(s.cwd, "omp-stats.html"), "utf8");
    expect(JSON.parse(/<script type="application\/json" id="omp-stats">(.*)<\/script>/.exec(page)![1]!).stats.total.requests).toBe(1);
  });

  test("/copy puts the last answer on the clipboard with OSC 52", async () => {
    const s = await ready({ script: [{ text: "copy this answer" }] });
    const { tty } = s;
    tty.set("set-clipboard", "on");
    tty.type("/copy");
    tty.press("Enter");
    await tty.waitFor("no answer to copy yet");
    await exchange(s, "say something", "copy this answer");
    tty.type("/copy");
    tty.press("Enter");
    await tty.waitFor("Copied the last answer");
    expect(await eventually(() => (tty.buffer() === "copy this answer" ? tty.buffer() : undefined), "the tmux buffer")).toBe("copy this answer");
  });

  test("/exit leaves with status 0 and restores the terminal", async () => {
    const s = await ready();
    s.tty.type("/exit");
    s.tty.press("Enter");
    expect(await s.tty.exitCode()).toBe(0);
    // Without the session's messages no file was written, so there is nothing to resume.
    expect(s.tty.screen()).not.toContain("Resume it with");
    expect(sessionFiles(s.home)).toHaveLength(0);
  });
});

