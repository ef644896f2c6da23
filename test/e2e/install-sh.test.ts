// install.sh end to end: `curl | sh` from a release server on loopback into temporary HOMEs,
// under dash and bash; offline installs; every way a download can be bad; PATH handling.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256File, tempDir } from "../support/omp.ts";
import { type ReleaseFixture, TARGET, VERSION_A, VERSION_B, installBinary, releaseFixture, servedTree, signWith } from "../support/release-fixture.ts";
import { type ReleaseServer, startReleaseServer } from "../support/release-server.ts";
import { residentBytes } from "../support/page-cache.ts";
import { SYSTEM_PATH, curlPipeSh, fakeCommand, pathWithout, runCommand } from "../support/release-shell.ts";

// Each install moves and hashes a 115 MB binary a few times.
setDefaultTimeout(60_000);

let fixture: ReleaseFixture;
let server: ReleaseServer;

beforeAll(async () => {
  fixture = await releaseFixture();
  server = await startReleaseServer(servedTree(fixture, tempDir("omp-served-")));
}, 20 * 60_000);

afterAll(() => server.stop());
afterEach(() => server.clearFaults());

const bin = (home: string) => join(home, ".local", "bin");
const installed = (home: string) => join(bin(home), "omp");
const versionOf = (path: string) => execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
const archivePath = (version: string) => `/${version}/omp-${version}-${TARGET}.tar.gz`;
const bundleOf = (version: string) => join(fixture.dir(version), `omp-${version}-${TARGET}-offline.tar.gz`);

function flipByte(path: string): Uint8Array {
  const data = new Uint8Array(readFileSync(path));
  data[Math.floor(data.length / 2)]! ^= 0xff;
  return data;
}

function leftovers(home: string): string[] {
  return readdirSync(bin(home)).filter((name) => name !== "omp");
}

describe("curl | sh", () => {
  for (const shell of ["dash", "bash"] as const) {
    test(`under ${shell}: installs the stable release into ~/.local/bin and prints the PATH line`, async () => {
      const home = tempDir();
      const result = await curlPipeSh(server.url, shell, [], { home, env: { OMP_DOWNLOAD_URL: server.url } });
      expect(result.code).toBe(0);
      expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
      expect(statSync(installed(home)).mode & 0o777).toBe(0o755);
      expect(result.stderr).toContain("verified the Ed25519 signature of SHA256SUMS");
      expect(result.stderr).toContain(`${bin(home)} is not on your PATH`);
      expect(result.stderr).toContain(`export PATH="${bin(home)}:$PATH"`);
      expect(result.stderr).not.toContain("done:");
      expect(leftovers(home)).toEqual([]);
    });
  }

  test("leaves the installed binary out of the page cache, so its first runs map no more of it than later ones", async () => {
    const home = tempDir();
    const result = await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url } });
    expect(result.code).toBe(0);
    // Read back before anything runs it: the installer wrote all of it and ran it.
    expect(residentBytes(installed(home))).toBeLessThan(statSync(installed(home)).size / 100);
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
  });

  test("reports success only when the omp on PATH is the new one", async () => {
    const home = tempDir();
    const result = await curlPipeSh(server.url, "dash", [], { home, path: `${bin(home)}:${SYSTEM_PATH}`, env: { OMP_DOWNLOAD_URL: server.url } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`done: omp ${VERSION_A} is ready`);
  });

  test("an older omp earlier on PATH is named, with the line that fixes it", async () => {
    const home = tempDir();
    const shadow = join(home, "old-bin");
    installBinary(fixture, VERSION_A, home, shadow);
    const result = await curlPipeSh(server.url, "dash", [], {
      home,
      path: `${shadow}:${bin(home)}:${SYSTEM_PATH}`,
      env: { OMP_DOWNLOAD_URL: server.url, OMP_VERSION: VERSION_B },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`${join(shadow, "omp")} comes first on your PATH`);
    expect(result.stderr).toContain(`export PATH="${bin(home)}:$PATH"`);
    expect(result.stderr).not.toContain("done:");
  });

  test("OMP_VERSION pins a version; OMP_CHANNEL=canary takes the canary pointer", async () => {
    const pinned = tempDir();
    expect((await curlPipeSh(server.url, "dash", [], { home: pinned, env: { OMP_DOWNLOAD_URL: server.url, OMP_VERSION: VERSION_B } })).code).toBe(0);
    expect(versionOf(installed(pinned))).toBe(`omp/${VERSION_B}`);
    const canary = tempDir();
    expect((await curlPipeSh(server.url, "bash", [], { home: canary, env: { OMP_DOWNLOAD_URL: server.url, OMP_CHANNEL: "canary" } })).code).toBe(0);
    expect(versionOf(installed(canary))).toBe(`omp/${VERSION_B}`);
  });

  test("OMP_INSTALL_DIR chooses the directory", async () => {
    const home = tempDir();
    const dir = join(home, "tools", "bin");
    expect((await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url, OMP_INSTALL_DIR: dir } })).code).toBe(0);
    expect(versionOf(join(dir, "omp"))).toBe(`omp/${VERSION_A}`);
  });

  test("a mirror: OMP_DOWNLOAD_URL with a path, every request under it", async () => {
    const mirror = await startReleaseServer(servedTree(fixture, tempDir("omp-mirror-"), { prefix: "mirror/omp" }));
    try {
      const home = tempDir();
      const base = `${mirror.url}/mirror/omp`;
      const result = await curlPipeSh(base, "dash", [], { home, env: { OMP_DOWNLOAD_URL: base } });
      expect(result.code).toBe(0);
      expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
      expect(mirror.requests.length).toBeGreaterThan(3);
      expect(mirror.requests.every((path) => path.startsWith("/mirror/omp/"))).toBe(true);
    } finally {
      await mirror.stop();
    }
  });

  test("is idempotent: a second run finds the same build in place and downloads no archive", async () => {
    const home = tempDir();
    const env = { OMP_DOWNLOAD_URL: server.url };
    expect((await curlPipeSh(server.url, "dash", [], { home, env })).code).toBe(0);
    const before = statSync(installed(home));
    const requests = server.requests.length;
    const again = await curlPipeSh(server.url, "dash", [], { home, env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`omp ${VERSION_A} is already installed`);
    expect(server.requests.slice(requests)).not.toContain(archivePath(VERSION_A));
    expect(statSync(installed(home)).ino).toBe(before.ino);
  });

  test("upgrades in place: A, then B; nothing left behind", async () => {
    const home = tempDir();
    expect((await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url } })).code).toBe(0);
    expect((await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url, OMP_VERSION: VERSION_B } })).code).toBe(0);
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_B}`);
    expect(leftovers(home)).toEqual([]);
  });

  test("a version that is not published fails clearly", async () => {
    const home = tempDir();
    const result = await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url, OMP_VERSION: "9.9.9" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not download ${server.url}/9.9.9/SHA256SUMS after 3 attempts`);
    expect(existsSync(installed(home))).toBe(false);
  });
});

