// One entry for every front end (issue 37): an `@file` mention, a custom command file, a skill
// and a follow-up queued while the agent works reach the model the same way from print, json,
// rpc, the terminal (tmux) and ACP, because every mode sends them through SessionHost.submit;
// the user's own shell command (rpc bash, `!cmd`) goes with the next message in both.
// Each test asserts on what the provider stand-in received.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AcpClient } from "../support/acp-client.ts";
import { agentTestFile, modelRequests, runAgent, userTextsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import type { Standin } from "../support/standin/index.ts";
import { startInteractive } from "../support/tty-session.ts";

setDefaultTimeout(90_000);

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = (url = standin.url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

const NOTE = "NOTE-LINE: the release is on Friday.";
// Not at the end: the terminal's @ completion would take the Enter.
const MENTION = "summarize @notes.txt now";
const COMMAND = "/shout loud words";
const SKILL = "/skill:probe the logs";
/** The first run waits in this bash call until the test lets it go (`go` appears), so a follow-up is sent while it works. */
const WAIT = "while [ ! -e go ]; do sleep 0.05; done; echo went";
const FOLLOW_UP = "later @notes.txt too";
/** The user's own shell command (rpc bash, `!cmd` in the terminal), and the message after it. */
const SHELL = "echo SHELL-OUT-$((6*7))";
const AFTER_SHELL = "what did it print?";

/** What the model must see for each message, whichever front end sent it. */
const EXPECTED = {
  mention: `${MENTION}\n<file path="notes.txt">\n${NOTE}\n\n</file>`,
  command: "SHOUT-BODY: loud words!",
  skill: /PROBE-BODY: look closely\.[\s\S]*the logs$/,
  followUp: `${FOLLOW_UP}\n<file path="notes.txt">\n${NOTE}\n\n</file>`,
  shell: `${AFTER_SHELL}\nThe user ran a shell command:\n<shell command=${JSON.stringify(SHELL)}>\nSHELL-OUT-42\n</shell>`,
};

function put(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A home with a command file and a skill of the user's, and a project with a file to mention. */
function setUp(): { home: string; repo: string } {
  const { home, repo } = workspace();
  put(home, {
    ".omp/agent/commands/shout.md": "---\ndescription: shout it\n---\nSHOUT-BODY: $ARGUMENTS!\n",
    ".omp/agent/skills/probe/SKILL.md": "---\nname: probe\ndescription: Probe something closely\n---\nPROBE-BODY: look closely.\n",
  });
  put(repo, { "notes.txt": `${NOTE}\n` });
  return { home, repo };
}

/** The newest user message of the stand-in's last request. */
function lastUserText(from: Standin): string {
  const requests = modelRequests(from);
  return userTextsOf("anthropic-messages", requests.at(-1)!.body).at(-1)!;
}

function expectExpanded(seen: { mention: string; command: string; skill: string }): void {
  expect(seen.mention).toBe(EXPECTED.mention);
  expect(seen.command).toBe(EXPECTED.command);
  expect(seen.skill).toMatch(EXPECTED.skill);
}

describe("every front end sends messages through the session host", () => {
  for (const mode of ["print", "json"] as const) {
    test(`${mode}: an @file mention attaches the file; a command file and a skill send their prompts`, async () => {
      const { home, repo } = setUp();
      const seen: Record<string, string> = {};
      for (const [name, message] of [["mention", MENTION], ["command", COMMAND], ["skill", SKILL]] as const) {
        standin.setScript([{ text: "ok" }]);
        const result = await runAgent(["-p", ...(mode === "json" ? ["--mode", "json"] : []), "--model", MODEL, message], { home, cwd: repo, env: env() });
        expect(result.code).toBe(0);
        seen[name] = lastUserText(standin);
      }
      expectExpanded(seen as { mention: string; command: string; skill: string });
    });
  }

  test("rpc: the same three, and a follow_up sent while the agent works is queued, expanded, and sent after the reply", async () => {
    const { home, repo } = setUp();
    const rpc = new RpcProcess(["--model", MODEL], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const seen: Record<string, string> = {};
      for (const [name, message] of [["mention", MENTION], ["command", COMMAND], ["skill", SKILL]] as const) {
        standin.setScript([{ text: "ok" }]);
        await rpc.turn(message);
        seen[name] = lastUserText(standin);
      }
      expectExpanded(seen as { mention: string; command: string; skill: string });

      standin.setScript([{ toolCalls: [{ name: "bash", arguments: { command: WAIT } }] }, { text: "first done" }, { text: "followed" }]);
      const mark = rpc.mark;
      expect((await rpc.send({ type: "prompt", message: "start" })).success).toBe(true);
      await rpc.waitFrame((f) => f.type === "tool_execution_start", mark);
      const queued = await rpc.send({ type: "follow_up", message: FOLLOW_UP });
      expect(queued.success).toBe(true);
      expect((await rpc.send({ type: "get_state" })).data).toMatchObject({ isStreaming: true, queuedMessageCount: 1 });
      writeFileSync(join(repo, "go"), "");
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      expect(lastUserText(standin)).toBe(EXPECTED.followUp);
      // One run: the follow-up was taken after the reply, not sent as a run of its own.
      expect(rpc.frames.slice(mark).filter((f) => f.type === "agent_start")).toHaveLength(1);
      expect(userTextsOf("anthropic-messages", modelRequests(standin).at(-1)!.body).slice(-2)).toEqual(["start", EXPECTED.followUp]);

      // bash: its output goes to the model with the next message, as `!cmd` does in the terminal.
      expect((await rpc.send({ type: "bash", command: SHELL })).data.output).toContain("SHELL-OUT-42");
      standin.setScript([{ text: "ok" }]);
      await rpc.turn(AFTER_SHELL);
      expect(lastUserText(standin)).toBe(EXPECTED.shell);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });

  test("ACP: the same three through session/prompt", async () => {
    const { home, repo } = setUp();
    const c = new AcpClient({ home, cwd: repo, env: env(), args: ["acp", "--model", MODEL], editor: true });
    try {
      await c.initialize();
      const { sessionId } = await c.newSession(repo);
      const seen: Record<string, string> = {};
      for (const [name, message] of [["mention", MENTION], ["command", COMMAND], ["skill", SKILL]] as const) {
        standin.setScript([{ text: "ok" }]);
        expect((await c.prompt(sessionId, message)).stopReason).toBe("end_turn");
        seen[name] = lastUserText(standin);
      }
      expectExpanded(seen as { mention: string; command: string; skill: string });
    } finally {
      await c.close();
    }
  });

  test("interactive (tmux): the same three, and Alt+Enter while the agent works queues a follow-up, expanded and sent after the reply", async () => {
    const { home, repo } = setUp();
    const session = await startInteractive({
      home,
      cwd: repo,
      script: [{ text: "ok" }, { text: "ok" }, { text: "ok" }, { toolCalls: [{ name: "bash", arguments: { command: WAIT } }] }, { text: "first done" }, { text: "followed" }, { text: "printed" }],
    });
    const { tty } = session;
    try {
      await tty.waitFor("Ask anything");
      const seen: Record<string, string> = {};
      for (const [name, message] of [["mention", MENTION], ["command", COMMAND], ["skill", SKILL]] as const) {
        const before = modelRequests(session.standin).length;
        tty.type(message);
        await tty.waitFor(`❯ ${message}`);
        tty.press("Enter");
        await tty.waitFor(() => modelRequests(session.standin).length > before && !tty.screen().includes("esc to interrupt"));
        seen[name] = lastUserText(session.standin);
      }
      expectExpanded(seen as { mention: string; command: string; skill: string });

      tty.type("start");
      tty.press("Enter");
      await tty.waitFor("while [ ! -e go ]");
      tty.type(FOLLOW_UP);
      await tty.waitFor(`❯ ${FOLLOW_UP}`);
      tty.press("M-Enter");
      await tty.waitFor(`queued follow-up: ${FOLLOW_UP}`);
      writeFileSync(join(repo, "go"), "");
      await tty.waitFor("followed");
      expect(existsSync(join(repo, "go"))).toBe(true);
      expect(userTextsOf("anthropic-messages", modelRequests(session.standin).at(-1)!.body).slice(-2)).toEqual(["start", EXPECTED.followUp]);

      tty.type(`!${SHELL}`);
      tty.press("Enter");
      await tty.waitFor("SHELL-OUT-42");
      await tty.waitFor((screen) => !screen.includes("Running a shell command"));
      tty.type(AFTER_SHELL);
      tty.press("Enter");
      await tty.waitFor("printed");
      expect(lastUserText(session.standin)).toBe(EXPECTED.shell);
    } finally {
      await session.close();
    }
  });
});
