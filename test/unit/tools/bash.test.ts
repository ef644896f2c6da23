import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BashDetails, bashTool } from "../../../core/tools/bash.ts";
import { readTool } from "../../../core/tools/read.ts";
import type { ToolContext } from "../../../core/tools/types.ts";
import { context, scratch, textOf } from "./helpers.ts";

async function run(command: string, options: { timeout?: number; cwd?: string } = {}, ctx?: ToolContext) {
  const dir = ctx?.cwd ?? scratch();
  const result = await bashTool.execute({ command, ...options }, ctx ?? context(dir));
  return { result, text: textOf(result), details: result.details as BashDetails };
}

/** Live (not zombie) processes in process group `pgid`, from /proc. */
function liveGroupMembers(pgid: number): string[] {
  const members: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") members.push(name);
  }
  return members;
}

/** A killed process leaves the table a moment after its signal; without the kill it would live 100 s. */
async function groupGone(pgid: number): Promise<void> {
  await waitFor(() => liveGroupMembers(pgid).length === 0, 1000);
}

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

/** Runs `command` (which must print `$$` first) and reports the group's members while it runs. */
async function runWatchingGroup(command: string, ctx: ToolContext, timeout?: number) {
  let output = "";
  const pending = bashTool.execute({ command, timeout }, { ...ctx, onUpdate: (text) => (output += text) });
  await waitFor(() => /^\d+\n/.test(output));
  const pgid = Number(output.split("\n")[0]);
  await waitFor(() => liveGroupMembers(pgid).filter((name) => name === "sleep").length === 2);
  return { pgid, pending };
}

describe("bash: running commands", () => {
  test("stdout and stderr are merged in order", async () => {
    const { result, text, details } = await run("for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done");
    expect(result.isError).toBeFalsy();
    expect(text).toBe("out1\nerr1\nout2\nerr2\nout3\nerr3\nout4\nerr4\nout5\nerr5");
    expect(details).toMatchObject({ exitCode: 0, timedOut: false, aborted: false, truncated: false, totalLines: 10 });
  });

  test("a non-zero exit is an error result that keeps the output and the code", async () => {
    const { result, text, details } = await run("echo partial; exit 3");
    expect(result.isError).toBe(true);
    expect(text).toBe("partial\n\nCommand exited with code 3.");
    expect(details.exitCode).toBe(3);
  });

  test("no output and death by signal are reported", async () => {
    expect((await run("true")).text).toBe("(no output)");
    const killed = await run("kill -KILL $$");
    expect(killed.result.isError).toBe(true);
    expect(killed.text).toContain("Command was killed by signal SIGKILL.");
    expect(killed.details.signal).toBe("SIGKILL");
  });

  test("runs in the session cwd, or cwd relative to it", async () => {
    const dir = scratch();
    mkdirSync(join(dir, "sub"));
    expect((await run("pwd", {}, context(dir))).text).toBe(dir);
    expect((await run("pwd", { cwd: "sub" }, context(dir))).text).toBe(join(dir, "sub"));
    expect((await run("pwd", { cwd: dir }, context("/"))).text).toBe(dir);
  });

  test("a missing or non-directory cwd is an error without running anything", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "file"), "");
    const missing = await run("touch ran", { cwd: "nope" }, context(dir));
    expect(missing.result.isError).toBe(true);
    expect(missing.text).toBe("Working directory does not exist: nope");
    const file = await run("touch ran", { cwd: "file" }, context(dir));
    expect(file.text).toBe("Working directory is not a directory: file");
    expect(existsSync(join(dir, "ran"))).toBe(false);
  });

  test("the environment is marked and non-interactive", async () => {
    const { text } = await run('echo "$OMP|$PAGER|$GIT_PAGER|$GIT_TERMINAL_PROMPT|$TERM"');
    expect(text).toBe("1|cat|cat|0|dumb");
  });

  test("stdin is closed: readers get EOF instead of hanging", async () => {
    const started = Date.now();
    const { text } = await run('cat; read line; echo "read=$?"', { timeout: 10 });
    expect(text).toBe("read=1");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test("onUpdate streams output while the command runs", async () => {
    const updates: string[] = [];
    let finished = false;
    const pending = bashTool
      .execute({ command: "echo first; sleep 0.5; echo second" }, { ...context(scratch()), onUpdate: (t) => updates.push(t) })
      .then((r) => {
        finished = true;
        return r;
      });
    await waitFor(() => updates.join("").includes("first"));
    expect(finished).toBe(false);
    const result = await pending;
    expect(updates.join("")).toBe("first\nsecond\n");
    expect(textOf(result)).toBe("first\nsecond");
  });

  // Issue 24: nothing a call started outlives it; background: true is how a server keeps running.
  test("processes left running when bash exits are ended with the call, and it says so", async () => {
    const started = Date.now();
    const { result, text } = await run("sleep 30 & echo bg=$!");
    const pid = Number(/bg=(\d+)/.exec(text)![1]);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.isError).toBeFalsy();
    expect(text).toContain("they were ended with it");
    await waitFor(() => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z"), 2000);
  });
});

