// install.sh on the ways out it does not choose: a downgrade without --force, a die, SIGTERM, SIGINT,
// SIGHUP, SIGKILL; nothing may stay behind in TMPDIR or the install dir (a SIGKILL's leftovers are
// swept by the next run). Runs the release fixture's install.sh under dash.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/omp.ts";
import { type ReleaseFixture, TARGET, VERSION_A, VERSION_B, releaseFixture, servedTree } from "../support/release-fixture.ts";
import { startReleaseServer } from "../support/release-server.ts";
import { SYSTEM_PATH, curlPipeSh, fakeCommand, runCommand, userEnv } from "../support/release-shell.ts";

setDefaultTimeout(60_000);

let fixture: ReleaseFixture;
// Built once and cached for every release test (a few minutes the first time).
beforeAll(async () => void (fixture = await releaseFixture()), 20 * 60_000);

const installed = (home: string) => join(home, ".local", "bin", "omp");
const versionOf = (path: string) => execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
const bundleOf = (version: string) => join(fixture.dir(version), `omp-${version}-${TARGET}-offline.tar.gz`);
const offline = { OMP_DOWNLOAD_URL: "http://127.0.0.1:9" };

/** A run with its own TMPDIR, so that what install.sh leaves there can be seen. */
function sandbox(): { home: string; tmp: string; env: Record<string, string> } {
  const home = tempDir();
  const tmp = join(home, "tmp");
  mkdirSync(tmp);
  return { home, tmp, env: { ...offline, TMPDIR: tmp } };
}

function leftovers(home: string, tmp: string): string[] {
  const bin = join(home, ".local", "bin");
  return [...readdirSync(tmp), ...(existsSync(bin) ? readdirSync(bin).filter((name) => name !== "omp") : [])];
}

describe("a downgrade", () => {
  test("--archive refuses an older version without --force and installs it with --force", async () => {
    const { home, tmp, env } = sandbox();
    const script = join(fixture.dir(VERSION_B), "install.sh");
    expect((await runCommand(["dash", script, "--archive", bundleOf(VERSION_B)], { home, env })).code).toBe(0);

    const refused = await runCommand(["dash", script, "--archive", bundleOf(VERSION_A)], { home, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `omp-install: error: omp ${VERSION_A} is older than the installed omp ${VERSION_B} at ${installed(home)}; re-run with --force to downgrade. Nothing was changed.`,
    );
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_B}`);
    expect(leftovers(home, tmp)).toEqual([]);

    const forced = await runCommand(["dash", script, "--archive", bundleOf(VERSION_A), "--force"], { home, env });
    expect(forced.code).toBe(0);
    expect(versionOf(installed(home))).toBe(`omp/${VERSION_A}`);
  });

  test("curl | sh of a channel that is behind the installed omp changes nothing; OMP_VERSION of an older one needs --force", async () => {
    const { home, env } = sandbox();
    expect((await runCommand(["dash", join(fixture.dir(VERSION_B), "install.sh"), "--archive", bundleOf(VERSION_B)], { home, env })).code).toBe(0);
    const server = await startReleaseServer(servedTree(fixture, tempDir("omp-served-")));
    try {
      const stable = await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url } });
      expect(stable.code).toBe(0);
      expect(stable.stderr).toContain(`omp ${VERSION_B} at ${installed(home)} is newer than ${VERSION_A} on the stable channel; nothing changed`);
      expect(versionOf(installed(home))).toBe(`omp/${VERSION_B}`);

      const pinned = await curlPipeSh(server.url, "dash", [], { home, env: { OMP_DOWNLOAD_URL: server.url, OMP_VERSION: VERSION_A } });
      expect(pinned.code).toBe(1);
      expect(pinned.stderr).toContain("re-run with --force to downgrade");
    } finally {
      server.stop();
    }
  });
});

describe("temp files on every way out", () => {
  test("a refused archive (die) leaves nothing", async () => {
    const { home, tmp, env } = sandbox();
    const junk = join(home, "omp-junk.tar.gz");
    writeFileSync(junk, Bun.gzipSync(new TextEncoder().encode("not a tar")));
    const run = await runCommand(["dash", join(fixture.dir(VERSION_A), "install.sh"), "--archive", junk], { home, env });
    expect(run.code).toBe(1);
    expect(leftovers(home, tmp)).toEqual([]);
  });

  /**
   * install.sh under dash in its own process group, held inside `chmod` of the staged binary (the
   * moment both the temp dir and the staged file exist) until `signal` goes to the whole group, as
   * a terminal sends Ctrl-C or a hangup.
   */
  async function interrupted(signal: NodeJS.Signals): Promise<{ home: string; tmp: string; code: number | null }> {
    const { home, tmp, env } = sandbox();
    const fakes = join(home, "fakes");
    const mark = join(home, "in-chmod");
    fakeCommand(fakes, "chmod", `touch '${mark}'; sleep 30; exec /bin/chmod "$@"`);
    const child = Bun.spawn(["setsid", "dash", join(fixture.dir(VERSION_A), "install.sh"), "--archive", bundleOf(VERSION_A)], {
      cwd: home,
      env: userEnv({ home, env, path: `${fakes}:${SYSTEM_PATH}` }),
      stdio: ["ignore", "ignore", "ignore"],
    });
    const deadline = Date.now() + 30_000;
    while (!existsSync(mark) && Date.now() < deadline) await Bun.sleep(50);
    expect(existsSync(mark)).toBe(true);
    expect(readdirSync(tmp).some((name) => name.startsWith(`omp-install.${child.pid}.`))).toBe(true);
    expect(readdirSync(join(home, ".local", "bin"))).toContain(`.omp.install.${child.pid}`);
    process.kill(-child.pid, signal);
    await child.exited;
    return { home, tmp, code: child.exitCode };
  }

  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130], ["SIGHUP", 129]] as const) {
    test(`${signal} to the installer's process group removes its temp dir and staged binary`, async () => {
      const run = await interrupted(signal);
      expect(run.code).toBe(code);
      expect(leftovers(run.home, run.tmp)).toEqual([]);
      expect(existsSync(installed(run.home))).toBe(false);
    });
  }

  test("SIGKILL's leftovers are swept by the next install", async () => {
    const run = await interrupted("SIGKILL");
    expect(leftovers(run.home, run.tmp).length).toBe(2);
    const again = await runCommand(["dash", join(fixture.dir(VERSION_A), "install.sh"), "--archive", bundleOf(VERSION_A)], {
      home: run.home,
      env: { ...offline, TMPDIR: run.tmp },
    });
    expect(again.code).toBe(0);
    expect(leftovers(run.home, run.tmp)).toEqual([]);
    expect(versionOf(installed(run.home))).toBe(`omp/${VERSION_A}`);
  });
});
