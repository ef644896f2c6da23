import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findRepo } from "../../../core/git/repo.ts";
import { Snapshots } from "../../../core/session/checkpoints/git-snapshot.ts";
import { indexEntries, looseBlob, racyIndex } from "../../../core/session/checkpoints/index-file.ts";
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
    test(`index v${version}: every wanted path's blob as git lists it; others and unknown paths left out`, () => {
      const r = repo();
      r.git("update-index", "--index-version", String(version));
      // v3's extended flags: an intent-to-add entry.
      if (version === 3) {
        writeFileSync(join(r.root, "later.txt"), "later\n");
        r.git("add", "-N", "later.txt");
      }
      const truth = r.truth();
      const wanted = new Set([...r.names, "not-there", "src/deep"]);
      const found = indexEntries(r.index, wanted, 20)!;
      expect(found).toBeDefined();
      for (const name of r.names) expect(found.get(name)).toBe(truth.get(name)!);
      expect(found.has("not-there")).toBe(false);
      expect(found.has("src/deep")).toBe(false);
      expect(found.size).toBe(r.names.length);
    });
  }

  test("a sha256 repository's 32-byte names", () => {
    const r = repo("--object-format=sha256");
    const found = indexEntries(r.index, new Set(r.names), 32)!;
    const truth = r.truth();
    for (const name of r.names) expect(found.get(name)).toBe(truth.get(name)!);
    expect(truth.get("a")!.length).toBe(64);
  });

  test("a split index is left to git; a submodule's entry is a gitlink; a conflicted path has no stage-0 entry", () => {
    const r = repo();
    r.git("update-index", "--split-index");
    expect(indexEntries(r.index, new Set(["a"]), 20)).toBeUndefined();
    r.git("update-index", "--no-split-index");
    const sha = r.truth().get("a")!;
    r.git("update-index", "--add", "--cacheinfo", `160000,${sha},sub`);
    expect(indexEntries(r.index, new Set(["sub", "a"]), 20)?.get("sub")).toBe("gitlink");
    const conflicted = Bun.spawnSync(["git", "update-index", "--index-info"], { cwd: r.root, stdin: Buffer.from(`0 ${"0".repeat(40)}\tab\n100644 ${sha} 1\tab\n100644 ${sha} 2\tab\n`) });
    expect(conflicted.exitCode).toBe(0);
    const found = indexEntries(r.index, new Set(["ab", "a"]), 20)!;
    expect(found.has("ab")).toBe(false);
    expect(found.get("a")).toBe(sha);
  });

  test("garbage or a missing file is not an index", () => {
    const dir = tempDir("omp-index-file-");
    writeFileSync(join(dir, "index"), "DIRC but not really");
    expect(indexEntries(join(dir, "index"), new Set(["a"]), 20)).toBeUndefined();
    expect(indexEntries(join(dir, "none"), new Set(["a"]), 20)).toBeUndefined();
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
    const snapshots = new Snapshots(findRepo(r.root)!, tempDir("omp-index-snapshots-"));
    expect(snapshots.sync()).toBe(true);
    // Packed: the user's objects, as after a clone.
    r.git("gc", "-q", "--prune=now");
    writeFileSync(join(r.root, "a"), "changed a\n");
    writeFileSync(join(r.root, "new.txt"), "new\n");
    rmSync(join(r.root, "ab"));
    const paths = snapshots.pending()!;
    expect(paths.sort()).toEqual(["a", "ab", "new.txt"]);
    const packed = snapshots.indexed(paths);
    expect(packed.get("a")?.toString()).toBe("content of a\n");
    expect(packed.get("ab")?.toString()).toBe("content of ab\n");
    expect(packed.get("new.txt")).toBe("absent");
    // Loose: the index's own update wrote the changed file's blob.
    expect(snapshots.update(paths)).toBe(true);
    writeFileSync(join(r.root, "a"), "changed twice\n");
    writeFileSync(join(r.root, "new.txt"), "newer\n");
    const loose = snapshots.indexed(snapshots.pending()!);
    expect(loose.get("a")?.toString()).toBe("changed a\n");
    expect(loose.get("new.txt")?.toString()).toBe("new\n");
  });
});

describe("a racily clean index", () => {
  test("an entry whose file changed in the second the index was written (or later) makes it racy; written again a second after its files, it settles", () => {
    const r = repo();
    const past = new Date(Date.now() - 60_000);
    for (const name of r.names) utimesSync(join(r.root, name), past, past);
    r.git("update-index", "--really-refresh");
    r.git("update-index", "--force-write-index");
    expect(racyIndex(r.index, 20)).toBe(false);
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(r.root, "ab"), future, future);
    r.git("update-index", "--really-refresh");
    expect(racyIndex(r.index, 20)).toBe(true);
    expect(racyIndex(join(r.root, "no-index"), 20)).toBe(true);
  });
});
