// The eval tool in the interactive mode (issue 41): Esc stops a runaway Python cell and ends the
// turn, and the next prompt's eval call runs in the same kernel, which says it kept its state.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { messagesWhen, readySessions } from "../support/tty-session.ts";

setDefaultTimeout(90_000);

const ready = readySessions();

const evalCall = (code: string) => ({ toolCalls: [{ name: "eval", arguments: { cells: [{ language: "py", code, timeout: 600 }] } }] });

describe("eval in the interactive mode", () => {
  test("Esc stops a `while True: pass` cell and ends the turn; the next prompt's eval sees the kernel's state", async () => {
    const s = await ready({ script: [evalCall("z = 7\nprint('spinning', flush=True)\nwhile True: pass"), evalCall("print('after', z)"), { text: "Still here." }] });
    const { tty } = s;
    tty.type("spin");
    tty.press("Enter");
    await tty.waitFor("spinning");
    await tty.waitFor("esc to interrupt");
    const pressed = Date.now();
    tty.press("Escape");
    const screen = await tty.waitFor((screen) => !screen.includes("esc to interrupt"));
    expect(screen).toContain("✗ eval py");
    expect(screen).toContain("KeyboardInterrupt: interrupted");
    expect(screen).toContain("Cell cancelled by the user and stopped.");
    // Stopped by the key, long before the cell's 600 s timeout.
    expect(Date.now() - pressed).toBeLessThan(60_000);
    const stopped = await messagesWhen(s, 3);
    expect(stopped.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(stopped[2]!.text).toContain("Cell cancelled by the user and stopped. The kernel was interrupted and keeps its state");
    // The turn ended: the model was not asked again after the interrupt.
    expect(s.standin.requests.length).toBe(1);

    tty.type("again");
    tty.press("Enter");
    await tty.waitFor("Still here.");
    const messages = await messagesWhen(s, 7);
    expect(messages.slice(3).map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(messages[5]!.text).toBe("after 7");
  });
});
