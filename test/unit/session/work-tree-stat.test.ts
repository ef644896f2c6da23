// The in-process change detection a command's checkpoint uses (core/session/checkpoints/work-tree-stat.ts),
// on real git repositories: every kind of change is found from stat data, and git is started only to
// ask about names never seen before.
import { describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findRepo } from "../../../core/git/repo.ts";
import { Snapshots } from "../../../core/session/checkpoints/git-snapshot.ts";
import { type Change, WorkTreeStat } from "../../../core/session/checkpoints/work-tree-stat.ts";
import { committedRepo } from "../../support/git-repo.ts";
import { tempDir } from "../../support/temp.ts";

function repo(files: Record<string, string>) {
  const { root, git } = committedRepo("omp-work-tree-stat-", files);
  const snapshots = new Snapshots(findRepo(root)!, tempDir("omp-work-tree-stat-cp-"));
  expect(snapshots.sync()).toBe(true);
  /** Every question put to git, for the tests that say none was. */
  const asked: string[][] = [];
  const ignoredOf = (paths: readonly string[]) => {
    asked.push([...paths]);
    return snapshots.ignored(paths);
  };
  const picture = WorkTreeStat.load(root, snapshots.index, snapshots.hashBytes(), ignoredOf)!;
  expect(picture).toBeDefined();
  asked.length = 0;
  const scan = () => {
    const changes = picture.scan(ignoredOf);
    expect(changes).toBeDefined();
    return Object.fromEntries(changes!.map((change: Change) => [change.path, before(change)]));
  };
  /** The same scan, from stat data a worker thread looked at first (what a command's deferred recording uses). */
  const prefetchedScan = async () => {
    const prefetch = picture.prefetch();
    expect(prefetch).toBeDefined();
    await prefetch!.ready;
    expect(prefetch!.changed).toBeDefined();
    const changes = picture.scan(ignoredOf, prefetch);
    expect(changes).toBeDefined();
    return { moved: prefetch!.changed!.length, changes: Object.fromEntries(changes!.map((change: Change) => [change.path, before(change)])) };
  };
  const before = ({ before }: Change) => (before === "absent" ? "absent" : "oid" in before ? snapshots.contents([before.oid]).get(before.oid)!.toString() : before.content.toString());
  return { root, git, snapshots, picture, scan, prefetchedScan, ignoredOf, asked, write: (name: string, content: string) => writeFileSync(join(root, name), content) };
}

