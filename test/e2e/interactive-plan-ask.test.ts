// Plan mode and the ask tool in the terminal (tmux): the ask tool's questions as a picker whose
// answers reach the model; Shift+Tab and /plan switch modes, shown in the status line; in plan mode
// an edit is refused, the plan is approved in the picker, and the edit then runs.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { modelRequests, toolResultsOf } from "../support/agent-harness.ts";
import { READY, readySessions } from "../support/tty-session.ts";
import { tempDir } from "../support/temp.ts";

setDefaultTimeout(60_000);

const ready = readySessions();
const lastResults = (standin: Parameters<typeof modelRequests>[0]) => toolResultsOf("anthropic-messages", modelRequests(standin).at(-1)!.body);

describe("interactive plan mode and questions", () => {
  test("the ask tool shows a picker with tabs and option descriptions; ← goes back; a review comes before the answers reach the model", async () => {
    const questions = [
      { question: "Which database?", header: "Database", options: [{ label: "Postgres", description: "a server, for many writers" }, { label: "SQLite", description: "one file, no server" }] },
      { question: "Which features?", options: ["auth", "billing", "search"], multiple: true },
    ];
    const s = await ready({ script: [{ toolCalls: [{ name: "ask", arguments: { questions } }] }, { text: "Thanks for answering." }] });
    const { tty } = s;
    tty.type("set up the project");
    tty.press("Enter");
    const first = await tty.waitFor("Which database? (1/2)");
    expect(first).toContain("3. Other: type an answer");
    expect(first).toContain("one file, no server");
    expect(first).toMatch(/☐ Database .*☐ Q2 .*Review/);
    tty.press("Down", "Enter");
    await tty.waitFor("Which features? (2/2)");
    expect(tty.screen()).toMatch(/✓ Database/);
    // Back to the first question: its answer is still chosen; forward again.
    tty.press("Left");
    await tty.waitFor((screen) => screen.includes("Which database? (1/2)") && /› 2\. SQLite/.test(screen));
    tty.press("Right");
    await tty.waitFor("Which features? (2/2)");
    tty.press("Space", "Down", "Down", "Space");
    await tty.waitFor("[x] search");
    tty.press("Enter");
    const review = await tty.waitFor("Review your answers");
    expect(review).toContain("→ SQLite");
    expect(review).toContain("→ auth; search");
    expect(lastResults(s.standin)).toEqual([]);
    tty.press("Enter");
    await tty.waitFor("Thanks for answering.");
    expect(lastResults(s.standin)[0]!.text).toBe("Which database?\n→ SQLite\n\nWhich features?\n→ auth; search");
  });

  test("Shift+Tab cycles the modes in the status line; in plan mode an edit is refused, the approved plan's edit runs; /plan toggles", async () => {
    const s = await ready({
      files: { "notes.txt": "draft\n" },
      script: [
        { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "draft", newText: "final" }] } }] },
        { toolCalls: [{ name: "exit_plan_mode", arguments: { plan: "## Steps\n\n- Replace **draft** with final in notes.txt", steps: ["Edit notes.txt"] } }] },
        { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "draft", newText: "final" }] } }] },
        { text: "Edited as planned." },
      ],
      args: ["--sandbox", "off"],
    });
    const { tty } = s;
    tty.press("BTab");
    await tty.waitFor("⏸ plan mode");
    tty.type("finish the notes");
    tty.press("Enter");
    const plan = await tty.waitFor("Approve this plan?");
    // The plan as Markdown: a heading and a bullet, not their marks.
    expect(plan).toContain("• Replace draft with final in notes.txt");
    expect(plan).not.toContain("## Steps");
    expect(plan).not.toContain("**draft**");
    // The plan-mode reminder goes to the model, not into the transcript.
    expect(plan).toContain("❯ finish the notes");
    expect(plan).not.toContain("system-reminder");
    expect(plan).not.toContain("+1 attached");
    expect(readFileSync(join(s.cwd, "notes.txt"), "utf8")).toBe("draft\n");
    tty.press("Enter");
    await tty.waitFor("Edited as planned.");
    expect(readFileSync(join(s.cwd, "notes.txt"), "utf8")).toBe("final\n");
    const results = lastResults(s.standin);
    expect(results[0]!.text).toContain("plan mode");
    expect(results[1]!.text).toContain("[ ] Edit notes.txt");
    await tty.waitFor((screen) => !screen.includes("⏸ plan mode"));
    // Under yolo nothing asks, so auto-accept would change nothing: Shift+Tab goes plan ↔ default.
    tty.press("BTab");
    await tty.waitFor("⏸ plan mode");
    tty.press("BTab");
    await tty.waitFor((screen) => screen.includes("yolo · ") && screen.includes(READY));
    expect(tty.screen()).not.toContain("auto-accept edits");
    tty.type("/plan");
    tty.press("Enter");
    await tty.waitFor("⏸ plan mode");
    expect(s.sessionEntries().filter((e) => e.type === "mode_change").map((e) => e.mode)).toEqual(["plan", "default", "plan", "default", "plan"]);
    // /tree names the plan-mode turn by the user's words, not omp's reminder to the model.
    tty.type("/tree");
    tty.press("Enter");
    const tree = await tty.waitFor(/\d\d:\d\d(:\d\d)?\s+finish the notes/);
    expect(tree).not.toContain("system-reminder");
  });

  test("the status line always says what asks and whether commands are sandboxed; under write, Shift+Tab's auto-accept lets edits run unasked", async () => {
    const s = await ready({
      files: { "notes.txt": "draft\n" },
      script: [
        { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "draft", newText: "final" }] } }] },
        { text: "Edited without asking." },
      ],
      args: ["--approval-mode", "write"],
    });
    const { tty } = s;
    const start = await tty.waitFor("asks for changes");
    expect(start).toMatch(/asks for changes · (sandboxed|not sandboxed)/);
    tty.press("BTab");
    await tty.waitFor("⏸ plan mode");
    tty.press("BTab");
    await tty.waitFor("⏵⏵ auto-accept edits");
    tty.type("finish the notes");
    tty.press("Enter");
    await tty.waitFor("Edited without asking.");
    expect(tty.screen()).not.toContain("Allow edit?");
    expect(readFileSync(join(s.cwd, "notes.txt"), "utf8")).toBe("final\n");
    tty.press("BTab");
    await tty.waitFor("asks for changes");
  });

  test("with the sandbox off the status line says so", async () => {
    const s = await ready({ args: ["--sandbox", "off"] });
    const screen = await s.tty.waitFor("sandbox off");
    expect(screen).toContain("yolo · ");
  });

  test("a plan edited in the picker is approved as edited; the model gets the user's version", async () => {
    const s = await ready({
      script: [{ toolCalls: [{ name: "exit_plan_mode", arguments: { plan: "1. Write the parser", steps: ["Write the parser"] } }] }, { text: "Following your plan." }],
      args: ["--approval-mode", "plan"],
    });
    const { tty } = s;
    await tty.waitFor("⏸ plan mode");
    tty.type("plan the parser");
    tty.press("Enter");
    await tty.waitFor("4. Edit the plan, then approve it");
    tty.press("4");
    await tty.waitFor("Edit the plan · enter approves it");
    tty.type(" with tests first");
    tty.press("Enter");
    await tty.waitFor("Following your plan.");
    expect(lastResults(s.standin)[0]!.text).toContain("The user edited the plan; follow this version:\n1. Write the parser with tests first");
    await tty.waitFor((screen) => !screen.includes("⏸ plan mode"));
  });

  test("a question nobody answers closes at the timeout and the model hears so", async () => {
    const home = tempDir("omp-tty-home-");
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "questions:\n  timeoutSeconds: 1\n");
    const s = await ready({ home, script: [{ toolCalls: [{ name: "ask", arguments: { questions: [{ question: "Project name?" }] } }] }, { text: "Moving on." }] });
    const { tty } = s;
    tty.type("start");
    tty.press("Enter");
    await tty.waitFor("Enter answers · esc to answer later");
    const screen = await tty.waitFor("Moving on.");
    expect(screen).not.toContain("esc to answer later");
    expect(lastResults(s.standin)[0]!.text).toContain("did not answer (nobody answered within 1 s)");
  });
});
