// Plugin installs that would exhaust memory or disk, through the compiled binary under a memory
// cap: a .tgz decompression bomb (unpacked as a stream, stopped at its ratio and size limits), a
// folder with a 3 GB sparse file, a FIFO, and a folder over `plugins.maxSizeMB`.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runOmp, tempDir } from "../support/omp.ts";
import { claimingHeader, writeGzipBomb } from "../support/gzip-bomb.ts";
import { writeTree } from "../support/plugin-fixtures.ts";

setDefaultTimeout(120_000);

/** About 3 GB of address space: Bun itself reserves some, a 1 GiB inflation in memory does not fit beside it. */
const CAPPED = ["prlimit", "--as=3000000000", "--"];

function setup() {
  const home = tempDir("omp-home-");
  const work = tempDir("omp-work-");
  const omp = (args: string[]) => runOmp(["plugin", ...args], { home, cwd: work, wrapper: CAPPED, env: { PATH: "/usr/bin:/bin" } });
  return { home, work, omp, modules: join(home, ".omp", "plugins", "node_modules") };
}

describe("archives", () => {
  test("a .tgz bomb whose entries claim little is stopped by its compression ratio, in bounded memory", async () => {
    const { work, omp, modules } = setup();
    const bomb = join(work, "bomb.tgz");
    // A small package.json, then an entry that claims 100 MB and 1 GiB of zeros: ~1 MB on disk.
    const manifest = new TextEncoder().encode(JSON.stringify({ name: "bomb", version: "1.0.0", omp: {} }));
    const padding = (512 - (manifest.length % 512)) % 512;
    await writeGzipBomb(bomb, [claimingHeader("package/package.json", manifest.length), manifest, padding, claimingHeader("package/blob.bin", 100 * 1024 * 1024), 1024 ** 3]);
    const started = performance.now();
    const result = await omp(["install", bomb]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is too big to install and was not unpacked");
    expect(result.stderr).toContain("plugins.maxCompressionRatio");
    expect(result.stderr).not.toContain("internal error");
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(existsSync(join(modules, "bomb"))).toBe(false);
  });

  test("an entry claiming 4 GiB is refused from its header, naming plugins.maxSizeMB", async () => {
    const { work, omp } = setup();
    const bomb = join(work, "claims.tgz");
    await writeGzipBomb(bomb, [claimingHeader("package/huge.bin", 4 * 1024 ** 3), 64 * 1024 * 1024]);
    const result = await omp(["install", bomb]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`omp: ${bomb} is too big to install and was not unpacked: its entries claim more than 512 MB (plugins.maxSizeMB; raise it with \`omp config set plugins.maxSizeMB <MB>\`)\n`);
  });
});

describe("folders", () => {
  test("a 3 GB sparse file and a FIFO are refused; a folder over plugins.maxSizeMB names the setting", async () => {
    const { home, work, omp, modules } = setup();
    const sparse = writeTree(join(work, "sparse"), { "package.json": JSON.stringify({ name: "sparse", version: "1.0.0", omp: {} }) });
    expect(Bun.spawnSync(["truncate", "-s", "3G", join(sparse, "big.bin")]).exitCode).toBe(0);
    const started = performance.now();
    const holes = await omp(["install", sparse]);
    expect(holes.code).toBe(1);
    expect(holes.stderr).toContain("is a sparse file (3 GB long");
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(existsSync(join(modules, "sparse"))).toBe(false);

    const fifo = writeTree(join(work, "fifo"), { "package.json": JSON.stringify({ name: "fifo", version: "1.0.0", omp: {} }) });
    expect(Bun.spawnSync(["mkfifo", join(fifo, "pipe")]).exitCode).toBe(0);
    const piped = await omp(["install", fifo]);
    expect(piped.code).toBe(1);
    expect(piped.stderr).toContain("is a FIFO, not a file or folder");

    const big = writeTree(join(work, "big"), { "package.json": JSON.stringify({ name: "big", version: "1.0.0", omp: {} }) });
    writeFileSync(join(big, "data.bin"), new Uint8Array(3 * 1024 * 1024).fill(7));
    expect((await runOmp(["config", "set", "plugins.maxSizeMB", "2"], { home })).code).toBe(0);
    const over = await omp(["install", big]);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("was not copied: it holds more than 2 MB (plugins.maxSizeMB; raise it with `omp config set plugins.maxSizeMB <MB>`)");
    expect(over.stderr).not.toContain("internal error");
    expect((await runOmp(["config", "set", "plugins.maxSizeMB", "8"], { home })).code).toBe(0);
    expect((await omp(["install", big])).code).toBe(0);
  });
});
