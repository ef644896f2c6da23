// A command's checkpoint (core/session/checkpoints/commands.ts) on real git repositories: a turn's
// first command looks at the work tree with git in the background, and what starts meanwhile
// (another command, a file tool's write) neither loses a change nor gets another's.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { aroundCommand } from "../../../core/session/checkpoints/commands.ts";
import { noteChange } from "../../../core/session/checkpoints/epoch.ts";
import { readRecords } from "../../../core/session/checkpoints/journal.ts";
import { checkpointDir } from "../../../core/session/checkpoints/store.ts";
import { committedRepo } from "../../support/git-repo.ts";
import { tempDir } from "../../support/temp.ts";

function session(files: Record<string, string>) {
  const { root } = committedRepo("omp-command-checkpoints-", files);
  const path = join(tempDir("omp-command-checkpoints-session-"), "s.jsonl");
  writeFileSync(path, "");
  const target = (turn: string) => ({ session: path, cwd: root, sessionId: `s-${turn}`, entryId: "e1", turn, maxBytes: 64 * 1024 * 1024 });
  /** What each recorded command changed, by its name: path (relative) → the content before ("absent": none). */
  const recorded = () => {
    if (process.env.GL2_DEBUG) console.log(JSON.stringify(readRecords(checkpointDir(path)).map((r) => [r.kind, (r as { toolCallId?: string }).toolCallId, (r as { what?: string }).what, (r as { why?: string }).why, (r as { path?: string }).path])));
    const byCommand: Record<string, Record<string, string>> = {};
    for (const record of readRecords(checkpointDir(path))) {
      if (record.kind !== "file" || record.source !== "bash") continue;
      const before = record.before === "absent" ? "absent" : Buffer.from(record.content ?? "", "base64").toString();
      (byCommand[record.toolCallId ?? "?"] ??= {})[record.path.slice(root.length + 1)] = before;
    }
    return byCommand;
  };
  const write = (name: string, content: string) => writeFileSync(join(root, name), content);
  return { root, target, recorded, write };
}

describe("a command's checkpoint", () => {
  test("a turn's first command, and one started while git looks for it, each record only their own change with what the file held before", async () => {
    const { target, recorded, write, root } = session({ "a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n" });
    // The user's own edit before the turn is the state before, not a change of the command.
    write("c.txt", "c-user\n");
    const turn = target("t1");
    const first = aroundCommand(turn, root, "first", "first", async () => write("a.txt", "a1\n"));
    const second = aroundCommand(turn, root, "second", "second", async () => write("b.txt", "b1\n"));
    await Promise.all([first, second]);
    const third = await aroundCommand(turn, root, "third", "third", async () => {
      write("c.txt", "c1\n");
      return "done";
    });
    expect(third).toBe("done");
    const byCommand = recorded(); 
    expect(byCommand.first).toEqual({ "a.txt": "a0\n" });
    expect(byCommand.second).toEqual({ "b.txt": "b0\n" });
    expect(byCommand.third).toEqual({ "c.txt": "c-user\n" });
    expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("c1\n");
  });

  test("a file tool's write while git looks for the turn's first command is not taken for the command's change", async () => {
    const { target, recorded, write, root } = session({ "a.txt": "a0\n", "tool.txt": "t0\n" });
    const command = aroundCommand(target("t2"), root, "command", "command", async () => write("a.txt", "a1\n"));
    // As record.ts's beginWrites does before a write: the command has not begun yet.
    noteChange();
    write("tool.txt", "t1\n");
    await command;
    expect(recorded().command).toEqual({ "a.txt": "a0\n" });
  });
});
