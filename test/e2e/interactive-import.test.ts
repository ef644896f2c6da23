// Issue 38 item 4: /resume offers the project's Claude Code sessions beside omp's own; picking one
// copies it into a new omp session that continues with its history.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeProjectDir } from "../../core/session/import-claude.ts";
import { exchange, readySessions } from "../support/tty-session.ts";
import { tempDir } from "../support/omp.ts";

setDefaultTimeout(60_000);

const ready = readySessions();

describe("/resume", () => {
  test("lists a Claude Code session of the project and continues it in omp once picked", async () => {
    const home = tempDir("omp-tty-home-");
    const cwd = tempDir("omp-tty-project-");
    const dir = claudeProjectDir(cwd, home);
    mkdirSync(dir, { recursive: true });
    // The lines Claude Code writes for a prompt and its answer (as test/e2e/import-sessions.test.ts's real run does).
    const lines = [
      { type: "queue-operation", operation: "enqueue", sessionId: "s1", content: "what do the claude notes say?" },
      { parentUuid: null, isSidechain: false, type: "user", message: { role: "user", content: "what do the claude notes say?" }, uuid: "u1", timestamp: "2026-12-07T10:00:00.000Z", cwd, sessionId: "s1" },
      { parentUuid: "u1", isSidechain: false, type: "assistant", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "They say albatross." }] }, uuid: "a1", timestamp: "2026-12-07T10:00:01.000Z", cwd, sessionId: "s1" },
    ];
    writeFileSync(join(dir, "5f0c2c1e-0000-4000-8000-000000000001.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);

    const s = await ready({ home, cwd, script: [{ text: "Continued from Claude Code." }] });
    const { tty } = s;
    tty.type("/resume");
    tty.press("Enter");
    const picker = (await tty.waitFor("Resume a session")).split("Resume a session")[1]!;
    expect(picker).toContain("what do the claude notes say?");
    expect(picker).toContain("from Claude Code");
    tty.press("Enter");
    await tty.waitFor("Resumed");
    expect(tty.screen()).toContain("They say albatross.");
    s.standin.requests.length = 0;
    await exchange(s, "and again?", "Continued from Claude Code.");
    const body = s.standin.requests.find((request) => request.method === "POST")!.body;
    expect(JSON.stringify(body)).toContain("They say albatross.");
    expect(JSON.stringify(body)).toContain("what do the claude notes say?");
  });
});
