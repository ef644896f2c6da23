// Hooks in the interactive mode (tmux): a PreToolUse hook's "ask" brings up the approval prompt
// even under yolo, with a Notification hook told about it; SessionStart context reaches the model;
// a bad hooks block and a failing hook are shown as notices, not written over the screen.
import { expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/temp.ts";
import { READY, testSessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const { start, ready } = testSessions();

test("a PreToolUse ask opens the approval prompt and a Notification hook hears of it; hook problems are notices", async () => {
  const home = tempDir("omp-tty-home-");
  const notified = join(home, "notified.json");
  const ask = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "network access" } });
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(
    join(home, ".omp", "agent", "config.yml"),
    JSON.stringify({
      hooks: {
        SessionStart: [{ hooks: [{ type: "command", command: "echo 'house rule: be brief'" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `printf '%s' '${ask}'` }] }],
        Notification: [{ hooks: [{ type: "command", command: `cat > ${notified}` }] }],
        UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo flaky-hook >&2; exit 1" }] }],
        Bogus: [],
      },
    }),
  );
  const s = await ready({
    home,
    args: ["--approval-mode", "yolo"],
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo asked-run" } }] }, { text: "Finished." }],
  });
  await s.tty.waitFor('unknown hook event "Bogus"');
  s.tty.type("go");
  s.tty.press("Enter");
  await s.tty.waitFor("exited 1: flaky-hook");
  await s.tty.waitFor("Allow bash? echo asked-run");
  s.tty.press("y");
  await s.tty.waitFor("Finished.");
  expect(s.tty.screen()).toContain("asked-run");
  const notification = JSON.parse(readFileSync(notified, "utf8"));
  expect(notification).toMatchObject({ hook_event_name: "Notification", message: "omp needs your permission to use bash: echo asked-run (a hook asks: network access)" });
  const first = s.standin.requests.find((r) => r.method === "POST")!.body;
  expect(JSON.stringify(first.messages[0])).toContain("house rule: be brief");
});

test("the trust question names project hooks and extensions; trusting runs them", async () => {
  const cwd = tempDir("omp-tty-project-");
  const ran = join(cwd, "hook-ran");
  const files = {
    ".omp/config.yml": JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${ran}` }] }] } }),
    ".omp/extensions/tool.js": 'export default (api) => api.registerTool({ name: "project_tool", description: "p", parameters: { type: "object" }, execute: () => "p" });',
  };
  const s = await start({ cwd, files, script: [{ text: "Trusted and running." }] });
  const question = await s.tty.waitFor(/Trust .*\? \[y\/n\]/);
  expect(question).toContain(".omp/config.yml: hooks");
  expect(question).toContain("extensions in .omp/extensions");
  s.tty.type("y");
  s.tty.press("Enter");
  await s.tty.waitFor(READY);
  s.tty.type("go");
  s.tty.press("Enter");
  await s.tty.waitFor("Trusted and running.");
  const first = s.standin.requests.find((r) => r.method === "POST")!.body;
  expect(first.tools.map((tool: any) => tool.name)).toContain("project_tool");
  expect(readFileSync(ran, "utf8")).toBe("");
});