describe("bash: timeouts and aborts kill the process group", () => {
  test("a timeout kills the shell and every background child", async () => {
    const ctx = context(scratch());
    const { pgid, pending } = await runWatchingGroup("echo $$; sleep 100 & sleep 100; wait", ctx, 1);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Command timed out after 1s; it and every process it started were killed.");
    expect((result.details as BashDetails).timedOut).toBe(true);
    await groupGone(pgid);
  }, 20_000);

  test("processes that ignore SIGTERM get SIGKILL after the grace period", async () => {
    const ctx = context(scratch());
    const started = Date.now();
    const { pgid, pending } = await runWatchingGroup("echo $$; trap '' TERM; sleep 100 & sleep 100; wait", ctx, 1);
    const result = await pending;
    expect((result.details as BashDetails).timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(8000);
    await groupGone(pgid);
  }, 20_000);

  test("aborting the signal kills the group and says so", async () => {
    const controller = new AbortController();
    const ctx = context(scratch(), { signal: controller.signal });
    const started = Date.now();
    const { pgid, pending } = await runWatchingGroup("echo $$; sleep 100 & sleep 100; wait", ctx);
    controller.abort();
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Command aborted");
    expect((result.details as BashDetails).aborted).toBe(true);
    await groupGone(pgid);
  }, 20_000);

  test("an already aborted signal runs nothing", async () => {
    const dir = scratch();
    const controller = new AbortController();
    controller.abort();
    const { result } = await run("touch ran", {}, context(dir, { signal: controller.signal }));
    expect(result.isError).toBe(true);
    expect(existsSync(join(dir, "ran"))).toBe(false);
  });
});

describe("bash: long output", () => {
  test("keeps the first 200 and last 400 lines and saves everything to a readable log", async () => {
    const dir = scratch();
    const ctx = context(dir);
    const { result, text, details } = await run("seq 1 100000", {}, ctx);
    expect(result.isError).toBeFalsy();
    const lines = text.split("\n");
    expect(lines.slice(0, 200)).toEqual(Array.from({ length: 200 }, (_, i) => String(i + 1)));
    expect(lines.slice(-400)).toEqual(Array.from({ length: 400 }, (_, i) => String(99_601 + i)));
    expect(lines).toHaveLength(601);
    const marker = lines[200]!;
    const logPath = join(ctx.artifactsDir, "bash-1.log");
    expect(marker).toBe(`[... 99400 lines omitted from the middle; the full output (100000 lines, 575 KB) is saved in ${logPath}; read or grep that file to see the rest ...]`);
    expect(details).toMatchObject({ truncated: true, logPath, totalLines: 100_000, totalBytes: 588_895 });
    expect(readFileSync(logPath, "utf8")).toBe(Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join(""));
    const page = textOf(await readTool.execute({ path: logPath, offset: 50_000, limit: 1 }, ctx));
    expect(page).toStartWith("50000\t50000\n");
  });

  test("a few huge lines are cut by size, head and tail kept", async () => {
    const dir = scratch();
    const ctx = context(dir);
    const { text, details } = await run("printf 'A%.0s' $(seq 1 50000); echo; printf 'Z%.0s' $(seq 1 50000); echo", {}, ctx);
    expect(details.truncated).toBe(true);
    expect(text.length).toBeLessThan(31_000);
    // Booleans: a failure message must not print 30 KB of letters.
    expect(text.startsWith(`${"A".repeat(10_000)}\n[...`)).toBe(true);
    expect(text.endsWith(`...]\n${"Z".repeat(20_000)}`)).toBe(true);
    expect(readFileSync(details.logPath!, "utf8") === `${"A".repeat(50_000)}\n${"Z".repeat(50_000)}\n`).toBe(true);
  });

  test("each truncated run gets its own log file", async () => {
    const ctx = context(scratch());
    const first = await run("seq 1 5000", {}, ctx);
    const second = await run("seq 1 6000", {}, ctx);
    expect(first.details.logPath).toBe(join(ctx.artifactsDir, "bash-1.log"));
    expect(second.details.logPath).toBe(join(ctx.artifactsDir, "bash-2.log"));
    expect(readFileSync(second.details.logPath!, "utf8").split("\n")).toHaveLength(6001);
  });

  test("short output creates no log", async () => {
    const ctx = context(scratch());
    const { details } = await run("seq 1 600", {}, ctx);
    expect(details.truncated).toBe(false);
    expect(existsSync(ctx.artifactsDir)).toBe(false);
  });

  test("when the log cannot be written the output is still cut and the reason given", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "not-a-dir"), "");
    const ctx = context(dir, { artifactsDir: join(dir, "not-a-dir", "artifacts") });
    const { result, text, details } = await run("seq 1 5000", {}, ctx);
    expect(result.isError).toBeFalsy();
    expect(details.truncated).toBe(true);
    expect(details.logPath).toBeUndefined();
    expect(text).toContain("the full output could not be saved (");
  });
});
