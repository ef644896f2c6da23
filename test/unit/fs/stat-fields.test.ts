// Stat data read without a Stats object (core/fs/stat-fields.ts) is what lstat says, field for
// field: a checkpoint's scan trusts it to call a file unchanged.
import { expect, test } from "bun:test";
import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodePath, readStatFields, type StatFields } from "../../../core/fs/stat-fields.ts";
import { tempDir } from "../../support/temp.ts";

test("a file's, a folder's and a symlink's (not its target's) stat data match lstat's; nothing there is false", () => {
  const dir = tempDir("omp-stat-fields-");
  writeFileSync(join(dir, "file.txt"), "x".repeat(1234), { mode: 0o755 });
  mkdirSync(join(dir, "folder"));
  symlinkSync("file.txt", join(dir, "link"));
  const fields: StatFields = { mode: 0, ino: 0, size: 0, ctimeMs: 0, mtimeMs: 0 };
  for (const name of ["file.txt", "folder", "link"]) {
    const path = join(dir, name);
    expect(readStatFields(path, encodePath(path), fields)).toBe(true);
    const stat = lstatSync(path);
    expect([fields.mode, fields.ino, fields.size]).toEqual([stat.mode, stat.ino % 0x100000000, stat.size % 0x100000000]);
    expect(Math.abs(fields.mtimeMs - stat.mtimeMs)).toBeLessThan(0.001);
    expect(Math.abs(fields.ctimeMs - stat.ctimeMs)).toBeLessThan(0.001);
  }
  // On Linux the reader goes through statx, not lstat.
  if (process.platform === "linux") expect(encodePath(join(dir, "file.txt"))).toBeDefined();
  const missing = join(dir, "missing");
  expect(readStatFields(missing, encodePath(missing), fields)).toBe(false);
});
