// Tool calls in the interactive mode: compact blocks with diffs, output tails and counts;
// approval prompts (once, always, deny with a reason); thinking; resuming with -c.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type InteractiveSession, messagesWhen, readySessions } from "../support/tty-session.ts";
import { tempDir } from "../support/temp.ts";

setDefaultTimeout(60_000);

const ready = readySessions();

async function ask(s: InteractiveSession, prompt: string): Promise<void> {
  s.tty.type(prompt);
  s.tty.press("Enter");
}

const idle = (screen: string) => !screen.includes("esc to interrupt");

describe("tool blocks", () => {
  test("an edit shows its diff in colour, bash the tail of its output, grep its counts", async () => {
    const s = await ready({
      files: { "src/math.ts": "export function add(a, b) {\n  return a - b;\n}\n", "src/more.ts": "add(1, 2);\nadd(3, 4);\n" },
      script: [
        {
          toolCalls: [
            { name: "edit", arguments: { path: "src/math.ts", edits: [{ oldText: "return a - b;", newText: "return a + b;" }] } },
            { name: "bash", arguments: { command: "for i in $(seq 1 12); do echo out-$i; done" } },
            { name: "grep", arguments: { pattern: "add\\(" } },
          ],
        },
        { text: "All done." },
      ],
    });
    const { tty } = s;
    await ask(s, "fix add");
    const screen = await tty.waitFor("All done.");
    expect(screen).toContain("✓ edit src/math.ts +1 −1");
    expect(screen).toContain("-  return a - b;");
    expect(screen).toContain("+  return a + b;");
    expect(screen).toContain("✓ bash for i in");
    expect(screen).toContain("out-12");
    expect(screen).not.toContain("out-6\n");
    expect(screen).toContain("7 more lines (ctrl+o to expand)");
    expect(screen).toMatch(/✓ grep add\\\(.*3 matches in 2 files/);
    expect(readFileSync(join(s.cwd, "src/math.ts"), "utf8")).toContain("return a + b;");
    const styled = tty.styledScreen();
    // Added and removed lines in different colours.
    const added = /\x1b\[([0-9;]+)m\+ {2}return a \+ b;/.exec(styled)?.[1];
    const removed = /\x1b\[([0-9;]+)m- {2}return a - b;/.exec(styled)?.[1];
    expect(added).toBeDefined();
    expect(removed).toBeDefined();
    expect(added).not.toBe(removed);
    // Ctrl+O expands the bash output in place.
    tty.press("C-o");
    await tty.waitFor("out-6");
  });

  test("a failing command is marked and shows its end", async () => {
    const s = await ready({ script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo about to fail; exit 3" } }] }, { text: "It failed." }] });
    await ask(s, "try");
    const screen = await s.tty.waitFor("It failed.");
    expect(screen).toContain("✗ bash echo about to fail; exit 3");
    expect(screen).toContain("Command exited with code 3.");
  });

  test("a deferred tool run through call_tool shows as that tool", async () => {
    const s = await ready({ files: { "src/a.ts": "x\n" }, script: [{ toolCalls: [{ name: "call_tool", arguments: { name: "ls", arguments: { path: "src" } } }] }, { text: "Listed." }] });
    await ask(s, "list src");
    const screen = await s.tty.waitFor("Listed.");
    expect(screen).toMatch(/✓ ls src/);
    expect(screen).not.toContain("call_tool");
  });

  test("thinking shows as one line while collapsed and in full with Ctrl+T", async () => {
    const s = await ready({ script: [{ thinking: "First I consider the parser.\nThen the lexer.", text: "The answer." }] });
    await ask(s, "think");
    const screen = await s.tty.waitFor("The answer.");
    expect(screen).toMatch(/∴ Thought for \d+s \(ctrl\+t to show\)/);
    expect(screen).not.toContain("Then the lexer.");
    s.tty.press("C-t");
    const open = await s.tty.waitFor("Then the lexer.");
    expect(open).toContain("∴ First I consider the parser.");
    s.tty.press("C-t");
    await s.tty.waitFor((screen) => !screen.includes("Then the lexer."));
  });
});

describe("approvals", () => {
  test("allow once asks again; always stops asking; deny sends the reason to the model", async () => {
    const call = (command: string) => ({ toolCalls: [{ name: "bash", arguments: { command } }] });
    const s = await ready({
      args: ["--approval-mode", "always-ask"],
      script: [
        call("echo first-run"),
        call("echo second-run"),
        call("echo third-run"),
        { toolCalls: [{ name: "write", arguments: { path: "build.txt", content: "x" } }] },
        { text: "Finished." },
      ],
    });
    const { tty } = s;
    await ask(s, "go");
    await tty.waitFor("Allow bash? echo first-run");
    expect(tty.screen()).toContain("don't ask again for bash");
    tty.press("y");
    await tty.waitFor("Allow bash? echo second-run");
    tty.press("Down", "Enter");
    // "Always" covers the third call: no prompt for it.
    await tty.waitFor("third-run");
    await tty.waitFor("Allow write? build.txt");
    tty.press("n");
    await tty.waitFor("Why not?");
    tty.type("no new files");
    tty.press("Enter");
    await tty.waitFor("Finished.");
    const results = (await messagesWhen(s, 10)).filter((m) => m.role === "toolResult").map((m) => m.text);
    expect(results).toEqual(["first-run", "second-run", "third-run", "The user denied this write call. Reason: no new files"]);
    expect(tty.screen()).toContain("✗ write build.txt");
  });

  test("an edit's approval shows the numbered − and + lines; Esc denies, shows what was denied and ends the turn; reads are not asked under write", async () => {
    const s = await ready({
      args: ["--approval-mode", "write"],
      files: { "notes.txt": "hello\n", "app.py": "def greet(name):\n    return 'Hi, ' + name\n\nprint(greet('x'))\n" },
      script: [
        { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
        { toolCalls: [{ name: "edit", arguments: { path: "app.py", edits: [{ oldText: "    return 'Hi, ' + name", newText: "    return f'Hi, {name}'" }] } }] },
        { text: "MODEL-WENT-ON" },
      ],
    });
    const { tty } = s;
    await ask(s, "read then edit");
    const prompt = await tty.waitFor("Allow edit? app.py");
    expect(prompt).toContain("✓ read notes.txt");
    // Numbered as in the file: the old line 2 removed, the new line 2 added, context around.
    expect(prompt).toMatch(/1 {3}def greet\(name\):/);
    expect(prompt).toMatch(/2 − {5}return 'Hi, ' \+ name/);
    expect(prompt).toMatch(/2 \+ {5}return f'Hi, \{name\}'/);
    const styled = tty.styledScreen();
    const added = /\x1b\[([0-9;]+)m2 \+ {5}return f/.exec(styled)?.[1];
    const removed = /\x1b\[([0-9;]+)m2 − {5}return 'Hi/.exec(styled)?.[1];
    expect(added).toBeDefined();
    expect(added).not.toBe(removed);
    tty.press("Escape");
    const after = await tty.waitFor("Stopped: you denied that call");
    // The denied block keeps the change that was turned down.
    expect(after).toContain("✗ edit app.py");
    expect(after).toMatch(/2 − {5}return 'Hi, ' \+ name/);
    const results = (await messagesWhen(s, 5)).filter((m) => m.role === "toolResult").map((m) => m.text);
    expect(results[1]).toBe("The user denied this edit call; it was not run. Wait for the user's instructions.");
    // The model was not asked again: its next reply never came.
    expect(tty.screen()).not.toContain("MODEL-WENT-ON");
    expect(readFileSync(join(s.cwd, "app.py"), "utf8")).toContain("'Hi, ' + name");
  });

  test("a change may be edited before it is accepted: the file gets the user's version and the model hears how it differs", async () => {
    const s = await ready({
      args: ["--approval-mode", "write"],
      files: { "greet.py": "print('hi')\n" },
      script: [
        { toolCalls: [{ name: "edit", arguments: { path: "greet.py", edits: [{ oldText: "print('hi')", newText: "print('hello')" }] } }] },
        { text: "Noted your version." },
      ],
    });
    const { tty } = s;
    await ask(s, "friendlier");
    const prompt = await tty.waitFor("Allow edit? greet.py");
    expect(prompt).toContain("4. Edit it first, then accept");
    tty.press("e");
    await tty.waitFor("enter accepts your version");
    tty.type("print('and welcome')");
    tty.press("Enter");
    await tty.waitFor("Noted your version.");
    expect(readFileSync(join(s.cwd, "greet.py"), "utf8")).toBe("print('hello')\nprint('and welcome')");
    const results = (await messagesWhen(s, 4)).filter((m) => m.role === "toolResult").map((m) => m.text);
    expect(results[0]).toContain("The user edited your change to greet.py before accepting it");
    expect(results[0]).toContain("+print('and welcome')");
  });

  test("a long change scrolls in the approval and Ctrl+O shows more of it", async () => {
    const before = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const s = await ready({
      args: ["--approval-mode", "write"],
      rows: 50,
      files: { "long.txt": before },
      script: [{ toolCalls: [{ name: "write", arguments: { path: "long.txt", content: before.replaceAll("line", "row") } }] }, { text: "written" }],
    });
    const { tty } = s;
    await ask(s, "rewrite");
    const first = await tty.waitFor("Allow write? long.txt");
    expect(first).toMatch(/longer than the view \(rows 1-16 of \d+\)/);
    expect(first).not.toContain("row 60");
    tty.press("NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage", "NPage");
    await tty.waitFor((screen) => screen.includes("60 + row 60"));
    tty.press("C-o");
    // The view grows to the screen's height.
    await tty.waitFor((screen) => {
      const shown = /rows (\d+)-(\d+) of/.exec(screen);
      return !shown || Number(shown[2]) - Number(shown[1]) + 1 > 16;
    });
    tty.press("y");
    await tty.waitFor("written");
    expect(readFileSync(join(s.cwd, "long.txt"), "utf8")).toContain("row 60");
  });
});

describe("resuming", () => {
  test("-c shows the earlier conversation and continues the same file", async () => {
    const first = await ready({ script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo from-before" } }] }, { text: "Earlier answer." }] });
    await ask(first, "earlier question");
    await first.tty.waitFor("Earlier answer.");
    await first.tty.waitFor(idle);
    const { home, cwd } = first;
    await first.close();

    const s = await ready({ home, cwd, args: ["-c"], script: [{ text: "Continued." }] });
    const screen = await s.tty.waitFor("Earlier answer.");
    expect(screen).toContain("Resumed");
    expect(screen).toContain("❯ earlier question");
    expect(screen).toContain("✓ bash echo from-before");
    await ask(s, "and now");
    await s.tty.waitFor("Continued.");
    const messages = await messagesWhen(s, 6);
    expect(messages.map((m) => m.text)).toEqual(["earlier question", "[bash]", "from-before", "Earlier answer.", "and now", "Continued."]);
  });
});

describe("edit formats in tool blocks", () => {
  test("an apply_patch call shows its file, counts and diff like an edit", async () => {
    const home = tempDir("omp-tty-home-");
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "edit:\n  mode: apply_patch\n");
    const patch = "*** Begin Patch\n*** Update File: src/math.ts\n@@\n export function add(a, b) {\n-  return a - b;\n+  return a + b;\n*** End Patch";
    const s = await ready({ home, files: { "src/math.ts": "export function add(a, b) {\n  return a - b;\n}\n" }, script: [{ toolCalls: [{ name: "apply_patch", arguments: { input: patch } }] }, { text: "Patched." }] });
    await ask(s, "fix add");
    const screen = await s.tty.waitFor("Patched.");
    expect(screen).toContain("✓ apply_patch src/math.ts +1 −1");
    expect(screen).toContain("+  return a + b;");
    expect(readFileSync(join(s.cwd, "src/math.ts"), "utf8")).toContain("return a + b;");
  });
});
