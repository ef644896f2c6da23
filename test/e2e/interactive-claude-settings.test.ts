// Claude Code's ~/.claude/settings.json in the interactive mode (tmux): a hook's systemMessage is
// shown to the user as a notice, and a deny rule holds under yolo with the reason on screen.
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/temp.ts";
import { READY, testSessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const { start, ready } = testSessions();

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

test("the trust question names a project's .claude/settings.json hooks; trusting runs them", async () => {
  const cwd = tempDir("omp-tty-project-");
  const ran = join(cwd, "claude-hook-ran");
  const files = { ".claude/settings.json": JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${ran}` }] }] }, permissions: { allow: ["Bash(ls:*)"] } }) };
  const s = await start({ cwd, files, script: [{ text: "Trusted and hooked." }] });
  const question = await s.tty.waitFor(/Trust .*\? \[y\/n\]/);
  expect(question).toContain(".claude/settings.json: hooks, allow rules");
  s.tty.type("y");
  s.tty.press("Enter");
  await s.tty.waitFor(READY);
  s.tty.type("go");
  s.tty.press("Enter");
  await s.tty.waitFor("Trusted and hooked.");
  expect(existsSync(ran)).toBe(true);
});
