// A stream rule firing in the interactive mode (tmux): the cut reply ends without an
// "Interrupted" mark, "Injecting rule" names the rule, and the answer asked again follows.
import { expect, setDefaultTimeout, test } from "bun:test";
import { READY, messagesWhen, testSessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const { ready, start } = testSessions();

test("the terminal shows which rule fired and the answer given after it, never the cut rest", async () => {
  const session = await ready({
    args: ["--trust"],
    files: { ".omp/rules/no-forbidden.md": "---\ncondition: 'FORBIDDEN_API\\('\n---\nNever call FORBIDDEN_API; call SAFE_API instead.\n" },
    script: [{ text: "Let me call FORBIDDEN_API(x) now and TAIL_NEVER_SHOWN afterwards.", eventDelayMs: 150 }, { text: "Calling SAFE_API instead." }],
  });
  const { tty } = session;
  tty.type("do it");
  tty.press("Enter");
  const screen = await tty.waitFor("Calling SAFE_API instead.");
  expect(screen).toContain("Injecting rule: no-forbidden");
  expect(screen).not.toContain("TAIL_NEVER_SHOWN");
  expect(screen).not.toContain("Interrupted");
  expect(screen).not.toContain("system-interrupt");
  const messages = await messagesWhen(session, 3);
  expect(messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
  expect(messages[2]!.text).toBe("Calling SAFE_API instead.");
});

test("a project whose only trust-bound files are rules is asked about; answered yes, its rule fires", async () => {
  const session = await start({
    files: { ".omp/rules/no-forbidden.md": "---\ncondition: 'FORBIDDEN_API\\('\n---\nNever call FORBIDDEN_API; call SAFE_API instead.\n" },
    script: [{ text: "Let me call FORBIDDEN_API(x) now and TAIL_NEVER_SHOWN afterwards.", eventDelayMs: 150 }, { text: "Calling SAFE_API instead." }],
  });
  const { tty } = session;
  const question = await tty.waitFor(/Trust .*\? \[y\/n\]/);
  expect(question).toContain("rules in");
  expect(question).toContain(".omp/rules");
  tty.type("y");
  tty.press("Enter");
  await tty.waitFor(READY);
  tty.type("do it");
  tty.press("Enter");
  const screen = await tty.waitFor("Calling SAFE_API instead.");
  expect(screen).toContain("Injecting rule: no-forbidden");
});
