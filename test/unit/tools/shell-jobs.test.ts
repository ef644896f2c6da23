// Issue 24's parts from source: the capped log, disk full, key decoding, the job tool's waits and errors.
import { afterEach, describe, expect, test } from "bun:test";
import { openSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CappedLog, LogDiskFullError } from "../../../core/shell/capped-log.ts";
import { decodeKeys } from "../../../core/shell/keys.ts";
import { type BashDetails, bashTool } from "../../../core/tools/bash.ts";
import { jobTool } from "../../../core/tools/job.ts";
import type { ToolContext } from "../../../core/tools/types.ts";
import { context, scratch, textOf } from "./helpers.ts";

describe("CappedLog", () => {
  test("past the cap it keeps the head and the last part, says how much was left out, and leaves no segment files", () => {
    const dir = scratch();
    const path = join(dir, "a.log");
    const log = new CappedLog(openSync(path, "w"), path, 1000);
    for (let i = 0; i < 1000; i++) log.write(Buffer.from(`line ${String(i).padStart(4, "0")}\n`));
    log.close();
    const text = readFileSync(path, "utf8");
    expect(log.totalBytes).toBe(10_000);
    expect(log.capped).toBe(true);
    expect(text.startsWith("line 0000\nline 0001\n")).toBe(true);
    expect(text.endsWith("line 0998\nline 0999\n")).toBe(true);
    expect(text).toMatch(/\[\.\.\. [\d.]+ KB \(\d+ bytes\) omitted: this log keeps the first and last parts of 9\.8 KB of output \(cap bash\.maxLogBytes = 1000 B\) \.\.\.\]/);
    expect(Buffer.byteLength(text)).toBeLessThan(1000 + 200);
    expect(readdirSync(dir)).toEqual(["a.log"]);
  });

  test("under the cap it is the output, unchanged", () => {
    const path = join(scratch(), "b.log");
    const log = new CappedLog(openSync(path, "w"), path, 1000);
    log.write(Buffer.from("hello\n"));
    log.close();
    expect(readFileSync(path, "utf8")).toBe("hello\n");
    expect(log.capped).toBe(false);
  });

  test("a full disk is a LogDiskFullError that names the file", () => {
    const log = new CappedLog(openSync("/dev/full", "w"), "/dev/full", 1000);
    expect(() => log.write(Buffer.from("x"))).toThrow(LogDiskFullError);
    expect(log.error).toBe("the disk holding /dev/full is full");
  });
});

test("keys: C escapes and named keys become the bytes a keyboard sends; other text is left alone", () => {
  expect(decodeKeys("ls\\r")).toBe("ls\r");
  expect(decodeKeys("\\x1b:wq\\n")).toBe("\x1b:wq\n");
  expect(decodeKeys("<up><down><c-c><C-d><enter><esc>")).toBe("\x1b[A\x1b[B\x03\x04\r\x1b");
  expect(decodeKeys("<div> a\\\\b \\u00e9")).toBe("<div> a\\b é");
  // A program in application cursor mode (vim, less) gets the arrows it asked for.
  expect(decodeKeys("<up><left>x", true)).toBe("\x1bOA\x1bODx");
});

const mounts: string[] = [];
afterEach(() => {
  for (const dir of mounts.splice(0)) Bun.spawnSync(["umount", dir]);
});

test.skipIf(process.getuid?.() !== 0)("a disk that fills up while logging ends the command with a clear result", async () => {
  const cwd = scratch();
  const artifacts = join(cwd, "full");
  Bun.spawnSync(["mkdir", "-p", artifacts]);
  // Root without CAP_SYS_ADMIN (an unprivileged container) cannot mount: nothing to fill then.
  if (Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", artifacts]).exitCode !== 0) return;
  mounts.push(artifacts);
  const started = Date.now();
  const result = await bashTool.execute({ command: "yes", timeout: 60 }, context(cwd, { artifactsDir: artifacts }));
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(result.isError).toBe(true);
  const text = textOf(result);
  expect(text).toContain("Command ended: the disk filled up while its output was being saved");
  expect(text).toContain("is full");
  expect((result.details as BashDetails).timedOut).toBe(false);
});

describe("job tool", () => {
  const ctx = (): ToolContext => context(scratch(), { jobScope: {} });

  test("a wait_for that never matches times out as an error showing what came; a job that ends stops the wait", async () => {
    const c = ctx();
    const started = await bashTool.execute({ command: "echo warming up; sleep 30", background: true }, c);
    expect(textOf(started)).toContain("Started job 1");
    const missed = await jobTool.execute({ action: "read", id: 1, wait_for: "ready on port \\d+", timeout: 1 }, c);
    expect(missed.isError).toBe(true);
    expect(textOf(missed)).toContain('wait_for "ready on port \\\\d+" not seen within 1s.');
    expect(textOf(missed)).toContain("warming up");
    await bashTool.execute({ command: "sleep 0.3; echo bye", background: true }, c);
    const t0 = Date.now();
    const ended = await jobTool.execute({ action: "read", id: 2, timeout: 20 }, c);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(textOf(ended)).toContain("bye");
    expect(textOf(ended)).toContain("exited with code 0");
    await jobTool.execute({ action: "kill", id: 1 }, c);
  });

  test("write sends to stdin; reads return only new output; bad ids and patterns say what to do", async () => {
    const c = ctx();
    await bashTool.execute({ command: "while read line; do echo got:$line; done", background: true }, c);
    const first = await jobTool.execute({ action: "write", id: 1, input: "one\\n", wait_for: "got:one" }, c);
    expect(textOf(first)).toContain("got:one");
    const second = await jobTool.execute({ action: "write", id: 1, input: "two\\n", wait_for: "got:two" }, c);
    expect(textOf(second)).toContain("got:two");
    expect(textOf(second)).not.toContain("got:one");
    const empty = await jobTool.execute({ action: "read", id: 1 }, c);
    expect(textOf(empty)).toContain("(no new output)");
    await expect(jobTool.execute({ action: "read", id: 9 }, c)).rejects.toThrow("No job 9. Jobs: 1.");
    await expect(jobTool.execute({ action: "read", id: 1, wait_for: "(" }, c)).rejects.toThrow("wait_for is not a valid regular expression");
    const killed = await jobTool.execute({ action: "kill", id: 1 }, c);
    expect(textOf(killed)).toContain("job 1 killed");
    const late = await jobTool.execute({ action: "write", id: 1, input: "x" }, c);
    expect(late.isError).toBe(true);
    expect(textOf(late)).toContain("It has ended; nothing was sent.");
  });

  test("a foreground command still running at bash.autoBackgroundSeconds becomes a job the model is told of", async () => {
    const c = { ...ctx(), shell: { autoBackgroundSeconds: 1 } };
    const t0 = Date.now();
    const result = await bashTool.execute({ command: "echo begun; sleep 2; echo finished" }, c);
    expect(Date.now() - t0).toBeLessThan(1900);
    expect(textOf(result)).toContain("begun");
    expect(textOf(result)).toContain("Still running after 1s, so it goes on in the background as job 1.");
    expect((result.details as BashDetails).jobId).toBe(1);
    const later = await jobTool.execute({ action: "read", id: 1, timeout: 10 }, c);
    expect(textOf(later)).toContain("finished");
    expect(textOf(later).split("--- new output ---")[1]).not.toContain("begun");
    expect(textOf(later)).toContain("exited with code 0");
  });
});