describe("a bad download is refused and the previous install keeps working", () => {
  async function attemptB(): Promise<{ home: string; result: Awaited<ReturnType<typeof curlPipeSh>> }> {
    const home = tempDir();
    installBinary(fixture, VERSION_A, home);
    const result = await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url, OMP_VERSION: VERSION_B } });
    expect(result.code).toBe(1);
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
    expect(leftovers(home)).toEqual([]);
    return { home, result };
  }

  test("a tampered archive", async () => {
    server.fault(archivePath(VERSION_B), { kind: "replace", body: flipByte(join(fixture.dir(VERSION_B), `omp-${VERSION_B}-${TARGET}.tar.gz`)) });
    const { result } = await attemptB();
    expect(result.stderr).toContain(`omp-${VERSION_B}-${TARGET}.tar.gz does not match SHA256SUMS`);
  });

  test("a tampered SHA256SUMS", async () => {
    const sums = readFileSync(join(fixture.dir(VERSION_B), "SHA256SUMS"), "utf8").replace(/^[0-9a-f]{8}/, "00000000");
    server.fault(`/${VERSION_B}/SHA256SUMS`, { kind: "replace", body: sums });
    const { result } = await attemptB();
    expect(result.stderr).toContain("the signature of SHA256SUMS does not verify");
  });

  test("a signature by another key", async () => {
    const dir = tempDir();
    copyFileSync(join(fixture.dir(VERSION_B), "SHA256SUMS"), join(dir, "SHA256SUMS"));
    signWith(execFileSync("openssl", ["genpkey", "-algorithm", "ed25519"], { encoding: "utf8" }), join(dir, "SHA256SUMS"));
    server.fault(`/${VERSION_B}/SHA256SUMS.sig`, { kind: "replace", body: readFileSync(join(dir, "SHA256SUMS.sig")) });
    const { result } = await attemptB();
    expect(result.stderr).toContain("the signature of SHA256SUMS does not verify");
  });

  test("a truncated download, after retries", async () => {
    server.fault(archivePath(VERSION_B), { kind: "truncate", bytes: 1_000_000 });
    const { result } = await attemptB();
    expect(result.stderr).toContain("attempt 1 of 3");
    expect(result.stderr).toContain("after 3 attempts");
  });

  test("without openssl the installer stops, unless --allow-unsigned", async () => {
    const path = pathWithout(join(tempDir(), "bin"), ["openssl"]);
    const home = tempDir();
    const refused = await curlPipeSh(server.url, "dash", [], { home, path, env: { OMP_DOWNLOAD_URL: server.url } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("cannot verify the release signature: install openssl 1.1.1 or newer");
    expect(existsSync(installed(home))).toBe(false);
    const allowed = await curlPipeSh(server.url, "dash", ["--allow-unsigned"], { home, path, env: { OMP_DOWNLOAD_URL: server.url } });
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toContain("--allow-unsigned: trusting SHA256SUMS unverified");
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
  });

  test("a file at the install path that is not omp is kept unless --yes", async () => {
    const home = tempDir();
    mkdirSync(bin(home), { recursive: true });
    writeFileSync(installed(home), "#!/bin/sh\necho not omp\n", { mode: 0o755 });
    const refused = await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("exists and is not a working omp");
    expect(readFileSync(installed(home), "utf8")).toContain("not omp");
    expect((await curlPipeSh(server.url, "dash", ["--yes"], { home, env: { OMP_DOWNLOAD_URL: server.url } })).code).toBe(0);
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
  });

  test("an install dir the user cannot write: refused, with OMP_INSTALL_DIR as the way out; never sudo", async () => {
    const home = tempDir();
    chmodSync(home, 0o755);
    const dir = join(home, "root-owned");
    mkdirSync(dir, { mode: 0o755 });
    const script = join(fixture.root, "install.sh");
    const result = await runCommand(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", script], {
      home,
      env: { OMP_DOWNLOAD_URL: server.url, OMP_INSTALL_DIR: dir, TMPDIR: "/tmp" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot write ${dir}; set OMP_INSTALL_DIR`);
  });
});

describe("offline: --archive, with no server at all", () => {
  const offline = { OMP_DOWNLOAD_URL: "http://127.0.0.1:9" };

  test("the bundle file", async () => {
    const home = tempDir();
    const result = await runCommand(["dash", join(fixture.dir(VERSION_B), "install.sh"), "--archive", bundleOf(VERSION_B)], { home, env: offline });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`installing omp ${VERSION_B} (${TARGET}) from ${bundleOf(VERSION_B)}`);
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_B}`);
  });

  test("the unpacked bundle, with the install.sh inside it", async () => {
    const home = tempDir();
    const dir = tempDir();
    execFileSync("tar", ["-xzf", bundleOf(VERSION_A), "-C", dir]);
    const unpacked = join(dir, `omp-${VERSION_A}-${TARGET}-offline`);
    const result = await runCommand(["bash", "install.sh", "--archive", "."], { home, cwd: unpacked, env: offline });
    expect(result.code).toBe(0);
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
    expect(readFileSync(join(unpacked, "OFFLINE.md"), "utf8")).toContain(`sh install.sh --archive omp-${VERSION_A}-${TARGET}-offline.tar.gz`);
  });

  test("a release archive with SHA256SUMS and its signature beside it; without them, refused", async () => {
    const dir = tempDir();
    const archive = join(dir, `omp-${VERSION_A}-${TARGET}.tar.gz`);
    copyFileSync(join(fixture.dir(VERSION_A), `omp-${VERSION_A}-${TARGET}.tar.gz`), archive);
    const home = tempDir();
    const refused = await runCommand(["dash", join(fixture.root, "install.sh"), "--archive", archive], { home, env: offline });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("SHA256SUMS is missing");
    for (const name of ["SHA256SUMS", "SHA256SUMS.sig"]) copyFileSync(join(fixture.dir(VERSION_A), name), join(dir, name));
    const result = await runCommand(["dash", join(fixture.root, "install.sh"), "--archive", archive], { home, env: offline });
    expect(result.code).toBe(0);
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
  });

  test("a bundle whose binary was swapped is refused", async () => {
    const dir = tempDir();
    execFileSync("tar", ["-xzf", bundleOf(VERSION_A), "-C", dir]);
    const unpacked = join(dir, `omp-${VERSION_A}-${TARGET}-offline`);
    copyFileSync(fixture.binary(VERSION_B), join(unpacked, `omp-${TARGET}`));
    const home = tempDir();
    const result = await runCommand(["dash", join(fixture.root, "install.sh"), "--archive", unpacked], { home, env: offline });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`omp-${TARGET} does not match SHA256SUMS`);
    expect(existsSync(installed(home))).toBe(false);
  });
});

