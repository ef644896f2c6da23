// The embedded addon's life in the cache, exercised on the compiled dist/omp in a temporary HOME.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { ROOT, VERSION, doctor, nativesDirName, runOmp, sha256File, tempDir } from "../support/omp.ts";

const addonName = (variant: string) => `omp_natives.${process.platform}-${process.arch}-${variant}.node`;
const builtAddon = (variant: string) => join(ROOT, "native", "out", addonName(variant));

function versionDir(home: string): string {
  return join(home, ".omp", "natives", nativesDirName());
}

describe("first run and cache hits", () => {
  test("the first run extracts the addon, the second reuses it untouched", async () => {
    const home = tempDir();
    const first = await doctor({ home });
    expect(first.code).toBe(0);
    expect(first.report.natives.state).toBe("extracted");
    const variant = first.report.natives.variant!;
    const file = join(versionDir(home), addonName(variant));
    expect(first.report.natives.addonPath).toBe(file);
    expect(sha256File(file)).toBe(sha256File(builtAddon(variant)));
    expect(statSync(file).mode & 0o777).toBe(0o755);
    // doctor also reports the sandbox, so the launcher is extracted beside the addon.
    expect(readdirSync(versionDir(home)).sort()).toEqual([addonName(variant), `omp-sandbox.${process.platform}-${process.arch}`].sort());
    const before = statSync(file);

    const second = await doctor({ home });
    expect(second.report.natives.state).toBe("hit");
    const after = statSync(file);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.ctimeMs).toBe(before.ctimeMs);
  });

  test("a truncated cached addon is replaced", async () => {
    const home = tempDir();
    const { report } = await doctor({ home });
    const file = report.natives.addonPath!;
    const good = sha256File(file);
    truncateSync(file, 4096);
    const again = await doctor({ home });
    expect(again.code).toBe(0);
    expect(again.report.natives.state).toBe("repaired");
    expect(sha256File(file)).toBe(good);
  });

  test("a corrupted cached addon of the right size and mtime is replaced", async () => {
    const home = tempDir();
    const { report } = await doctor({ home });
    const file = report.natives.addonPath!;
    const good = sha256File(file);
    const { atime, mtime } = statSync(file);
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, 0);
    closeSync(fd);
    utimesSync(file, atime, mtime);

    const again = await doctor({ home });
    expect(again.code).toBe(0);
    expect(again.report.natives.state).toBe("repaired");
    expect(again.report.natives.notes.join("\n")).toContain(file);
    expect(sha256File(file)).toBe(good);
    const grep = await runOmp(["grep", "-c", "needle"], { home, cwd: writeNeedle(tempDir()) });
    expect(grep.stdout).toBe("needle.txt:2\n");
  });

  test("an addon stamped for another version is rejected with a clear message and replaced", async () => {
    const home = tempDir();
    const { report } = await doctor({ home });
    const file = report.natives.addonPath!;
    const good = sha256File(file);
    const bytes = readFileSync(file);
    const marker = Buffer.from(`omp-natives-stamp:${VERSION}\0`);
    const at = bytes.indexOf(marker);
    expect(at).toBeGreaterThan(0);
    const other = VERSION.replace(/\d+$/, (n) => String((Number(n) + 1) % 10));
    expect(other.length).toBe(VERSION.length);
    Buffer.from(`omp-natives-stamp:${other}\0`).copy(bytes, at);
    const { atime, mtime } = statSync(file);
    writeFileSync(file, bytes);
    utimesSync(file, atime, mtime);

    const again = await doctor({ home });
    expect(again.code).toBe(0);
    expect(again.report.natives.state).toBe("repaired");
    expect(again.report.natives.notes.join("\n")).toContain(`was built for omp ${other}, but this is omp ${VERSION}`);
    expect(sha256File(file)).toBe(good);
  });
});

function writeNeedle(dir: string): string {
  writeFileSync(join(dir, "needle.txt"), "a needle\nhay\nanother needle\n");
  return dir;
}

describe("concurrency", () => {
  test("16 simultaneous first runs all succeed and leave one good version dir", async () => {
    const home = tempDir();
    const work = writeNeedle(tempDir());
    const runs = await Promise.all(Array.from({ length: 16 }, () => runOmp(["grep", "needle"], { home, cwd: work })));
    for (const run of runs) {
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("needle.txt:1:a needle\nneedle.txt:3:another needle\n");
    }
    expect(readdirSync(join(home, ".omp", "natives"))).toEqual([nativesDirName()]);
    const entries = readdirSync(versionDir(home));
    expect(entries).toHaveLength(1);
    const variant = entries[0]!.includes("-modern") ? "modern" : "baseline";
    expect(sha256File(join(versionDir(home), entries[0]!))).toBe(sha256File(builtAddon(variant)));
  });
});

