// `omp update` on the compiled binaries of two releases, A and B, against a release server on
// loopback: checking, channels, pinning, downgrades, mirrors, proxies, offline files, pruning.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/omp.ts";
import { type ReleaseFixture, TARGET, VERSION_A, VERSION_B, installBinary, releaseFixture, servedTree } from "../support/release-fixture.ts";
import { type CountingProxy, type ReleaseServer, startCountingProxy, startReleaseServer } from "../support/release-server.ts";
import { runCommand } from "../support/release-shell.ts";
import { residentBytes } from "../support/page-cache.ts";

// Each update downloads, unpacks and verifies a 55 MB archive holding a 115 MB binary.
setDefaultTimeout(60_000);

let fixture: ReleaseFixture;
/** stable → A, canary → B */
let server: ReleaseServer;
/** stable → B */
let newer: ReleaseServer;
let proxy: CountingProxy;

beforeAll(async () => {
  fixture = await releaseFixture();
  server = await startReleaseServer(servedTree(fixture, tempDir("omp-served-")));
  newer = await startReleaseServer(servedTree(fixture, tempDir("omp-served-"), { stable: VERSION_B }));
  proxy = await startCountingProxy();
}, 20 * 60_000);

afterAll(async () => {
  await Promise.all([server.stop(), newer.stop(), proxy.stop()]);
});

const OFFLINE = "http://127.0.0.1:9";

interface Installed {
  home: string;
  omp: string;
  update(args: string[], env?: Record<string, string | undefined>): ReturnType<typeof runCommand>;
  version(): Promise<string>;
  leftovers(): string[];
}

function install(version: string, url: string = server.url): Installed {
  const home = tempDir();
  const omp = installBinary(fixture, version, home);
  return {
    home,
    omp,
    update: (args, env = {}) => runCommand([omp, "update", ...args], { home, env: { OMP_UPDATE_URL: url, ...env } }),
    version: async () => (await runCommand([omp, "--version"], { home })).stdout.trim(),
    leftovers: () => readdirSync(join(home, ".local", "bin")).filter((name) => name !== "omp"),
  };
}

