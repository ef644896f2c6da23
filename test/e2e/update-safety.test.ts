// `omp update` when things go wrong: bad downloads, a binary that does not report its version,
// SIGKILL at any moment, two updates at once, locks, installs owned by package managers.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256File, tempDir } from "../support/omp.ts";
import { type ReleaseFixture, TARGET, VERSION_A, VERSION_B, copyRelease, installBinary, releaseFixture, servedTree, signWith } from "../support/release-fixture.ts";
import { type ReleaseServer, startReleaseServer } from "../support/release-server.ts";
import { runCommand, userEnv } from "../support/release-shell.ts";

// Each update downloads, unpacks and verifies a 55 MB archive holding a 115 MB binary.
setDefaultTimeout(90_000);

let fixture: ReleaseFixture;
let server: ReleaseServer;
let servedRoot: string;

beforeAll(async () => {
  fixture = await releaseFixture();
  servedRoot = servedTree(fixture, tempDir("omp-served-"), { stable: VERSION_B });
  server = await startReleaseServer(servedRoot);
}, 20 * 60_000);

afterAll(() => server.stop());
afterEach(() => server.clearFaults());

const archiveB = `omp-${VERSION_B}-${TARGET}.tar.gz`;

function installA(dir?: string) {
  const home = tempDir();
  const omp = installBinary(fixture, VERSION_A, home, dir);
  const binDir = dir ?? join(home, ".local", "bin");
  return {
    home,
    omp,
    update: (args: string[], env: Record<string, string> = {}) => runCommand([omp, "update", ...args], { home, env: { OMP_UPDATE_URL: server.url, ...env } }),
    version: () => execFileSync(omp, ["--version"], { encoding: "utf8" }).trim(),
    leftovers: () => readdirSync(binDir).filter((name) => name !== "omp"),
  };
}

/** The update fails, and A is still there, unchanged and working, with nothing left beside it. */
async function refusedKeepingA(stderrPart: string): Promise<void> {
  const omp = installA();
  const before = sha256File(omp.omp);
  const result = await omp.update([]);
  expect(result.stderr).toContain(stderrPart);
  expect(result.code).toBe(1);
  expect(sha256File(omp.omp)).toBe(before);
  expect(omp.version()).toBe(`omp/${VERSION_A}`);
  expect(omp.leftovers()).toEqual([]);
}

