import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../../core/fs/atomic-write.ts";
import { countLines, writeTool } from "../../../core/tools/write.ts";
import { context, scratch, textOf } from "./helpers.ts";

describe("write", () => {
  test("creates a file with parent directories and reports bytes and lines", async () => {
    const dir = scratch();
    const result = await writeTool.execute({ path: "deep/er/new.txt", content: "héllo\nworld\n" }, context(dir));
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(dir, "deep/er/new.txt"), "utf8")).toBe("héllo\nworld\n");
    expect(textOf(result)).toBe("Created deep/er/new.txt (13 bytes, 2 lines).");
    expect(result.details).toMatchObject({ created: true, bytes: 13, lines: 2 });
  });

  test("overwrites, says so, and keeps the existing mode", async () => {
    const dir = scratch();
    const path = join(dir, "run.sh");
    writeFileSync(path, "old content\n");
    chmodSync(path, 0o751);
    const result = await writeTool.execute({ path: "run.sh", content: "#!/bin/sh\necho hi" }, context(dir));
    expect(textOf(result)).toBe("Overwrote run.sh (17 bytes, 2 lines; was 12 bytes).");
    expect(readFileSync(path, "utf8")).toBe("#!/bin/sh\necho hi");
    expect(statSync(path).mode & 0o7777).toBe(0o751);
  });

  test("replaces by rename: the old inode is not written in place and no temp file is left", async () => {
    const dir = scratch();
    const path = join(dir, "a.txt");
    writeFileSync(path, "before");
    const inodeBefore = statSync(path).ino;
    await writeTool.execute({ path: "a.txt", content: "after" }, context(dir));
    expect(statSync(path).ino).not.toBe(inodeBefore);
    expect(readdirSync(dir)).toEqual(["a.txt"]);
  });

  test("writes through a symlink to its target, keeping the link", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "real.txt"), "x");
    symlinkSync("real.txt", join(dir, "link.txt"));
    await writeTool.execute({ path: "link.txt", content: "via link" }, context(dir));
    expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, "link.txt"))).toBe("real.txt");
    expect(readFileSync(join(dir, "real.txt"), "utf8")).toBe("via link");
  });

  test("a directory path is an error", async () => {
    const dir = scratch();
    mkdirSync(join(dir, "sub"));
    const result = await writeTool.execute({ path: "sub", content: "x" }, context(dir));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("sub is a directory");
  });

  test("a parent that is a file is an error that says so", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "file"), "");
    const result = await writeTool.execute({ path: "file/child.txt", content: "x" }, context(dir));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("a parent of it is a file");
  });

  // Root ignores directory permissions, so the failure cannot be provoked this way.
  test.skipIf(process.getuid?.() === 0)("a failed write leaves the old file and no temp file", () => {
    const dir = scratch();
    const path = join(dir, "keep.txt");
    writeFileSync(path, "original");
    chmodSync(dir, 0o500);
    try {
      expect(() => writeFileAtomic(path, "new")).toThrow();
    } finally {
      chmodSync(dir, 0o700);
    }
    expect(readFileSync(path, "utf8")).toBe("original");
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  });

  test("new files get the umask-filtered default mode", () => {
    const dir = scratch();
    writeFileAtomic(join(dir, "fresh"), "x", { mode: "user" });
    const umask = process.umask();
    expect(statSync(join(dir, "fresh")).mode & 0o777).toBe(0o666 & ~umask);
    expect(existsSync(join(dir, "fresh"))).toBe(true);
  });

  test("state files are 0600 whatever the umask, and an existing file keeps its bits", () => {
    const dir = scratch();
    const old = process.umask(0);
    try {
      writeFileAtomic(join(dir, "state.json"), "{}");
      expect(statSync(join(dir, "state.json")).mode & 0o777).toBe(0o600);
      writeFileAtomic(join(dir, "fresh"), "x", { mode: "user" });
      chmodSync(join(dir, "fresh"), 0o640);
      writeFileAtomic(join(dir, "fresh"), "y");
      expect(statSync(join(dir, "fresh")).mode & 0o777).toBe(0o640);
    } finally {
      process.umask(old);
    }
  });

  test("countLines counts a final unterminated line", () => {
    expect(countLines("")).toBe(0);
    expect(countLines("a")).toBe(1);
    expect(countLines("a\n")).toBe(1);
    expect(countLines("a\nb")).toBe(2);
    expect(countLines("\n\n")).toBe(2);
  });
});
