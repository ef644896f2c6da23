// /rewind and /undo in the interactive mode, through a real terminal (tmux): pick an earlier
// message, see the files that go back, rewind conversation and files; /undo the last message.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exchange, readySessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const ready = readySessions();

const writes = (content: string, answer: string) => [{ toolCalls: [{ name: "write", arguments: { path: "a.txt", content } }] }, { text: answer }];

describe("/rewind and /undo", () => {
  test("/rewind to an earlier message restores the files and the conversation; /undo takes back the last message", async () => {
    const s = await ready({
      files: { "a.txt": "v0\n" },
      script: [...writes("v1\n", "wrote one"), ...writes("v2\n", "wrote two"), ...writes("v3\n", "wrote three"), ...writes("v2b\n", "wrote two again")],
    });
    const { tty } = s;
    const file = join(s.cwd, "a.txt");
    await exchange(s, "turn one", "wrote one");
    await exchange(s, "turn two", "wrote two");
    await exchange(s, "turn three", "wrote three");
    expect(readFileSync(file, "utf8")).toBe("v3\n");

    tty.type("/rewind");
    tty.press("Enter");
    await tty.waitFor("Rewind to before");
    tty.type("turn two");
    tty.press("Enter");
    const plan = await tty.waitFor("conversation and files");
    expect(plan).toContain("restore a.txt");
    expect(plan).toContain("1 file(s) restored");
    tty.press("Enter");
    await tty.waitFor("Rewound: the conversation is back before that message");
    expect(readFileSync(file, "utf8")).toBe("v1\n");
    // The message is back in the editor, to change and send again: on a new branch.
    await tty.waitFor("❯ turn two");
    tty.press("Enter");
    await tty.waitFor("wrote two again");
    await tty.waitFor((screen) => !screen.includes("esc to interrupt"));
    expect(readFileSync(file, "utf8")).toBe("v2b\n");
    const entries = s.sessionEntries();
    const users = entries.filter((e) => e.type === "message" && e.message.role === "user");
    expect(users.filter((e) => e.message.content.map?.((c: any) => c.text).join("") === "turn two" || e.message.content === "turn two")).toHaveLength(2);

    tty.type("/undo");
    tty.press("Enter");
    // The transcript is replayed from before "turn two": the undo's report comes after everything said since.
    const undone = await tty.waitFor((screen) => screen.lastIndexOf("Rewound: the conversation is back") > screen.lastIndexOf("wrote two again"));
    expect(undone.slice(undone.lastIndexOf("Resumed the point before that message"))).not.toContain("wrote two");
    expect(undone.slice(undone.lastIndexOf("Files since that message"))).toContain("restore a.txt");
    expect(readFileSync(file, "utf8")).toBe("v1\n");
    await tty.waitFor("❯ turn two");
  });

  test("/tree back to an earlier turn offers the files omp changed since: conversation and files, or the conversation only", async () => {
    const s = await ready({
      rows: 40,
      cols: 120,
      files: { "a.txt": "v0\n" },
      script: [...writes("v1\n", "wrote one"), ...writes("v2\n", "wrote two"), ...writes("v3\n", "wrote three")],
    });
    const { tty } = s;
    const file = join(s.cwd, "a.txt");
    await exchange(s, "turn one", "wrote one");
    await exchange(s, "turn two", "wrote two");
    await exchange(s, "turn three", "wrote three");
    tty.type("/tree");
    tty.press("Enter");
    await tty.waitFor("Session tree");
    tty.press("Up");
    tty.press("Enter");
    const plan = await tty.waitFor("conversation only");
    expect(plan).toContain("restore a.txt");
    // Files stay: only the conversation moves.
    tty.press("Down", "Enter");
    await tty.waitFor("Your next message starts a new branch");
    expect(readFileSync(file, "utf8")).toBe("v3\n");
    // Back again to after turn one, this time with the files: turn two's and three's writes go back.
    tty.type("/tree");
    tty.press("Enter");
    await tty.waitFor("Session tree");
    tty.press("Up");
    tty.press("Enter");
    await tty.waitFor("conversation and files");
    tty.press("Enter");
    // The report, not the picker's "1 file(s) restored" detail still on the screen.
    await tty.waitFor("Rewound: 1 file(s) restored");
    expect(readFileSync(file, "utf8")).toBe("v1\n");
  });
});