describe("where the cache lives", () => {
  test("OMP_NATIVES_DIR is honoured and HOME stays untouched", async () => {
    const home = tempDir();
    const natives = join(tempDir(), "natives");
    const { code, report } = await doctor({ home, env: { OMP_NATIVES_DIR: natives } });
    expect(code).toBe(0);
    expect(report.natives.configuredRoot).toEqual({ path: natives, source: "OMP_NATIVES_DIR" });
    expect(report.natives.addonPath!.startsWith(join(natives, nativesDirName()))).toBe(true);
    expect(existsSync(join(home, ".omp"))).toBe(false);
  });

  test("XDG_DATA_HOME is honoured", async () => {
    const home = tempDir();
    const data = tempDir();
    const { report } = await doctor({ home, env: { XDG_DATA_HOME: data } });
    expect(report.natives.addonPath!.startsWith(join(data, "omp", "natives", nativesDirName()))).toBe(true);
  });

  test("a relative OMP_NATIVES_DIR is reported and a working fallback is used", async () => {
    const home = tempDir();
    const cache = tempDir();
    const { code, report } = await doctor({ home, env: { OMP_NATIVES_DIR: "relative/dir", XDG_CACHE_HOME: cache } });
    expect(code).toBe(0);
    expect(report.natives.attempts[0]!.error).toContain("OMP_NATIVES_DIR must be an absolute path");
    expect(report.natives.usedRoot!.path).toBe(join(cache, "omp", "natives"));
  });

  const asRoot = process.getuid?.() === 0;
  const nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"];
  const nobodyDirs = ["/tmp", "/var/tmp", "/dev/shm"].map((dir) => join(dir, "omp-65534"));

  test.skipIf(!asRoot)("a read-only HOME falls back to a private per-user dir", async () => {
    for (const dir of nobodyDirs) rmSync(dir, { recursive: true, force: true });
    const home = tempDir();
    chmodSync(home, 0o555);
    const work = writeNeedle(tempDir());
    chmodSync(work, 0o755);
    try {
      const { code, report } = await doctor({ home, wrapper: nobody, env: { TMPDIR: "/tmp" } });
      expect(code).toBe(0);
      expect(report.natives.usedRoot).toEqual({ path: "/tmp/omp-65534/natives", source: "per-user dir in /tmp", privateDir: "/tmp/omp-65534" } as never);
      expect(report.natives.notes.join("\n")).toContain("using the fallback cache /tmp/omp-65534/natives");
      expect(report.natives.attempts[0]!.path).toContain(join(home, ".omp", "natives"));
      const stat = statSync("/tmp/omp-65534");
      expect(stat.uid).toBe(65534);
      expect(stat.mode & 0o777).toBe(0o700);
      const grep = await runOmp(["grep", "needle", "needle.txt"], { home, cwd: work, wrapper: nobody, env: { TMPDIR: "/tmp" } });
      expect(grep.stdout).toBe("1:a needle\n3:another needle\n");
    } finally {
      for (const dir of nobodyDirs) rmSync(dir, { recursive: true, force: true });
    }
  });

  test.skipIf(!asRoot)("a per-user dir owned by someone else is refused; when nothing loads, every path is listed", async () => {
    for (const dir of nobodyDirs) {
      rmSync(dir, { recursive: true, force: true });
      writeFileSync(dir, "planted by another user");
    }
    const home = tempDir();
    chmodSync(home, 0o555);
    try {
      const { code, report } = await doctor({ home, wrapper: nobody, env: { TMPDIR: "/tmp" } });
      expect(code).toBe(1);
      const message = report.nativesError!;
      expect(message).toContain("omp could not load its native addon");
      expect(message).toContain(join(home, ".omp", "natives", nativesDirName()));
      for (const dir of nobodyDirs) expect(message).toContain(join(dir, "natives"));
      expect(message).toContain("What to do:");
      expect(message).toContain("OMP_NATIVES_DIR");
      const grep = await runOmp(["grep", "x"], { home, wrapper: nobody, env: { TMPDIR: "/tmp" } });
      expect(grep.code).toBe(2);
      expect(grep.stderr).toContain("omp could not load its native addon");
    } finally {
      for (const dir of nobodyDirs) rmSync(dir, { recursive: true, force: true });
    }
  });

  test.skipIf(!asRoot)("a cache dir on a noexec mount falls back to one that can load code", async () => {
    const home = tempDir();
    const cache = tempDir();
    const natives = join(home, ".omp", "natives");
    mkdirSync(natives, { recursive: true });
    const script = `mount -t tmpfs -o noexec tmpfs "${natives}" && exec "$@"`;
    const { code, report } = await doctor({
      home,
      wrapper: ["unshare", "-m", "sh", "-c", script, "sh"],
      env: { XDG_CACHE_HOME: cache },
    });
    expect(code).toBe(0);
    expect(report.natives.attempts[0]!.error).toContain("noexec");
    expect(report.natives.usedRoot!.path).toBe(join(cache, "omp", "natives"));
  });
});

