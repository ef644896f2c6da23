// Claude Code's ~/.claude/settings.json in the interactive mode (tmux): a hook's systemMessage is
// shown to the user as a notice, and a deny rule holds under yolo with the reason on screen.
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/temp.ts";
import { testSessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const { ready } = testSessions();

test("a PreToolUse hook's systemMessage is a notice; a deny rule refuses the call under yolo", async () => {
  const home = tempDir("omp-tty-home-");
  const warn = JSON.stringify({ systemMessage: "lint-warning: prefer rg over grep" });
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(
    join(home, ".claude", "settings.json"),
    JSON.stringify({
      permissions: { deny: ["Bash(rm:*)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `printf '%s' '${warn}'` }] }] },
    }),
  );
  const s = await ready({
    home,
    args: ["--approval-mode", "yolo"],
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch kept.txt && rm -f other.txt" } }] }, { text: "Finished." }],
  });
  s.tty.type("go");
  s.tty.press("Enter");
  await s.tty.waitFor("lint-warning: prefer rg over grep");
  await s.tty.waitFor("Finished.");
  expect(s.tty.screen()).toContain("Bash(rm:*)");
  expect(existsSync(join(s.cwd, "kept.txt"))).toBe(false);
});
