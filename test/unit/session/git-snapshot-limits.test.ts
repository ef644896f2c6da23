import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { findRepo } from "../../../core/git/repo.ts";
import { Snapshots } from "../../../core/session/checkpoints/git-snapshot.ts";
import { tempDir } from "../../support/temp.ts";

test("a blob past the snapshot's per-file limit is never read into memory: left out (not restorable), small ones read", () => {
  const root = tempDir("omp-snapshot-limits-");
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root, env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: "1" } }).stdout.toString().trim();
  git("init", "-q");
  writeFileSync(join(root, "small.txt"), "small\n");
  writeFileSync(join(root, "huge.bin"), Buffer.alloc(51 * 1024 * 1024, 7));
  const small = git("hash-object", "-w", "small.txt");
  const huge = git("hash-object", "-w", "huge.bin");
  const snapshots = new Snapshots(findRepo(root)!, tempDir("omp-snapshot-dir-"));
  snapshots.tree();
  const before = process.memoryUsage().rss;
  const found = snapshots.contents([small, huge]);
  expect(found.get(small)?.toString()).toBe("small\n");
  expect(found.has(huge)).toBe(false);
  // Not even passed through: reading it would have grown this process by its 51 MB.
  expect(process.memoryUsage().rss - before).toBeLessThan(40 * 1024 * 1024);
});