describe("old versions", () => {
  test("extraction prunes idle old version dirs but keeps the previous one", async () => {
    const home = tempDir();
    const root = join(home, ".omp", "natives");
    const now = Date.now() / 1000;
    // All idle past the grace period; 0.0.2 was used last, so it is the one a rollback needs.
    for (const [version, idleSeconds] of [["0.0.1", 7200], ["0.0.2", 3600], ["0.0.3", 5400]] as const) {
      mkdirSync(join(root, version), { recursive: true });
      writeFileSync(join(root, version, "omp_natives.old.node"), "old");
      utimesSync(join(root, version), now - idleSeconds, now - idleSeconds);
    }
    mkdirSync(join(root, "not-a-version"));
    const { report } = await doctor({ home });
    expect(report.natives.state).toBe("extracted");
    expect(readdirSync(root).sort()).toEqual(["0.0.2", nativesDirName(), "not-a-version"].sort());
    expect(report.natives.pruned.sort()).toEqual([join(root, "0.0.1"), join(root, "0.0.3")]);
  });
});

describe("one dir per build", () => {
  test("the cache dir is named for the version and the build's files; an older omp's <version> dir is never loaded, and is pruned once idle", async () => {
    expect(nativesDirName()).toMatch(new RegExp(`^${VERSION.replace(/\./g, "\\.")}\\+[0-9a-f]{16}$`));
    const { report: fresh } = await doctor({ home: tempDir() });
    const good = statSync(fresh.natives.addonPath!);
    const name = basename(fresh.natives.addonPath!);
    // Another build of this version, as an older omp keyed it: an addon of the same size and mtime,
    // which that omp took for its own without reading it.
    const home = tempDir();
    const root = join(home, ".omp", "natives");
    const idle = (hours: number) => Date.now() / 1000 - hours * 3600;
    mkdirSync(join(root, VERSION), { recursive: true });
    writeFileSync(join(root, VERSION, name), Buffer.alloc(good.size, 0x5a));
    utimesSync(join(root, VERSION, name), good.atime, good.mtime);
    utimesSync(join(root, VERSION), idle(2), idle(2));
    const other = "0.0.9+0123456789abcdef";
    mkdirSync(join(root, other));
    utimesSync(join(root, other), idle(1), idle(1));

    const { code, report } = await doctor({ home });
    expect(code).toBe(0);
    expect(report.natives.state).toBe("extracted");
    expect(report.natives.notes).toEqual([]);
    expect(report.natives.addonPath).toBe(join(root, nativesDirName(), name));
    expect(sha256File(report.natives.addonPath!)).toBe(sha256File(fresh.natives.addonPath!));
    // The older omp's dir goes like any other version's; the most recently used other one stays for a rollback.
    expect(report.natives.pruned).toEqual([join(root, VERSION)]);
    expect(readdirSync(root).sort()).toEqual([nativesDirName(), other].sort());
  });
});

describe("natives load lazily", () => {
  test("--version and --help work with a broken cache and never touch it", async () => {
    const home = tempDir();
    writeFileSync(join(home, ".omp"), "not a directory");
    const version = await runOmp(["--version"], { home });
    expect(version.code).toBe(0);
    expect(version.stdout.split("\n")[0]).toBe(`omp/${VERSION}`);
    const help = await runOmp(["--help"], { home });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("grep");
    expect(help.stdout).toContain("doctor");
    expect(readFileSync(join(home, ".omp"), "utf8")).toBe("not a directory");

    const clean = tempDir();
    await runOmp(["--version"], { home: clean });
    await runOmp(["--help"], { home: clean });
    expect(existsSync(join(clean, ".omp"))).toBe(false);
  });
});
