// The natives cache under attack and damage: another local user planting an addon, a cached addon
// whose bytes were damaged with its size and mtime intact (which crashes omp inside dlopen), killed
// extractions, a permissive umask. Runs the compiled dist/omp in temporary HOMEs.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { doctor, nativesDirName, runOmp, sha256File, tempDir } from "../support/omp.ts";

const asRoot = process.getuid?.() === 0;
if (!asRoot) console.warn("natives-hardening: the second-user tests are skipped: creating a local user (useradd) needs root");

/** The version dir less the sandbox launcher, which doctor extracts beside the addon to report the sandbox. */
const addonFiles = (home: string) => readdirSync(versionDir(home)).filter((name) => !name.startsWith("omp-sandbox."));

function versionDir(home: string): string {
  return join(home, ".omp", "natives", nativesDirName());
}

function needleDir(): string {
  const dir = tempDir();
  writeFileSync(join(dir, "needle.txt"), "a needle\nhay\n");
  return dir;
}

/** Overwrites bytes of `file` at `offset`, keeping its size and times, as a bad disk block would. */
function damage(file: string, offset: number, bytes: Buffer): void {
  const { atime, mtime } = statSync(file);
  const fd = openSync(file, "r+");
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
  utimesSync(file, atime, mtime);
}

/** The file offset of the addon's N-API entry point, which the runtime calls right after dlopen. */
function entryPointOffset(file: string): number {
  const symbols = Bun.spawnSync(["readelf", "-sW", "--dyn-syms", file]).stdout.toString();
  const symbol = /^\s*\d+:\s+([0-9a-f]+)\s+\d+\s+FUNC\s+GLOBAL\s+\S+\s+\S+\s+napi_register_module_v1$/m.exec(symbols);
  if (!symbol) throw new Error(`no napi_register_module_v1 in ${file}:\n${symbols}`);
  const address = Number.parseInt(symbol[1]!, 16);
  const headers = Bun.spawnSync(["readelf", "-lW", file]).stdout.toString();
  for (const match of headers.matchAll(/^\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)/gm)) {
    const [offset, vaddr, size] = [match[1]!, match[2]!, match[3]!].map((hex) => Number.parseInt(hex, 16)) as [number, number, number];
    if (address >= vaddr && address < vaddr + size) return address - vaddr + offset;
  }
  throw new Error(`napi_register_module_v1 at 0x${address.toString(16)} is in no LOAD segment of ${file}`);
}

// xor eax, eax; mov rax, [rax]: a read of address 0, so loading the addon dies with SIGSEGV.
const SEGFAULT = Buffer.from([0x31, 0xc0, 0x48, 0x8b, 0x00]);

const deadPid = () => Bun.spawnSync(["true"]).pid;