describe("--check", () => {
  test("exit 0 when up to date, 10 when the channel has a newer version", async () => {
    const current = install(VERSION_A);
    const upToDate = await current.update(["--check"]);
    expect(upToDate.code).toBe(0);
    expect(upToDate.stdout).toBe(`omp ${VERSION_A} is up to date (stable: ${VERSION_A})\n`);

    const behind = install(VERSION_A, newer.url);
    const available = await behind.update(["--check"]);
    expect(available.code).toBe(10);
    expect(available.stdout).toContain(`omp ${VERSION_B} is available (stable); this is omp ${VERSION_A}`);
    expect(await behind.version()).toBe(`omp/${VERSION_A}`);
  });

  test("exit 1 with the URL and the cause when the server cannot be reached", async () => {
    const omp = install(VERSION_A, OFFLINE);
    const result = await omp.update(["--check"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not download the stable channel pointer from ${OFFLINE}/channels/stable.json after 3 attempts`);
  });

  test("--channel canary is remembered in the config", async () => {
    const omp = install(VERSION_A);
    const first = await omp.update(["--check", "--channel", "canary"]);
    expect(first.code).toBe(10);
    expect(readFileSync(join(omp.home, ".omp", "agent", "config.yml"), "utf8")).toContain("channel: canary");
    const again = await omp.update(["--check"]);
    expect(again.code).toBe(10);
    expect(again.stdout).toContain("(canary)");
    const bad = await omp.update(["--check", "--channel", "nightly"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--channel must be stable or canary");
  });
});

describe("updating", () => {
  test("A to B: verified, swapped, nothing left behind", async () => {
    const omp = install(VERSION_A, newer.url);
    const result = await omp.update([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`updated omp ${VERSION_A} → ${VERSION_B} at ${omp.omp}`);
    expect(result.stderr).toContain(`downloading omp-${VERSION_B}-${TARGET}.tar.gz`);
    expect(result.stderr).toContain("verified omp");
    expect(await omp.version()).toBe(`omp/${VERSION_B}`);
    expect(statSync(omp.omp).mode & 0o777).toBe(0o755);
    expect(omp.leftovers()).toEqual([]);
  });

  test("--version pins; the same version again downloads nothing; --force reinstalls it", async () => {
    const omp = install(VERSION_A);
    expect((await omp.update(["--version", VERSION_B])).code).toBe(0);
    expect(await omp.version()).toBe(`omp/${VERSION_B}`);
    const before = server.requests.length;
    const same = await omp.update(["--version", VERSION_B]);
    expect(same.code).toBe(0);
    expect(same.stdout).toBe(`omp ${VERSION_B} is already installed\n`);
    expect(server.requests.length).toBe(before);
    const forced = await omp.update(["--version", VERSION_B, "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(`updated omp ${VERSION_B} → ${VERSION_B}`);
  });

  test("a downgrade needs --force; a channel behind the installed version is not one", async () => {
    const omp = install(VERSION_B);
    const refused = await omp.update(["--version", VERSION_A]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`omp ${VERSION_A} is older than the installed ${VERSION_B}; add --force to downgrade`);
    expect(await omp.version()).toBe(`omp/${VERSION_B}`);
    const behind = await omp.update([]);
    expect(behind.code).toBe(0);
    expect(behind.stdout).toContain(`omp ${VERSION_B} is already installed (stable is at ${VERSION_A}`);
    expect((await omp.update(["--version", VERSION_A, "--force"])).code).toBe(0);
    expect(await omp.version()).toBe(`omp/${VERSION_A}`);
  });

  test("a version that is not published is named as such", async () => {
    const omp = install(VERSION_A);
    const result = await omp.update(["--version", "9.9.9"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`omp 9.9.9 is not published at ${server.url}`);
    const bad = await omp.update(["--version", "latest"]);
    expect(bad.code).toBe(2);
  });

  test("a mirror: OMP_UPDATE_URL with a path", async () => {
    const mirror = await startReleaseServer(servedTree(fixture, tempDir("omp-mirror-"), { prefix: "pub/omp", stable: VERSION_B }));
    try {
      const omp = install(VERSION_A, `${mirror.url}/pub/omp`);
      expect((await omp.update([])).code).toBe(0);
      expect(await omp.version()).toBe(`omp/${VERSION_B}`);
      expect(mirror.requests.every((path) => path.startsWith("/pub/omp/"))).toBe(true);
    } finally {
      await mirror.stop();
    }
  });

  test("HTTP_PROXY carries every request; NO_PROXY bypasses it", async () => {
    const omp = install(VERSION_A, newer.url);
    const before = proxy.requests.length;
    expect((await omp.update([], { HTTP_PROXY: proxy.url })).code).toBe(0);
    const through = proxy.requests.slice(before).map((url) => url.replace(newer.url, ""));
    expect(through).toEqual([
      "/channels/stable.json",
      `/${VERSION_B}/SHA256SUMS`,
      `/${VERSION_B}/SHA256SUMS.sig`,
      `/${VERSION_B}/manifest.json`,
      `/${VERSION_B}/omp-${VERSION_B}-${TARGET}.tar.gz`,
    ]);
    const bypass = install(VERSION_A, newer.url);
    const count = proxy.requests.length;
    expect((await bypass.update(["--check"], { HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1" })).code).toBe(10);
    expect(proxy.requests.length).toBe(count);
  });

  test("a proxy that is down gives an error that names it", async () => {
    const omp = install(VERSION_A);
    const result = await omp.update(["--check"], { HTTP_PROXY: "http://127.0.0.1:9" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("through the proxy http://127.0.0.1:9");
  });

  test("never loads the native addon: works with a natives setting that breaks it", async () => {
    const omp = install(VERSION_A, newer.url);
    const broken = { OMP_NATIVES_DIR: "relative/natives" };
    const doctor = await runCommand([omp.omp, "doctor"], { home: omp.home, env: broken });
    expect(doctor.stdout + doctor.stderr).toContain("OMP_NATIVES_DIR must be an absolute path");
    expect((await omp.update([], broken)).code).toBe(0);
    expect(await omp.version()).toBe(`omp/${VERSION_B}`);
  });

  test("leaves the new binary out of the page cache, so its first runs map no more of it than later ones", async () => {
    const omp = install(VERSION_A, newer.url);
    expect((await omp.update([])).code).toBe(0);
    // Read back before anything runs it: the update wrote all of it and ran it twice.
    expect(residentBytes(omp.omp)).toBeLessThan(statSync(omp.omp).size / 100);
    expect(await omp.version()).toBe(`omp/${VERSION_B}`);
  });

  test("prunes the natives cache afterwards, keeping the version just replaced", async () => {
    const omp = install(VERSION_A, newer.url);
    const natives = join(omp.home, ".omp", "natives");
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    for (const [version, age] of [["0.0.1", 48], ["0.0.2", 24], [VERSION_A, 1]] as const) {
      mkdirSync(join(natives, version), { recursive: true });
      utimesSync(join(natives, version), hoursAgo(age), hoursAgo(age));
    }
    expect((await omp.update([])).code).toBe(0);
    expect(readdirSync(natives).sort()).toEqual([VERSION_A]);
  });
});

describe("--from: offline files, verified like downloads", () => {
  test("the offline bundle, with no server at all", async () => {
    const omp = install(VERSION_A, OFFLINE);
    const bundle = join(fixture.dir(VERSION_B), `omp-${VERSION_B}-${TARGET}-offline.tar.gz`);
    const result = await omp.update(["--from", bundle]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`updated omp ${VERSION_A} → ${VERSION_B}`);
    expect(await omp.version()).toBe(`omp/${VERSION_B}`);
    expect(omp.leftovers()).toEqual([]);
    const again = await omp.update(["--from", bundle]);
    expect(again.stdout).toBe(`omp ${VERSION_B} is already installed\n`);
  });

  test("a release archive or a bare binary needs SHA256SUMS and its signature beside it", async () => {
    const dir = tempDir();
    const archive = join(dir, `omp-${VERSION_B}-${TARGET}.tar.gz`);
    const binary = join(dir, `omp-${TARGET}`);
    copyFileSync(join(fixture.dir(VERSION_B), `omp-${VERSION_B}-${TARGET}.tar.gz`), archive);
    copyFileSync(fixture.binary(VERSION_B), binary);
    const omp = install(VERSION_A, OFFLINE);
    const refused = await omp.update(["--from", archive]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`needs SHA256SUMS and SHA256SUMS.sig from its release in the same directory (${dir})`);
    for (const name of ["SHA256SUMS", "SHA256SUMS.sig"]) copyFileSync(join(fixture.dir(VERSION_B), name), join(dir, name));
    expect((await omp.update(["--from", archive])).code).toBe(0);
    expect(await omp.version()).toBe(`omp/${VERSION_B}`);
    const other = install(VERSION_A, OFFLINE);
    expect((await other.update(["--from", binary])).code).toBe(0);
    expect(await other.version()).toBe(`omp/${VERSION_B}`);
  });

  test("a URL: the archive and the sums beside it on a server", async () => {
    const omp = install(VERSION_A);
    const url = `${server.url}/${VERSION_B}/omp-${VERSION_B}-${TARGET}.tar.gz`;
    expect((await omp.update(["--from", url])).code).toBe(0);
    expect(await omp.version()).toBe(`omp/${VERSION_B}`);
  });

  test("a binary of another release than the SHA256SUMS beside it is refused", async () => {
    const dir = tempDir();
    copyFileSync(fixture.binary(VERSION_B), join(dir, `omp-${TARGET}`));
    for (const name of ["SHA256SUMS", "SHA256SUMS.sig"]) copyFileSync(join(fixture.dir(VERSION_A), name), join(dir, name));
    const omp = install(VERSION_A, OFFLINE);
    const result = await omp.update(["--from", join(dir, `omp-${TARGET}`)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not listed in its release's SHA256SUMS");
    expect(await omp.version()).toBe(`omp/${VERSION_A}`);
    expect(omp.leftovers()).toEqual([]);
  });

  test("--from with --version is a usage error; a missing file too", async () => {
    const omp = install(VERSION_A, OFFLINE);
    expect((await omp.update(["--from", "x", "--version", VERSION_B])).code).toBe(2);
    const missing = await omp.update(["--from", join(omp.home, "nope.tar.gz")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("does not exist");
    expect(existsSync(join(omp.home, ".local", "bin", ".omp.update-lock"))).toBe(false);
  });
});
