import { describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findRepo } from "../../../core/git/repo.ts";
import { Snapshots } from "../../../core/session/checkpoints/git-snapshot.ts";
import { indexStats, looseBlob } from "../../../core/session/checkpoints/index-file.ts";
import { tempDir } from "../../support/temp.ts";

function repo(...init: string[]) {
  const root = tempDir("omp-index-file-");
  const git = (...args: string[]) => {
    const run = Bun.spawnSync(["git", ...args], { cwd: root, env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@b", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@b" } });
    if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
    return run.stdout.toString().trim();
  };
  git("init", "-q", ...init);
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  // Names of every length around the 8-byte padding, a shared prefix for v4, a non-ASCII one.
  const names = ["a", "ab", "abc", "abcdefg", "abcdefgh", "src/deep/one.ts", "src/deep/two.ts", "src/é.txt", `src/deep/long-${"n".repeat(200)}`];
  for (const name of names) writeFileSync(join(root, name), `content of ${name}\n`);
  git("add", "-A");
  /** What git itself says each path's stage-0 blob is. */
  const truth = () => new Map(git("ls-files", "-s", "-z").split("\0").filter(Boolean).map((line) => [line.slice(line.indexOf("\t") + 1), line.split(" ")[1]!]));
  return { root, git, names, truth, index: join(root, ".git", "index") };
}

describe("the index read without git", () => {
  for (const version of [2, 3, 4]) {
    test(`index v${version}: every path's blob as git lists it`, () => {
      const r = repo();
      r.git("update-index", "--index-version", String(version));
      // v3's extended flags: an intent-to-add entry.
      if (version === 3) {
        writeFileSync(join(r.root, "later.txt"), "later\n");
        r.git("add", "-N", "later.txt");
      }
      const truth = r.truth();
      const found = indexStats(r.index, 20)!;
      expect(found).toBeDefined();
      for (const name of r.names) expect(found.entries.get(name)?.oid).toBe(truth.get(name)!);
      // The intent-to-add entry has no content yet: git does not look at its file either.
      expect(found.opaque).toEqual(version === 3 ? ["later.txt"] : []);
      expect(found.entries.size).toBe(r.names.length);
    });
  }

  test("a sha256 repository's 32-byte names", () => {
    const r = repo("--object-format=sha256");
    const found = indexStats(r.index, 32)!;
    const truth = r.truth();
    for (const name of r.names) expect(found.entries.get(name)?.oid).toBe(truth.get(name)!);
    expect(truth.get("a")!.length).toBe(64);
  });

  test("a split index is left to git; a submodule's entry is opaque; a conflicted path has no stage-0 entry", () => {
    const r = repo();
    r.git("update-index", "--split-index");
    expect(indexStats(r.index, 20)).toBeUndefined();
    r.git("update-index", "--no-split-index");
    const sha = r.truth().get("a")!;
    r.git("update-index", "--add", "--cacheinfo", `160000,${sha},sub`);
    expect(indexStats(r.index, 20)?.opaque).toEqual(["sub"]);
    const conflicted = Bun.spawnSync(["git", "update-index", "--index-info"], { cwd: r.root, stdin: Buffer.from(`0 ${"0".repeat(40)}\tab\n100644 ${sha} 1\tab\n100644 ${sha} 2\tab\n`) });
    expect(conflicted.exitCode).toBe(0);
    const found = indexStats(r.index, 20)!.entries;
    expect(found.has("ab")).toBe(false);
    expect(found.get("a")?.oid).toBe(sha);
  });

  test("garbage or a missing file is not an index", () => {
    const dir = tempDir("omp-index-file-");
    writeFileSync(join(dir, "index"), "DIRC but not really");
    expect(indexStats(join(dir, "index"), 20)).toBeUndefined();
    expect(indexStats(join(dir, "none"), 20)).toBeUndefined();
  });
});

describe("loose blobs", () => {
  test("read whole within the limit, 'too-big' past it, undefined once packed", () => {
    const r = repo();
    const sha = r.truth().get("abc")!;
    const objects = join(r.root, ".git", "objects");
    expect(looseBlob(objects, sha, 1024)?.toString()).toBe("content of abc\n");
    expect(looseBlob(objects, sha, 4)).toBe("too-big");
    r.git("commit", "-q", "-m", "x");
    r.git("gc", "-q", "--prune=now");
    expect(looseBlob(objects, sha, 1024)).toBeUndefined();
  });

  test("the snapshot's prior contents are the same whether read directly or asked of git (packed)", () => {
    const r = repo();
    r.git("commit", "-q", "-m", "x");
    const truth = r.truth();
    const snapshots = new Snapshots(findRepo(r.root)!, tempDir("omp-index-snapshots-"));
    expect(snapshots.sync()).toBe(true);
    const loose = snapshots.contents([truth.get("a")!, truth.get("ab")!, "0".repeat(40)]);
    // Packed: the user's objects, as after a clone.
    r.git("gc", "-q", "--prune=now");
    expect(looseBlob(join(r.root, ".git", "objects"), truth.get("a")!, 1024)).toBeUndefined();
    const packed = snapshots.contents([truth.get("a")!, truth.get("ab")!, "0".repeat(40)]);
    expect(packed.get(truth.get("a")!)?.toString()).toBe("content of a\n");
    expect(packed.get(truth.get("ab")!)?.toString()).toBe("content of ab\n");
    expect(packed.size).toBe(2);
    expect(loose).toEqual(packed);
  });
});

describe("stat data", () => {
  test("each entry's times, inode, size and mode are what the file had when git looked", () => {
    const r = repo();
    writeFileSync(join(r.root, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(r.root, "ab"), past, past);
    r.git("add", "-A");
    const found = indexStats(r.index, 20)!;
    for (const name of ["ab", "run.sh", "src/deep/one.ts"]) {
      const stat = lstatSync(join(r.root, name), { bigint: true });
      const entry = found.entries.get(name)!;
      expect([entry.mtimeNs, entry.ctimeNs, entry.size, entry.ino]).toEqual([stat.mtimeNs, stat.ctimeNs, Number(stat.size), Number(stat.ino & 0xffffffffn)]);
    }
    expect(found.entries.get("ab")!.mtimeNs).toBe(BigInt(past.getTime()) * 1_000_000n);
    expect(found.entries.get("run.sh")!.mode).toBe(0o100755);
    expect(found.entries.get("ab")!.mode).toBe(0o100644);
    expect(found.writtenNs).toBe(lstatSync(r.index, { bigint: true }).mtimeNs);
  });
});