describe("PATH editing and uninstall", () => {
  test("--modify-path adds one line per startup file, once; --uninstall --yes takes it all back", async () => {
    const home = tempDir();
    writeFileSync(join(home, ".bashrc"), "# my bashrc\n");
    const env = { OMP_DOWNLOAD_URL: server.url };
    for (let run = 0; run < 2; run++) {
      const result = await curlPipeSh(server.url, "dash", ["--modify-path"], { home, env });
      expect(result.code).toBe(0);
    }
    const line = `export PATH="${bin(home)}:$PATH" # added by the omp installer`;
    for (const rc of [".profile", ".bashrc"]) {
      const text = readFileSync(join(home, rc), "utf8");
      expect(text.split("\n").filter((l) => l === line)).toHaveLength(1);
    }
    const login = spawnSync("bash", ["-c", ". ~/.profile && command -v omp && omp --version"], { env: { HOME: home, PATH: SYSTEM_PATH }, encoding: "utf8" });
    expect(login.stdout).toBe(`${installed(home)}\nomp/${VERSION_A}\n`);

    const noTty = await runCommand(["sh", join(fixture.root, "install.sh"), "--uninstall"], { home });
    expect(noTty.code).toBe(1);
    expect(noTty.stderr).toContain("re-run with --yes");
    expect(existsSync(installed(home))).toBe(true);

    const removed = await runCommand(["sh", join(fixture.root, "install.sh"), "--uninstall", "--yes"], { home });
    expect(removed.code).toBe(0);
    expect(existsSync(installed(home))).toBe(false);
    expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("# my bashrc\n\n");
    expect(readFileSync(join(home, ".profile"), "utf8")).not.toContain("omp installer");
  });
});

