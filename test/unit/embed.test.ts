// The loader's building blocks, run from source.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkSharedRoot, ensureOwnedDir, fallbackCacheRoots, primaryCacheRoot } from "../../core/natives/cache-dir.ts";
import { UnsafeArchiveError, checkEntries } from "../../core/natives/extract.ts";
import type { NativesManifest } from "../../core/natives/manifest.ts";
import { PRUNE_GRACE_MS, pruneNatives } from "../../core/natives/prune.ts";
import { type TarEntry, readTar } from "../../core/natives/tar.ts";
import { chooseVariant } from "../../core/natives/variant.ts";
import { tempDir } from "../support/temp.ts";

const scratch = () => tempDir("omp-unit-");

describe("tar reader", () => {
  test("reads what Bun.Archive writes", async () => {
    const tar = await new Bun.Archive({ "a.node": new Uint8Array([1, 2, 3]), "b.node": "hello" }).bytes();
    const entries = readTar(tar);
    expect(entries.map((e) => [e.name, e.type, Array.from(e.data)])).toEqual([
      ["a.node", "file", [1, 2, 3]],
      ["b.node", "file", Array.from(new TextEncoder().encode("hello"))],
    ]);
  });

  test("rejects a damaged header and a truncated archive", async () => {
    const tar = await new Bun.Archive({ "a.node": "x".repeat(2000) }).bytes();
    const damaged = new Uint8Array(tar);
    damaged[10] = damaged[10]! ^ 0xff;
    expect(() => readTar(damaged)).toThrow("checksum mismatch");
    expect(() => readTar(tar.slice(0, 1024))).toThrow("truncated");
  });
});

const manifest: NativesManifest = {
  format: 2,
  version: "1.2.3",
  platform: "linux-x64",
  mtime: 1_700_000_000,
  files: [{ variant: "modern", name: "omp_natives.linux-x64-modern.node", size: 3, sha256: "0".repeat(64) }],
};
const entry = (over: Partial<TarEntry>): TarEntry => ({
  name: "omp_natives.linux-x64-modern.node",
  type: "file",
  flag: "0",
  linkName: "",
  data: new Uint8Array(3),
  ...over,
});

describe("archive entry checks", () => {
  test("accepts the listed plain file", () => {
    expect(() => checkEntries([entry({})], manifest)).not.toThrow();
  });
  const refusals: [string, Partial<TarEntry>, string][] = [
    ["absolute", { name: "/etc/x.node" }, "absolute path"],
    ["dot-dot", { name: "a/../../x.node" }, 'climbs out with ".."'],
    ["symlink", { type: "symlink", flag: "2", linkName: "/etc/passwd" }, "is a symlink"],
    ["hardlink", { type: "hardlink", flag: "1", linkName: "x" }, "is a hardlink"],
    ["directory", { type: "directory", flag: "5" }, "only plain files"],
    ["unlisted", { name: "other.node" }, "not listed in the manifest"],
  ];
  for (const [name, over, message] of refusals) {
    test(`refuses ${name}`, () => {
      expect(() => checkEntries([entry(over)], manifest)).toThrow(message);
      expect(() => checkEntries([entry(over)], manifest)).toThrow(UnsafeArchiveError);
    });
  }
  test("refuses a duplicate", () => {
    expect(() => checkEntries([entry({}), entry({})], manifest)).toThrow("appears twice");
  });
});

describe("variant choice", () => {
  test("non-x64 has one build", () => {
    expect(chooseVariant({}, "arm64").order).toEqual(["default"]);
  });
  test("the override wins; modern still falls back to baseline", () => {
    expect(chooseVariant({ OMP_NATIVE_VARIANT: "modern" }, "x64").order).toEqual(["modern", "baseline"]);
    expect(chooseVariant({ OMP_NATIVE_VARIANT: "baseline" }, "x64").order).toEqual(["baseline"]);
  });
  test("an invalid override is ignored and said so", () => {
    const choice = chooseVariant({ OMP_NATIVE_VARIANT: "turbo" }, "x64");
    expect(choice.reason).toContain('OMP_NATIVE_VARIANT="turbo" ignored');
    expect(["modern", "baseline"]).toContain(choice.order[0]!);
  });
});