describe("a bad release is refused and the installed omp keeps working", () => {
  test("a tampered archive", async () => {
    const data = new Uint8Array(readFileSync(join(fixture.dir(VERSION_B), archiveB)));
    data[data.length >> 1]! ^= 0xff;
    server.fault(`/${VERSION_B}/${archiveB}`, { kind: "replace", body: data });
    await refusedKeepingA(`the downloaded ${archiveB} does not match SHA256SUMS`);
  });

  test("a tampered SHA256SUMS", async () => {
    const sums = readFileSync(join(fixture.dir(VERSION_B), "SHA256SUMS"), "utf8").replace(/^[0-9a-f]{4}/, "0000");
    server.fault(`/${VERSION_B}/SHA256SUMS`, { kind: "replace", body: sums });
    await refusedKeepingA("the signature of SHA256SUMS");
  });

  test("a signature by another key", async () => {
    const dir = tempDir();
    copyFileSync(join(fixture.dir(VERSION_B), "SHA256SUMS"), join(dir, "SHA256SUMS"));
    signWith(execFileSync("openssl", ["genpkey", "-algorithm", "ed25519"], { encoding: "utf8" }), join(dir, "SHA256SUMS"));
    server.fault(`/${VERSION_B}/SHA256SUMS.sig`, { kind: "replace", body: readFileSync(join(dir, "SHA256SUMS.sig")) });
    await refusedKeepingA("does not verify with omp's release key");
  });

  test("a manifest that disagrees with SHA256SUMS", async () => {
    const manifest = readFileSync(join(fixture.dir(VERSION_B), "manifest.json"), "utf8").replace(/"size": \d+/, '"size": 1');
    server.fault(`/${VERSION_B}/manifest.json`, { kind: "replace", body: manifest });
    await refusedKeepingA("manifest.json of omp");
  });

  test("a truncated download, after three attempts", async () => {
    server.fault(`/${VERSION_B}/${archiveB}`, { kind: "truncate", bytes: 5_000_000 });
    await refusedKeepingA("the transfer broke off after 5000000 bytes");
  });

  test("the server dying in the middle of the download", async () => {
    const dying = await startReleaseServer(servedRoot);
    dying.fault(`/${VERSION_B}/${archiveB}`, { kind: "die", bytes: 10_000_000 });
    const omp = installA();
    const result = await omp.update([], { OMP_UPDATE_URL: dying.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not download ${archiveB} from ${dying.url}/${VERSION_B}/${archiveB} after 3 attempts`);
    expect(omp.version()).toBe(`omp/${VERSION_A}`);
    expect(omp.leftovers()).toEqual([]);
    await dying.stop();
  });

  test("a signed release whose binary reports another version is not installed", async () => {
    // Release C is A's build published as a newer version: everything verifies, the smoke run does not.
    const versionC = `${VERSION_B.split(".")[0]}.${Number(VERSION_B.split(".")[1]) + 1}.0`;
    const dir = join(servedRoot, versionC);
    const a = copyRelease(fixture, VERSION_A, tempDir());
    mkdirSync(dir);
    const archiveC = `omp-${versionC}-${TARGET}.tar.gz`;
    copyFileSync(join(a, `omp-${VERSION_A}-${TARGET}.tar.gz`), join(dir, archiveC));
    copyFileSync(join(a, `omp-${TARGET}`), join(dir, `omp-${TARGET}`));
    const manifest = JSON.parse(readFileSync(join(a, "manifest.json"), "utf8"));
    manifest.version = versionC;
    manifest.targets[TARGET].file = archiveC;
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    const sums = [archiveC, `omp-${TARGET}`, "manifest.json"].map((name) => `${sha256File(join(dir, name))}  ${name}\n`).join("");
    writeFileSync(join(dir, "SHA256SUMS"), sums);
    signWith(fixture.keyPem, join(dir, "SHA256SUMS"));

    const omp = installA();
    const result = await omp.update(["--version", versionC]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the downloaded omp reports omp ${VERSION_A}, not the expected ${versionC}`);
    expect(omp.version()).toBe(`omp/${VERSION_A}`);
    expect(omp.leftovers()).toEqual([]);
  });
});

describe("interruptions and concurrency", () => {
  test("SIGKILL at any moment of an update leaves a working omp; the next update cleans up and succeeds", async () => {
    const omp = installA();
    for (const delay of [150, 400, 700, 1000, 1300, 1600, 2000]) {
      const child = Bun.spawn([omp.omp, "update"], { cwd: omp.home, env: userEnv({ home: omp.home, env: { OMP_UPDATE_URL: server.url } }), stdio: ["ignore", "ignore", "ignore"] });
      await Bun.sleep(delay);
      child.kill("SIGKILL");
      await child.exited;
      expect(omp.version()).toMatch(new RegExp(`^omp/(${VERSION_A}|${VERSION_B})$`));
      // An update that finished before the kill: back to A, so the next round has something to do.
      if (omp.version() === `omp/${VERSION_B}`) copyFileSync(fixture.binary(VERSION_A), omp.omp);
    }
    const result = await omp.update([]);
    expect(result.code).toBe(0);
    expect(omp.version()).toBe(`omp/${VERSION_B}`);
    expect(omp.leftovers()).toEqual([]);
  });

  test("two updates at once: one installs, the other finds it done; nothing corrupt, nothing left", async () => {
    const omp = installA();
    const [first, second] = await Promise.all([omp.update([]), omp.update([])]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const outputs = [first.stdout, second.stdout].sort();
    expect(outputs.some((out) => out.includes(`updated omp ${VERSION_A} → ${VERSION_B}`))).toBe(true);
    expect(outputs.some((out) => out.includes("installed by another omp update meanwhile") || out.includes("updated omp"))).toBe(true);
    expect(sha256File(omp.omp)).toBe(sha256File(fixture.binary(VERSION_B)));
    expect(omp.leftovers()).toEqual([]);
  });

  test("a lock held by a live process is waited for; a dead holder's lock is broken", async () => {
    const omp = installA();
    const lock = join(omp.home, ".local", "bin", ".omp.update-lock");
    const holder = Bun.spawn(["sleep", "30"]);
    writeFileSync(lock, `${holder.pid}\n`);
    const updating = omp.update([]);
    await Bun.sleep(1500);
    expect(omp.version()).toBe(`omp/${VERSION_A}`);
    holder.kill("SIGKILL");
    await holder.exited;
    const result = await updating;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`waiting for another omp update (pid ${holder.pid}) to finish`);
    expect(omp.version()).toBe(`omp/${VERSION_B}`);
    expect(existsSync(lock)).toBe(false);
  });

  test("the leftovers of a killed update are swept", async () => {
    const omp = installA();
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    const binDir = join(omp.home, ".local", "bin");
    writeFileSync(join(binDir, `.omp.${dead.pid}.abc123.new`), "partial");
    mkdirSync(join(binDir, `.omp.${dead.pid}.def456.dir`));
    writeFileSync(join(binDir, ".omp.update-lock"), `${dead.pid}\n`);
    const result = await omp.update([]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("left by an interrupted update");
    expect(omp.leftovers()).toEqual([]);
  });
});

describe("installs that omp update must leave alone", () => {
  test("a Homebrew install: refused with brew's command, nothing fetched or changed", async () => {
    const home = tempDir();
    const cellarBin = join(home, "homebrew", "Cellar", "omp", VERSION_A, "bin");
    const cellar = installBinary(fixture, VERSION_A, home, cellarBin);
    mkdirSync(join(home, "homebrew", "bin"));
    const link = join(home, "homebrew", "bin", "omp");
    symlinkSync(cellar, link);
    const before = server.requests.length;
    const result = await runCommand([link, "update"], { home, env: { OMP_UPDATE_URL: server.url } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("is managed by Homebrew");
    expect(result.stderr).toContain("brew upgrade omp");
    expect(server.requests.length).toBe(before);
    expect(sha256File(cellar)).toBe(sha256File(fixture.binary(VERSION_A)));
  });

  test("an npm global install: refused with npm's command", async () => {
    const home = tempDir();
    const omp = installBinary(fixture, VERSION_A, home, join(home, ".npm-global", "lib", "node_modules", "omp", "bin"));
    const result = await runCommand([omp, "update"], { home, env: { OMP_UPDATE_URL: server.url } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("npm install -g omp@latest");
  });

  test("a directory the user cannot write: refused before any download", async () => {
    const home = tempDir();
    chmodSync(home, 0o755);
    const omp = installBinary(fixture, VERSION_A, home, join(home, "opt-bin"));
    const before = server.requests.length;
    const result = await runCommand(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", omp, "update"], {
      home,
      env: { OMP_UPDATE_URL: server.url, HOME: "/tmp" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot write ${join(home, "opt-bin")}`);
    expect(server.requests.length).toBe(before);
  });
});
