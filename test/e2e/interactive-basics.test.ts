// The interactive mode in a real terminal (tmux): sending a prompt, streaming, interrupting,
// queueing while the agent works, leaving. Asserts on the screen and on the session file.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { READY, messagesWhen, testSessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const { ready, start } = testSessions();

describe("interactive mode", () => {
  test("a typed prompt is sent and the answer streams in as markdown", async () => {
    const session = await ready({
      script: [{ text: "# Plan\n\nFirst **check** the `tests`.\n\n- one\n- two\n\n```ts\nconst answer = 42;\n```\n", eventDelayMs: 30 }],
    });
    const { tty } = session;
    tty.type("what is the plan?");
    tty.press("Enter");
    const screen = await tty.waitFor("const answer = 42;");
    expect(screen).toContain("❯ what is the plan?");
    expect(screen).toContain("Plan");
    expect(screen).not.toContain("# Plan");
    expect(screen).toContain("First check the tests.");
    expect(screen).toContain("• one");
    await tty.waitFor(/↑\d+ ↓\d+/);
    const styled = tty.styledScreen();
    // Bold for **check**, a colour for the keyword.
    expect(styled).toMatch(/\x1b\[1mcheck/);
    expect(styled).toMatch(/\x1b\[[0-9;]*38;5;\d+m(const|\x1b)/);
    const messages = await messagesWhen(session, 2);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messages[0]!.text).toBe("what is the plan?");
  });

  test("a connection reset mid-answer is sent again and the answer shows once, whole", async () => {
    const answer = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda.";
    const session = await ready({ script: [{ text: answer, cutAfterEvents: 5, cutMode: "reset" }, { text: answer }] });
    const { tty } = session;
    tty.type("greek letters");
    tty.press("Enter");
    const screen = await tty.waitFor("kappa lambda.");
    // The part shown before the reset is not repeated by the second attempt.
    expect(screen.split("Alpha beta").length - 1).toBe(1);
    const messages = await messagesWhen(session, 2);
    expect(messages[1]).toMatchObject({ role: "assistant", text: answer });
  });

  test("Esc interrupts a streaming answer; the session keeps what was said and goes on", async () => {
    const session = await ready({
      script: [
        { text: "one two three four five six seven eight nine ten", eventDelayMs: 20, pauseAfterEvents: 4, pauseMs: 30_000 },
        { text: "After the interrupt." },
      ],
    });
    const { tty } = session;
    tty.type("count slowly");
    tty.press("Enter");
    await tty.waitFor("esc to interrupt");
    await tty.waitFor("one two");
    tty.press("Escape");
    await tty.waitFor("Interrupted");
    await tty.waitFor((s) => !s.includes("esc to interrupt"));
    tty.type("and now?");
    tty.press("Enter");
    await tty.waitFor("After the interrupt.");
    const messages = await messagesWhen(session, 4);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(messages[1]!.stopReason).toBe("aborted");
    expect(messages[2]!.text).toBe("and now?");
  });

  test("Ctrl+C interrupts too, and twice on an empty prompt quits", async () => {
    const session = await ready({ script: [{ text: "slow", pauseAfterEvents: 3, pauseMs: 30_000 }] });
    const { tty } = session;
    tty.type("go");
    tty.press("Enter");
    await tty.waitFor("esc to interrupt");
    tty.press("C-c");
    await tty.waitFor("Interrupted");
    tty.press("C-c");
    await tty.waitFor("Press Ctrl+C again to exit");
    tty.press("C-c");
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).toContain("Resume it with: omp -r");
  });

  test("messages typed while the agent works are queued: Enter steers, Alt+Enter follows up", async () => {
    const session = await ready({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "sleep 1; echo slept" } }], eventDelayMs: 5 },
        { text: "Saw the steer." },
        { text: "Saw the follow-up." },
      ],
    });
    const { tty } = session;
    tty.type("start");
    tty.press("Enter");
    await tty.waitFor("sleep 1; echo slept");
    tty.type("please steer");
    tty.press("Enter");
    tty.type("and follow up");
    tty.press("M-Enter");
    await tty.waitFor("queued follow-up: and follow up");
    expect(tty.screen()).toContain("queued steer: please steer");
    await tty.waitFor("Saw the follow-up.");
    const messages = await messagesWhen(session, 7);
    expect(messages.map((m) => `${m.role}:${m.text}`)).toEqual([
      "user:start",
      "assistant:[bash]",
      "toolResult:slept",
      "user:please steer",
      "assistant:Saw the steer.",
      "user:and follow up",
      "assistant:Saw the follow-up.",
    ]);
    expect(tty.screen()).not.toContain("queued");
  });

  test("an interrupt gives queued messages back to the editor instead of sending them", async () => {
    const session = await ready({ script: [{ text: "working on it", pauseAfterEvents: 4, pauseMs: 30_000 }, { text: "fresh start" }] });
    const { tty } = session;
    tty.type("long task");
    tty.press("Enter");
    await tty.waitFor("esc to interrupt");
    tty.type("actually, stop");
    tty.press("Enter");
    await tty.waitFor("queued steer: actually, stop");
    tty.press("Escape");
    await tty.waitFor("❯ actually, stop");
    expect(tty.screen()).not.toContain("queued");
    tty.press("Enter");
    await tty.waitFor("fresh start");
    const messages = await messagesWhen(session, 4);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(messages[1]!.stopReason).toBe("aborted");
    expect(messages.slice(2).map((m) => m.text)).toEqual(["actually, stop", "fresh start"]);
  });

  test("a prompt given on the command line is sent as the session starts", async () => {
    const session = await start({ args: ["explain", "the", "build"], script: [{ text: "The build is simple." }] });
    const screen = await session.tty.waitFor("The build is simple.");
    expect(screen).toContain("❯ explain the build");
    await session.tty.waitFor(READY);
  });

  test("!command runs in the shell and its output goes with the next message; !!command and stopped commands do not", async () => {
    const session = await ready({ script: [{ text: "noted" }] });
    const { tty } = session;
    tty.type("!echo shared-output");
    await tty.waitFor("! !echo shared-output");
    tty.press("Enter");
    await tty.waitFor("+1 shell output for your next message");
    expect(tty.screen()).toContain("✓ shell echo shared-output");
    tty.type("!!echo private-output");
    tty.press("Enter");
    await tty.waitFor("✓ shell echo private-output");
    tty.type("!sleep 30");
    tty.press("Enter");
    await tty.waitFor("Running a shell command");
    tty.press("Escape");
    await tty.waitFor("✗ shell sleep 30");
    tty.type("what did you see?");
    tty.press("Enter");
    await tty.waitFor("noted");
    const body = JSON.stringify(session.standin.requests.find((r) => r.method === "POST")!.body);
    expect(body).toContain("shared-output");
    expect(body).not.toContain("private-output");
    expect(body).not.toContain("sleep 30");
  });

  test("Ctrl+D deletes forward, and quits on an empty prompt", async () => {
    const session = await ready();
    session.tty.type("x");
    session.tty.press("C-d");
    await Bun.sleep(100);
    expect(session.tty.screen()).toContain("❯ x");
    session.tty.press("BSpace", "C-d");
    expect(await session.tty.exitCode()).toBe(0);
  });
});
