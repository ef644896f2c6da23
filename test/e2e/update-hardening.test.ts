// `omp update --from` against what is not a release: a gzip bomb under a memory cap, a directory,
// /dev/zero, a full disk; and the sweep of what a killed install.sh left. Runs a copy of the compiled
// dist/omp in a temp install dir; nothing here needs a signed release, since all of it must fail
// (or be swept) before a signature is looked at.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OMP, runOmp, tempDir } from "../support/omp.ts";
import { claimingHeader, writeGzipBomb } from "../support/gzip-bomb.ts";

setDefaultTimeout(120_000);

const asRoot = process.getuid?.() === 0;
if (!asRoot) console.warn("update-hardening: the full-disk test is skipped: mounting a small tmpfs needs root");

function installCopy(): { dir: string; binary: string; home: string } {
  const dir = tempDir("omp-install-");
  const binary = join(dir, "omp");
  copyFileSync(OMP, binary);
  return { dir, binary, home: tempDir() };
}

/** `binary args` under GNU time: its exit, stderr, peak RSS in KiB and wall time. */
async function measured(binary: string, args: string[], home: string): Promise<{ code: number; stderr: string; peakKiB: number; ms: number }> {
  const report = join(tempDir(), "time.txt");
  const started = performance.now();
  const result = await runOmp(args, { home, binary, wrapper: ["/usr/bin/time", "-o", report, "-f", "%M"] });
  const ms = performance.now() - started;
  const peakKiB = Number((await Bun.file(report).text()).trim().split("\n").at(-1));
  return { code: result.code, stderr: result.stderr, peakKiB, ms };
}

describe("omp update --from a decompression bomb", () => {
  test("an archive whose binary claims gigabytes fails at its header, fast and small, under a 3 GB address-space cap", async () => {
    const { dir, binary, home } = installCopy();
    const bomb = join(tempDir(), "omp-9.9.9-linux-x64-offline.tar.gz");
    // 1 GiB of zeros: a megabyte gzipped; the header claims 7 GiB.
    await writeGzipBomb(bomb, [claimingHeader("omp-9.9.9-linux-x64-offline/omp-linux-x64", 7 * 1024 ** 3), 1024 ** 3]);
    const message = `omp: ${bomb} unpacks to more than 1024 MiB (entry "omp-9.9.9-linux-x64-offline/omp-linux-x64" alone claims 7168 MiB): it is damaged or a decompression bomb; refusing it\n`;
    const capped = await runOmp(["update", "--from", bomb], { home, binary, wrapper: ["prlimit", "--as=3000000000", "--"] });
    expect(capped.stderr).toBe(message);
    expect(capped.code).toBe(1);

    const { code, stderr, peakKiB, ms } = await measured(binary, ["update", "--from", bomb], home);
    expect(stderr).toStartWith(message);
    expect(code).toBe(1);
    expect(peakKiB).toBeLessThan(400 * 1024);
    expect(ms).toBeLessThan(15_000);
    expect(readdirSync(dir)).toEqual(["omp"]);
  });

  test("an archive of big files it does not want is read through, never held, and stopped at the uncompressed limit", async () => {
    const { dir, binary, home } = installCopy();
    const bomb = join(tempDir(), "blobs.tar.gz");
    const part = 300 * 1024 ** 2;
    await writeGzipBomb(bomb, [1, 2, 3, 4].flatMap((n) => [claimingHeader(`top/blob-${n}`, part), part]));

    const { code, stderr, peakKiB } = await measured(binary, ["update", "--from", bomb], home);
    expect(stderr).toStartWith(`omp: ${bomb} unpacks to more than 1024 MiB (entry "top/blob-4" alone claims 300 MiB): it is damaged or a decompression bomb; refusing it\n`);
    expect(code).toBe(1);
    expect(peakKiB).toBeLessThan(400 * 1024);
    expect(readdirSync(dir)).toEqual(["omp"]);
  });
});

describe("omp update --from what is not a release file", () => {
  test("a directory, /dev/zero and an empty file are refused before anything is read", async () => {
    const { dir, binary, home } = installCopy();
    const folder = tempDir();
    const dirRun = await runOmp(["update", "--from", folder], { home, binary });
    expect(dirRun.code).toBe(2);
    expect(dirRun.stderr).toBe(`omp: ${folder} is a directory; give the file: the offline bundle (omp-<version>-<target>-offline.tar.gz), a release archive or a binary\n`);

    const started = performance.now();
    const zero = await runOmp(["update", "--from", "/dev/zero"], { home, binary });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toBe("omp: /dev/zero is not a regular file (a device or a pipe); give a release file\n");
    expect(performance.now() - started).toBeLessThan(10_000);

    const empty = join(tempDir(), "empty.tar.gz");
    writeFileSync(empty, "");
    const emptyRun = await runOmp(["update", "--from", empty], { home, binary });
    expect(emptyRun.code).toBe(2);
    expect(emptyRun.stderr).toBe(`omp: ${empty} is empty; give a release file\n`);
    expect(readdirSync(dir)).toEqual(["omp"]);
  });

  test.skipIf(!asRoot)("a full disk says so, once, instead of retrying the download", async () => {
    const size = 48 * 1024 ** 2;
    let requests = 0;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch() {
        requests++;
        return new Response(new Uint8Array(size).fill(0x41), { headers: { "content-length": String(size) } });
      },
    });
    try {
      const home = tempDir();
      const mount = tempDir("omp-full-");
      const url = `http://127.0.0.1:${server.port}/omp-9.9.9-linux-x64-offline.tar.gz`;
      // A tmpfs with room for the binary and a few MB more: the download fills it.
      const room = Math.ceil(Bun.file(OMP).size / 1024 ** 2) + 8;
      const script = `mount -t tmpfs -o size=${room}m tmpfs "$1" && cp "$2" "$1/omp" && exec "$1/omp" update --from "$3"`;
      const full = await runOmp(["-c", script, "sh", mount, OMP, url], { home, binary: "sh", wrapper: ["unshare", "-m"] });
      expect(full.stderr).toMatch(new RegExp(`^omp: no space left to write ${mount}/\\.omp\\.\\d+\\.\\w+\\.dir/from: the disk is full\\. Free some space and run omp update again; nothing was changed\\.\\n$`));
      expect(full.code).toBe(1);
      expect(requests).toBe(1);
    } finally {
      server.stop(true);
    }
  });
});

describe("leftovers of a killed install.sh", () => {
  test("omp update sweeps the staged binary and temp dir of a dead install, and keeps a live one's", async () => {
    const { dir, binary, home } = installCopy();
    const temp = tempDir();
    const dead = Bun.spawnSync(["true"]).pid;
    writeFileSync(join(dir, `.omp.install.${dead}`), "half a binary");
    writeFileSync(join(dir, `.omp.install.${process.pid}`), "a live install's");
    mkdirSync(join(temp, `omp-install.${dead}.AbC123`));
    writeFileSync(join(temp, `omp-install.${dead}.AbC123`, "SHA256SUMS"), "x");
    mkdirSync(join(temp, `omp-install.${process.pid}.XyZ789`));

    const run = await runOmp(["update", "--from", "/dev/zero"], { home, binary, env: { TMPDIR: temp } });
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toContain(`removed .omp.install.${dead}, left by an interrupted update or install`);
    expect(readdirSync(dir).sort()).toEqual([`.omp.install.${process.pid}`, "omp"]);
    expect(readdirSync(temp)).toEqual([`omp-install.${process.pid}.XyZ789`]);
    expect(existsSync(join(temp, `omp-install.${dead}.AbC123`))).toBe(false);
  });
});
