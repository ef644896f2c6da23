// A turn's first state kept as a commit in the background (core/session/checkpoints/git-snapshot.ts's
// keepLater), on a real repository: the commit holds the private index as it was when asked for,
// whatever the index became meanwhile, and exit's settle() keeps it at once when the background git
// has not finished; nothing of the work is left in the private folder.
import { expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findRepo } from "../../../core/git/repo.ts";
import { Snapshots, snapshotRef } from "../../../core/session/checkpoints/git-snapshot.ts";
import { committedRepo } from "../../support/git-repo.ts";
import { tempDir } from "../../support/temp.ts";

function repo() {
  const { root, git } = committedRepo("omp-snapshot-keep-", { "a.txt": "a0\n" });
  const snapshots = new Snapshots(findRepo(root)!, tempDir("omp-snapshot-keep-cp-"));
  expect(snapshots.sync()).toBe(true);
  return { root, git, snapshots, ref: snapshotRef("session-1") };
}

/** What the commit under `ref` holds: path → content. */
const keptFiles = (git: (...args: string[]) => string, ref: string) =>
  Object.fromEntries(
    git("ls-tree", "-r", "--name-only", ref)
      .split("\n")
      .map((path) => [path, git("show", `${ref}:${path}`)]),
  );

test("the commit holds the index as it was when asked for, though the index moves on at once; each turn's commit on top of the last", async () => {
  const { root, git, snapshots, ref } = repo();
  writeFileSync(join(root, "b.txt"), "b0\n");
  expect(snapshots.sync()).toBe(true);
  const first = snapshots.keepLater(ref);
  // The next command's changes go into the index while git still works from its copy.
  writeFileSync(join(root, "a.txt"), "a1\n");
  writeFileSync(join(root, "c.txt"), "c\n");
  expect(snapshots.sync()).toBe(true);
  await first.done;
  expect(keptFiles(git, ref)).toEqual({ "a.txt": "a0", "b.txt": "b0" });
  const second = snapshots.keepLater(ref);
  await second.done;
  expect(keptFiles(git, ref)).toEqual({ "a.txt": "a1", "b.txt": "b0", "c.txt": "c" });
  expect(keptFiles(git, `${ref}~1`)).toEqual({ "a.txt": "a0", "b.txt": "b0" });
  expect(git("rev-list", "--count", ref)).toBe("2");
  expect(readdirSync(snapshots.dir).filter((name) => name.startsWith("index."))).toEqual([]);
});

test("settle() keeps it at once, as exit does; the background work, finishing later, changes nothing", async () => {
  const { root, git, snapshots, ref } = repo();
  const kept = snapshots.keepLater(ref);
  kept.settle();
  expect(keptFiles(git, ref)).toEqual({ "a.txt": "a0" });
  const commit = git("rev-parse", ref);
  writeFileSync(join(root, "a.txt"), "a1\n");
  expect(snapshots.sync()).toBe(true);
  await kept.done;
  expect(git("rev-parse", ref)).toBe(commit);
  expect(readdirSync(snapshots.dir).filter((name) => name.startsWith("index."))).toEqual([]);
});
