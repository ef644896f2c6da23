/**
 * Release benchmarks (`bun bench/release.ts`): install.sh end to end and `omp update` end to end
 * against a release server on loopback (the test fixture's releases A and B), and the download
 * size of the linux-x64 archive, gzip as published and xz for comparison with the original omp's
 * ~90 MB xz. Writes bench/results/release.json and release.md.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TARGET, VERSION_A, VERSION_B, releaseFixture, servedTree } from "../test/support/release-fixture.ts";
import { startReleaseServer } from "../test/support/release-server.ts";
import { RESULTS, workDir } from "./paths.ts";

const WORK = workDir("release");
const ORIGINAL_XZ_MB = 90;

interface HyperfineResult {
  mean: number;
  stddev: number;
  min: number;
  max: number;
}

async function hyperfine(name: string, command: string, options: string[], env: Record<string, string>): Promise<HyperfineResult> {
  const json = join(WORK, `${name}.json`);
  const child = Bun.spawn(["hyperfine", "--style", "basic", "--export-json", json, ...options, command], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if ((await child.exited) !== 0) throw new Error(`hyperfine ${name} failed`);
  return JSON.parse(readFileSync(json, "utf8")).results[0];
}

async function xzSize(data: Uint8Array): Promise<number> {
  const child = Bun.spawn(["xz", "-6", "-T2", "-c"], { stdin: data, stdout: "pipe", stderr: "inherit" });
  const size = (await new Response(child.stdout).arrayBuffer()).byteLength;
  if ((await child.exited) !== 0) throw new Error("xz failed");
  return size;
}

const seconds = (value: number) => Math.round(value * 100) / 100;
const mb = (bytes: number) => Math.round(bytes / 1e4) / 100;

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  const fixture = await releaseFixture();
  const server = await startReleaseServer(servedTree(fixture, join(WORK, "served"), { stable: VERSION_B }));
  const home = join(WORK, "home");
  const bin = join(home, ".local", "bin");
  const env = { HOME: home, OMP_DOWNLOAD_URL: server.url, OMP_UPDATE_URL: server.url };
  try {
    const fresh = await hyperfine("install-fresh", `sh -c 'curl -fsSL ${server.url}/install.sh | sh'`, ["--runs", "5", "--prepare", `rm -rf ${home}`], env);
    const again = await hyperfine("install-again", `sh -c 'curl -fsSL ${server.url}/install.sh | sh'`, ["--runs", "5"], env);
    const prepareA = `sh -c 'mkdir -p ${bin} && cp ${fixture.binary(VERSION_A)} ${bin}/omp'`;
    const update = await hyperfine("update", `${bin}/omp update`, ["--runs", "5", "--prepare", prepareA], env);
    copyFileSync(fixture.binary(VERSION_A), join(bin, "omp"));
    const check = await hyperfine("update-check", `${bin}/omp update --check`, ["--runs", "10", "-i"], env);

    const archive = join(fixture.dir(VERSION_B), `omp-${VERSION_B}-${TARGET}.tar.gz`);
    const tar = Bun.gunzipSync(readFileSync(archive));
    const sizes = {
      binaryMb: mb(statSync(fixture.binary(VERSION_B)).size),
      gzipMb: mb(statSync(archive).size),
      xzMb: mb(await xzSize(tar)),
      originalXzMb: ORIGINAL_XZ_MB,
    };
    const results = {
      date: new Date().toISOString(),
      machine: `${process.platform}-${process.arch}, ${navigator.hardwareConcurrency} cores, loopback server`,
      target: TARGET,
      installSh: { freshS: seconds(fresh.mean), freshStddevS: seconds(fresh.stddev), alreadyInstalledS: seconds(again.mean) },
      update: { endToEndS: seconds(update.mean), stddevS: seconds(update.stddev), checkS: seconds(check.mean) },
      download: sizes,
    };
    writeFileSync(join(RESULTS, "release.json"), `${JSON.stringify(results, null, 2)}\n`);
    const md = [
      "# Release benchmarks",
      "",
      `${results.date.slice(0, 10)} · ${results.machine} · hyperfine means`,
      "",
      "| what | time |",
      "|---|---|",
      `| \`curl \\| sh\`, fresh install (download 55 MB, verify signature and sha256, unpack, smoke-run) | ${results.installSh.freshS} s ± ${results.installSh.freshStddevS} |`,
      `| \`curl \\| sh\` again, same version already installed (no archive download) | ${results.installSh.alreadyInstalledS} s |`,
      `| \`omp update\` ${VERSION_A} → ${VERSION_B} (pointer, signed sums, manifest, archive, verify, swap, re-run) | ${results.update.endToEndS} s ± ${results.update.stddevS} |`,
      `| \`omp update --check\` | ${results.update.checkS} s |`,
      "",
      `| ${TARGET} download | size |`,
      "|---|---|",
      `| binary | ${sizes.binaryMb} MB |`,
      `| \`omp-<version>-${TARGET}.tar.gz\` (published, libdeflate level 9) | ${sizes.gzipMb} MB |`,
      `| same archive as tar.xz (xz -6, for comparison) | ${sizes.xzMb} MB |`,
      `| the original omp, xz | ~${ORIGINAL_XZ_MB} MB |`,
      "",
    ].join("\n");
    writeFileSync(join(RESULTS, "release.md"), md);
    console.log(md);
  } finally {
    await server.stop();
  }
}

await main();