describe("cache dirs", () => {
  test("OMP_NATIVES_DIR, then XDG_DATA_HOME, then ~/.omp/natives", () => {
    expect(primaryCacheRoot({ OMP_NATIVES_DIR: "/x/n", XDG_DATA_HOME: "/d" })).toEqual({ path: "/x/n", source: "OMP_NATIVES_DIR" });
    expect(primaryCacheRoot({ XDG_DATA_HOME: "/d" })).toEqual({ path: "/d/omp/natives", source: "XDG_DATA_HOME" });
    expect(primaryCacheRoot({}).path).toEndWith("/.omp/natives");
    expect(() => primaryCacheRoot({ OMP_NATIVES_DIR: "rel" })).toThrow("must be an absolute path");
  });
  test("fallbacks are per user", () => {
    const uid = process.getuid!();
    const roots = fallbackCacheRoots({});
    expect(roots.map((r) => r.path)).toContain(`/tmp/omp-${uid}/natives`);
    for (const root of roots) expect(root.privateDir ?? "").toContain(`omp-${uid}`);
  });
  test("a private dir must be ours; one of ours open to others is closed again", () => {
    const dir = scratch();
    const open = join(dir, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    ensureOwnedDir(open);
    expect(statSync(open).mode & 0o777).toBe(0o755);
    symlinkSync(open, join(dir, "link"));
    expect(() => ensureOwnedDir(join(dir, "link"))).toThrow("not a directory");
  });

  test("a fresh private dir is 0700 whatever the umask", () => {
    const dir = scratch();
    const previous = process.umask(0o000);
    try {
      ensureOwnedDir(join(dir, "a", "b"));
    } finally {
      process.umask(previous);
    }
    expect(statSync(join(dir, "a")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "a", "b")).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  test("a shared root must be sticky", () => {
    const dir = scratch();
    chmodSync(dir, 0o777);
    expect(() => checkSharedRoot(dir)).toThrow("not sticky");
    chmodSync(dir, 0o1777);
    checkSharedRoot(dir);
  });
});

describe("pruning", () => {
  test("keeps the current and the last used other version; respects the grace period", () => {
    const root = scratch();
    const now = Date.now();
    const make = (name: string, ageMs: number) => {
      mkdirSync(join(root, name));
      utimesSync(join(root, name), (now - ageMs) / 1000, (now - ageMs) / 1000);
    };
    make("2.0.0", 0);
    make("1.0.0", PRUNE_GRACE_MS * 3);
    make("1.1.0", PRUNE_GRACE_MS * 2);
    make("0.9.0", PRUNE_GRACE_MS * 4);
    make("3.0.0-canary.1", PRUNE_GRACE_MS / 2);
    make("notes", PRUNE_GRACE_MS * 9);
    mkdirSync(join(root, "2.0.0", ".tmp-old"));
    utimesSync(join(root, "2.0.0", ".tmp-old"), (now - PRUNE_GRACE_MS * 2) / 1000, (now - PRUNE_GRACE_MS * 2) / 1000);
    mkdirSync(join(root, "2.0.0", ".tmp-live"));
    // A killed extraction's dir goes at once: its pid is gone. Ours stays, however old.
    const dead = Bun.spawnSync(["true"]).pid;
    mkdirSync(join(root, "2.0.0", `.tmp-${dead}-abc`));
    mkdirSync(join(root, "2.0.0", `.tmp-${process.pid}-abc`));
    utimesSync(join(root, "2.0.0", `.tmp-${process.pid}-abc`), 1, 1);
    writeFileSync(join(root, "2.0.0", "omp_natives.node"), "x");

    const removed = pruneNatives(root, "2.0.0", now);
    // 3.0.0-canary.1 was used last, so it stays for a rollback; the idle rest go.
    expect(readdirSync(root).sort()).toEqual(["2.0.0", "3.0.0-canary.1", "notes"]);
    expect(readdirSync(join(root, "2.0.0")).sort()).toEqual([`.tmp-${process.pid}-abc`, ".tmp-live", "omp_natives.node"]);
    expect(removed.sort()).toEqual(
      [join(root, "0.9.0"), join(root, "1.0.0"), join(root, "1.1.0"), join(root, "2.0.0", ".tmp-old"), join(root, "2.0.0", `.tmp-${dead}-abc`)].sort(),
    );
  });

  test("builds' dirs: the current build's kept, every build of a version kept when the version is named", () => {
    const root = scratch();
    const now = Date.now();
    const idle = (now - PRUNE_GRACE_MS * 3) / 1000;
    for (const name of ["2.0.0+aaaaaaaaaaaaaaaa", "2.0.0+bbbbbbbbbbbbbbbb", "2.0.0", "2.0.0-rc.1+cccccccccccccccc", "1.0.0+dddddddddddddddd"]) {
      mkdirSync(join(root, name));
      utimesSync(join(root, name), idle, idle);
    }
    utimesSync(join(root, "1.0.0+dddddddddddddddd"), idle + 60, idle + 60);
    // From a run: its own build stays, and the most recently used other one; the old `2.0.0` and the other builds go.
    expect(pruneNatives(root, "2.0.0+aaaaaaaaaaaaaaaa", now).map((path) => path.slice(root.length + 1)).sort()).toEqual(["2.0.0", "2.0.0+bbbbbbbbbbbbbbbb", "2.0.0-rc.1+cccccccccccccccc"]);
    expect(readdirSync(root).sort()).toEqual(["1.0.0+dddddddddddddddd", "2.0.0+aaaaaaaaaaaaaaaa"]);
    // After an update to 3.0.0, whose build has no dir yet: every 3.0.0 build stays.
    mkdirSync(join(root, "3.0.0+eeeeeeeeeeeeeeee"));
    utimesSync(join(root, "3.0.0+eeeeeeeeeeeeeeee"), idle - 60, idle - 60);
    expect(pruneNatives(root, "3.0.0", now).map((path) => path.slice(root.length + 1))).toEqual(["2.0.0+aaaaaaaaaaaaaaaa"]);
    expect(readdirSync(root).sort()).toEqual(["1.0.0+dddddddddddddddd", "3.0.0+eeeeeeeeeeeeeeee"]);
  });

  test("a version dir inside the grace period survives even when not kept", () => {
    const root = scratch();
    const now = Date.now();
    for (const [name, age] of [["1.0.0", 1000], ["1.1.0", 2000]] as const) {
      mkdirSync(join(root, name));
      utimesSync(join(root, name), (now - age) / 1000, (now - age) / 1000);
    }
    expect(pruneNatives(root, "2.0.0", now)).toEqual([]);
  });
});