describe("platform detection (--print-target)", () => {
  const printTarget = (path: string) => runCommand(["sh", join(fixture.root, "install.sh"), "--print-target"], { home: tempDir(), path });

  test("this machine", async () => {
    const result = await printTarget(SYSTEM_PATH);
    expect(result.stdout.trim()).toBe(TARGET);
  });

  test("musl: ldd says so; and a release without a musl build says it has none", async () => {
    const fakes = join(tempDir(), "fakes");
    fakeCommand(fakes, "ldd", 'echo "musl libc (x86_64)"; echo "Version 1.2.4"');
    const path = `${fakes}:${SYSTEM_PATH}`;
    expect((await printTarget(path)).stdout.trim()).toBe(`${TARGET}-musl`);
    const home = tempDir();
    const result = await curlPipeSh(server.url, "dash", [], { home, path, env: { OMP_DOWNLOAD_URL: server.url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`omp ${VERSION_A} has no build for ${TARGET}-musl`);
  });

  test("Rosetta: an x64 shell on an arm64 Mac gets the arm64 build", async () => {
    const fakes = join(tempDir(), "fakes");
    fakeCommand(fakes, "uname", 'case "$1" in -s) echo Darwin ;; -m) echo x86_64 ;; esac');
    fakeCommand(fakes, "sysctl", '[ "$2" = sysctl.proc_translated ] && echo 1');
    const result = await printTarget(`${fakes}:${SYSTEM_PATH}`);
    expect(result.stdout.trim()).toBe("darwin-arm64");
    expect(result.stderr).toContain("Rosetta 2");
  });

  test("arm64 Linux", async () => {
    const fakes = join(tempDir(), "fakes");
    fakeCommand(fakes, "uname", 'case "$1" in -s) echo Linux ;; -m) echo aarch64 ;; esac');
    expect((await printTarget(`${fakes}:${SYSTEM_PATH}`)).stdout.trim()).toBe("linux-arm64");
  });

  const canUnshare = spawnSync("unshare", ["-m", "true"]).status === 0;
  test.skipIf(!canUnshare || process.arch !== "x64")("a CPU without AVX2 gets the baseline build", () => {
    const cpuinfo = join(tempDir(), "cpuinfo");
    writeFileSync(cpuinfo, "processor\t: 0\nflags\t\t: fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt\n");
    const result = spawnSync("unshare", ["-m", "sh", "-c", `mount --bind ${cpuinfo} /proc/cpuinfo && sh ${join(fixture.root, "install.sh")} --print-target`], {
      encoding: "utf8",
      env: { PATH: SYSTEM_PATH, HOME: tempDir() },
    });
    expect(result.stdout.trim()).toBe("linux-x64-baseline");
    expect(result.stderr).toContain("lacks AVX2");
  });
});

test("the installed file is byte for byte the released binary", async () => {
  const home = tempDir();
  expect((await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url } })).code).toBe(0);
  expect(sha256File(installed(home))).toBe(sha256File(fixture.binary(VERSION_A)));
});