describe("a damaged addon with its size and mtime intact", () => {
  test.skipIf(process.arch !== "x64" || process.platform !== "linux")("crashes one run at most: the next one finds the marker, checks the sha256 and re-extracts", async () => {
    const home = tempDir();
    const work = needleDir();
    const first = await doctor({ home });
    const file = first.report.natives.addonPath!;
    const good = sha256File(file);
    damage(file, entryPointOffset(file), SEGFAULT);

    const crashed = await runOmp(["grep", "needle"], { home, cwd: work });
    expect(crashed.code).not.toBe(0);
    expect(crashed.stdout).toBe("");
    expect(existsSync(join(versionDir(home), `.${file.split("/").at(-1)}.loading`))).toBe(true);

    const next = await runOmp(["grep", "needle"], { home, cwd: work });
    expect(next.stderr).toBe("");
    expect(next.stdout).toBe("needle.txt:1:a needle\n");
    expect(next.code).toBe(0);
    expect(sha256File(file)).toBe(good);
    expect(addonFiles(home)).toEqual([file.split("/").at(-1)!]);
    const after = await doctor({ home });
    expect(after.report.natives.state).toBe("hit");
  });

  test("a stale marker (a run that died loading) makes the next run verify; without it a hit is only a stat", async () => {
    const home = tempDir();
    const { report } = await doctor({ home });
    const file = report.natives.addonPath!;
    const good = sha256File(file);
    const name = file.split("/").at(-1)!;
    // The last bytes are padding the loader never reads, so the damaged file still loads.
    damage(file, statSync(file).size - 8, Buffer.alloc(8, 0x5a));
    const blind = await doctor({ home });
    expect(blind.report.natives.state).toBe("hit");
    expect(sha256File(file)).not.toBe(good);

    const pid = deadPid();
    writeFileSync(join(versionDir(home), `.${name}.loading`), `${pid}\n`);
    const checked = await doctor({ home });
    expect(checked.code).toBe(0);
    expect(checked.report.natives.state).toBe("repaired");
    expect(checked.report.natives.notes.join("\n")).toContain(`an earlier omp (pid ${pid}) died while loading ${file}, and its sha256 does not match`);
    expect(sha256File(file)).toBe(good);
    expect(addonFiles(home)).toEqual([name]);
  });

  test.skipIf(process.arch !== "x64" || process.platform !== "linux")("omp doctor --repair mends a cache that crashes every load, without loading it first", async () => {
    const home = tempDir();
    const { report } = await doctor({ home });
    const file = report.natives.addonPath!;
    const good = sha256File(file);
    damage(file, entryPointOffset(file), SEGFAULT);

    const repaired = await runOmp(["doctor", "--repair", "--json"], { home });
    expect(repaired.code).toBe(0);
    const json = JSON.parse(repaired.stdout);
    // Only this HOME's cache: the per-user fallbacks in /tmp are shared by every omp this user runs.
    expect(json.repair.replaced.filter((entry: { path: string }) => entry.path.startsWith(home))).toEqual([
      { path: file, reason: `${file} has the right size and mtime but not the right bytes (sha256 mismatch)` },
    ]);
    expect(json.natives.state).toBe("hit");
    expect(sha256File(file)).toBe(good);

    const again = await runOmp(["doctor", "--repair"], { home });
    expect(again.code).toBe(0);
    const verified = again.stdout.split("\n").filter((line) => /^verified +/.test(line)).map((line) => line.replace(/^verified +/, ""));
    expect(verified).toContain(file);
    expect(again.stdout).not.toMatch(new RegExp(`^replaced +${home}`, "m"));
  });
});

describe("killed extractions", () => {
  test("their temp dirs are removed by the next run that extracts, and by doctor --repair", async () => {
    const home = tempDir();
    const { report } = await doctor({ home });
    const file = report.natives.addonPath!;
    const name = file.split("/").at(-1)!;
    const leftover = join(versionDir(home), `.tmp-${deadPid()}-AbC123`);
    mkdirSync(leftover);
    writeFileSync(join(leftover, name), "half an addon");
    rmSync(file);
    const next = await doctor({ home });
    expect(next.report.natives.state).toBe("extracted");
    expect(next.report.natives.pruned).toContain(leftover);
    expect(addonFiles(home)).toEqual([name]);

    const another = join(versionDir(home), `.tmp-${deadPid()}-XyZ789`);
    mkdirSync(another);
    const repaired = await runOmp(["doctor", "--repair", "--json"], { home });
    expect(JSON.parse(repaired.stdout).repair.removed.filter((path: string) => path.startsWith(home))).toEqual([another]);
    expect(addonFiles(home)).toEqual([name]);
  });
});