describe("what a command changed, from stat data", () => {
  test("an edit, a deletion, a new file in a new folder: each found with what it held before; nothing changed, nothing found, and git not started", () => {
    const r = repo({ "a.txt": "a0\n", "b.txt": "b0\n", "src/c.txt": "c0\n" });
    expect(r.scan()).toEqual({});
    r.write("a.txt", "a1 longer\n");
    rmSync(join(r.root, "b.txt"));
    mkdirSync(join(r.root, "new", "deeper"), { recursive: true });
    r.write("new/deeper/n.txt", "n\n");
    expect(r.scan()).toEqual({ "a.txt": "a0\n", "b.txt": "b0\n", "new/deeper/n.txt": "absent" });
    // The new names were put to git: the new folder, then all it holds; nothing after that.
    expect(r.asked).toEqual([["new"], ["new/deeper", "new/deeper/n.txt"]]);
    expect(r.scan()).toEqual({});
    // What a command left is the next one's "before": read bytes for the changed, nothing for the gone.
    r.write("a.txt", "a2\n");
    r.write("b.txt", "b again\n");
    r.write("new/deeper/n.txt", "n2\n");
    expect(r.scan()).toEqual({ "a.txt": "a1 longer\n", "b.txt": "absent", "new/deeper/n.txt": "n\n" });
    expect(r.asked).toHaveLength(2);
  });

  test("stat data looked at on a worker thread finds the same changes, only the files and folders that moved come back to the JS thread, and a look made before the picture changed is not used", async () => {
    const r = repo({ "a.txt": "a0\n", "b.txt": "b0\n", "src/c.txt": "c0\n", "src/d.txt": "d0\n" });
    // Just written, every file and folder (the root, src) is racy, unless setting up took longer
    // than the racy window (a loaded machine): looked at closer, found unchanged.
    expect((await r.prefetchedScan()).changes).toEqual({});
    // The clock has to move past the racy window (RACY_MS) for stat data alone to be trusted.
    await Bun.sleep(100);
    expect((await r.prefetchedScan()).changes).toEqual({});
    expect(await r.prefetchedScan()).toEqual({ moved: 0, changes: {} });
    r.write("a.txt", "a1 longer\n");
    rmSync(join(r.root, "b.txt"));
    mkdirSync(join(r.root, "new"), { recursive: true });
    r.write("new/n.txt", "n\n");
    const first = await r.prefetchedScan();
    expect(first.changes).toEqual({ "a.txt": "a0\n", "b.txt": "b0\n", "new/n.txt": "absent" });
    // a.txt, b.txt and the root, whose entries changed; src did not move.
    expect(first.moved).toBe(3);
    // Changed again within the racy window: looked at again until a later look finds it settled.
    r.write("a.txt", "a2 longer\n");
    expect((await r.prefetchedScan()).changes).toEqual({ "a.txt": "a1 longer\n" });
    // A look taken, then the picture moved on without it: the stale look is left aside, nothing missed.
    const stale = r.picture.prefetch()!;
    await stale.ready;
    r.write("src/c.txt", "c1\n");
    expect(r.scan()).toEqual({ "src/c.txt": "c0\n" });
    r.write("src/d.txt", "d1\n");
    expect(r.picture.scan(r.ignoredOf, stale)!.map((change) => change.path)).toEqual(["src/d.txt"]);
  });

  test("a file whose stat data is as recorded but whose content is not is read when it changed within a second of the look (a same-size rewrite in the same tick of the file clock), and only then", () => {
    for (const racy of [true, false]) {
      const r = repo({ "a.txt": "aaaa\n", "b.txt": "b\n" });
      // What a same-size rewrite in the tick the index was written would leave: the stat data git
      // recorded for a.txt, with another content behind it.
      const index = readFileSync(r.snapshots.index);
      const was = Buffer.from(r.git("rev-parse", ":a.txt"), "hex");
      writeFileSync(join(r.root, "c.txt"), "bbbb\n");
      const now = Buffer.from(r.git("hash-object", "-w", "c.txt"), "hex");
      rmSync(join(r.root, "c.txt"));
      index.set(now, index.indexOf(was));
      writeFileSync(r.snapshots.index, index);
      // Written in the tick a.txt changed, the index cannot tell a later same-size rewrite; written
      // long after, its stat data is to be trusted as git trusts it.
      const changed = lstatSync(join(r.root, "a.txt")).ctime;
      const written = racy ? changed : new Date(changed.getTime() + 3_600_000);
      utimesSync(r.snapshots.index, written, written);
      const picture = WorkTreeStat.load(r.root, r.snapshots.index, 20, (paths) => r.snapshots.ignored(paths))!;
      const changes = picture.scan((paths) => r.snapshots.ignored(paths))!;
      expect(changes.map((change) => change.path)).toEqual(racy ? ["a.txt"] : []);
      // Read again, it is as the last look left it: nothing found.
      expect(picture.scan((paths) => r.snapshots.ignored(paths))).toEqual([]);
    }
  });

  test("ignored files and folders are left out and asked about once; a new file in an existing folder, a renamed one and a symlink are found", () => {
    const r = repo({ ".gitignore": "build/\n*.log\n", "src/a.txt": "a\n", "run.sh": "#!/bin/sh\n" });
    mkdirSync(join(r.root, "build", "out"), { recursive: true });
    r.write("build/out/x.js", "x\n");
    r.write("debug.log", "log\n");
    r.write("src/new.txt", "new\n");
    expect(r.scan()).toEqual({ "src/new.txt": "absent" });
    expect(r.asked.flat().sort()).toEqual(["build", "debug.log", "src/new.txt"]);
    r.asked.length = 0;
    r.write("build/out/y.js", "y\n");
    r.write("debug.log", "more\n");
    renameSync(join(r.root, "src", "a.txt"), join(r.root, "src", "b.txt"));
    symlinkSync("src/b.txt", join(r.root, "link"));
    expect(r.scan()).toEqual({ "src/a.txt": "a\n", "src/b.txt": "absent", link: "absent" });
    expect(r.asked.flat().sort()).toEqual(["link", "src/b.txt"]);
  });

  test("a folder where a file was, and a nested repository, are found as changes too", () => {
    const r = repo({ "a.txt": "a\n", "keep.txt": "k\n" });
    rmSync(join(r.root, "a.txt"));
    mkdirSync(join(r.root, "a.txt"));
    r.write("a.txt/inner.txt", "inner\n");
    mkdirSync(join(r.root, "vendor", "lib", ".git"), { recursive: true });
    expect(r.scan()).toEqual({ "a.txt": "a\n", "a.txt/inner.txt": "absent", "vendor/lib/": "absent" });
    expect(r.scan()).toEqual({});
  });

  test("past the bound of bytes held in memory the picture asks for the index; seeded from it again, it goes on from there", () => {
    const r = repo({ "a.txt": "a\n" });
    r.write("big.txt", "b".repeat(5 * 1024 * 1024));
    expect(r.scan()).toEqual({ "big.txt": "absent" });
    expect(r.picture.heavy()).toBe(true);
    expect(r.snapshots.update([...r.picture.dirty])).toBe(true);
    expect(r.picture.seed(r.snapshots.index)).toBe(true);
    expect(r.picture.heavy()).toBe(false);
    r.write("big.txt", "small now\n");
    expect(r.scan()).toEqual({ "big.txt": "b".repeat(5 * 1024 * 1024) });
  });
});