describe("permissions", () => {
  test("cache dirs are created 0700 even under umask 000", async () => {
    const home = tempDir();
    const natives = join(tempDir(), "fresh", "natives");
    const run = await runOmp(["doctor", "--json"], { home, wrapper: ["sh", "-c", 'umask 000 && exec "$@"', "sh"], env: { OMP_NATIVES_DIR: natives } });
    expect(run.code).toBe(0);
    for (const dir of [join(natives, ".."), natives, join(natives, nativesDirName())]) expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  test("a cached addon others may write is not loaded but replaced", async () => {
    const home = tempDir();
    const { report } = await doctor({ home });
    const file = report.natives.addonPath!;
    chmodSync(file, 0o777);
    const again = await doctor({ home });
    expect(again.report.natives.state).toBe("repaired");
    expect(again.report.natives.notes.join("\n")).toContain(`${file} is writable by other users (mode 777)`);
    expect(statSync(file).mode & 0o777).toBe(0o755);
  });
});

describe("another local user", () => {
  const user = `omp-planter-${process.pid}`;
  let uid = -1;
  if (asRoot) {
    const made = Bun.spawnSync(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user]);
    if (made.exitCode !== 0) throw new Error(`useradd failed: ${made.stderr}`);
    uid = Number(Bun.spawnSync(["id", "-u", user]).stdout.toString().trim());
  }
  afterAll(() => {
    if (asRoot) Bun.spawnSync(["userdel", user]);
  });
  const asPlanter = (script: string) => {
    const run = Bun.spawnSync(["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", "sh", "-c", script]);
    if (run.exitCode !== 0) throw new Error(`planting failed: ${run.stderr}`);
  };

  test.skipIf(!asRoot)(`an addon planted in a shared cache dir is never loaded; omp falls back to a dir of its own`, async () => {
    const home = tempDir();
    // A dir all users share, as /tmp is: world-writable and sticky.
    const shared = tempDir();
    chmodSync(shared, 0o1777);
    const probe = await doctor({ home: tempDir() });
    const source = probe.report.natives.addonPath!;
    const name = source.split("/").at(-1)!;
    const staging = tempDir();
    chmodSync(staging, 0o755);
    cpSync(source, join(staging, name), { preserveTimestamps: true });
    chmodSync(join(staging, name), 0o755);
    // The planter's copy passes the size and mtime check: only ownership can give it away.
    asPlanter(`mkdir -m 755 '${shared}/${nativesDirName()}' && cp -p '${staging}/${name}' '${shared}/${nativesDirName()}/${name}'`);
    expect(statSync(join(shared, nativesDirName(), name)).uid).toBe(uid);

    const cache = tempDir();
    const { code, report } = await doctor({ home, env: { OMP_NATIVES_DIR: shared, XDG_CACHE_HOME: cache } });
    expect(code).toBe(0);
    expect(report.natives.addonPath).toBe(join(cache, "omp", "natives", nativesDirName(), name));
    expect(report.natives.attempts[0]!.error).toContain(`${join(shared, nativesDirName())} belongs to uid ${uid}, not to us`);
    expect(report.natives.notes.join("\n")).toContain(`using the fallback cache ${join(cache, "omp", "natives")}`);
    const grep = await runOmp(["grep", "needle", "needle.txt"], { home, cwd: needleDir(), env: { OMP_NATIVES_DIR: shared, XDG_CACHE_HOME: cache } });
    expect(grep.stdout).toBe("1:a needle\n");
  });

  test.skipIf(!asRoot)(`an addon swapped in by another user through a dir left open is replaced, and the dir closed`, async () => {
    const home = tempDir();
    const { report } = await doctor({ home });
    const file = report.natives.addonPath!;
    const name = file.split("/").at(-1)!;
    const staging = tempDir();
    chmodSync(staging, 0o755);
    cpSync(file, join(staging, name), { preserveTimestamps: true });
    chmodSync(home, 0o755);
    chmodSync(join(home, ".omp"), 0o755);
    chmodSync(join(home, ".omp", "natives"), 0o755);
    chmodSync(versionDir(home), 0o777);
    asPlanter(`rm -f '${file}' && cp -p '${staging}/${name}' '${file}'`);
    expect(statSync(file).uid).toBe(uid);

    const again = await doctor({ home });
    expect(again.code).toBe(0);
    expect(again.report.natives.state).toBe("repaired");
    expect(again.report.natives.notes.join("\n")).toContain(`${file} belongs to uid ${uid}, not to us`);
    expect(statSync(file).uid).toBe(0);
    expect(statSync(versionDir(home)).mode & 0o777).toBe(0o755);
  });
});
