// The streaming release-archive reader: what it keeps, and the limits that stop bombs.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ArchiveLimits, readTarGz } from "../../../core/update/tarball.ts";
import { writeTar, writeTarGz } from "../../../release/tar-writer.ts";
import { claimingHeader, writeGzipBomb } from "../../support/gzip-bomb.ts";
import { tempDir } from "../../support/temp.ts";

const bytes = (n: number, fill = 7) => new Uint8Array(n).fill(fill);

function archive(files: { name: string; data: Uint8Array }[]): string {
  const path = join(tempDir("omp-unit-"), "a.tar.gz");
  writeFileSync(path, writeTarGz(files.map((file) => ({ ...file, mode: 0o644 })), 0));
  return path;
}

describe("readTarGz", () => {
  test("keeps only the wanted files, at the top or one dir down, and lists every file", async () => {
    const big = bytes(300_000, 1);
    const path = archive([
      { name: "top/omp", data: big },
      { name: "top/README.md", data: bytes(10) },
      { name: "top/deeper/omp", data: bytes(5) },
      { name: "SHA256SUMS", data: bytes(3, 2) },
    ]);
    const { files, names } = await readTarGz(path, "a.tar.gz", ["omp", "SHA256SUMS"]);
    expect([...files.keys()]).toEqual(["top/omp", "SHA256SUMS"]);
    expect(files.get("top/omp")).toEqual(big);
    expect(files.get("SHA256SUMS")).toEqual(bytes(3, 2));
    expect(names).toEqual(["top/omp", "top/README.md", "top/deeper/omp", "SHA256SUMS"]);
  });

  test("an entry claiming gigabytes is refused from its header alone", async () => {
    const path = join(tempDir("omp-unit-"), "bomb.tar.gz");
    await writeGzipBomb(path, [claimingHeader("top/omp", 7 * 1024 ** 3), 1024 * 1024]);
    const started = performance.now();
    await expect(readTarGz(path, "bomb.tar.gz", ["omp"])).rejects.toThrow("bomb.tar.gz unpacks to more than 1024 MiB");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("limits on the kept size, the total and the entry count", async () => {
    const small: ArchiveLimits = { compressedBytes: 1024 ** 2, uncompressedBytes: 64 * 1024, entries: 3, keptFileBytes: 8 * 1024 };
    await expect(readTarGz(archive([{ name: "omp", data: bytes(10_000) }]), "x", ["omp"], small)).rejects.toThrow("x holds \"omp\" of 10000 bytes, more than the 8192 bytes any omp release file has");
    await expect(readTarGz(archive([{ name: "a", data: bytes(40_000) }, { name: "b", data: bytes(40_000) }]), "x", ["omp"], small)).rejects.toThrow("unpacks to more than");
    const many = Array.from({ length: 4 }, (_, i) => ({ name: `f${i}`, data: bytes(1) }));
    await expect(readTarGz(archive(many), "x", ["omp"], small)).rejects.toThrow("x holds more than 3 entries; refusing it");
    await expect(readTarGz(archive([{ name: "omp", data: bytes(1) }]), "x", ["omp"], { ...small, compressedBytes: 10 })).rejects.toThrow("over the 10 bytes a release archive may be");
  });

  test("unsafe, odd, truncated and non-gzip archives are refused", async () => {
    await expect(readTarGz(archive([{ name: "../evil", data: bytes(1) }]), "x", ["evil"])).rejects.toThrow('x holds an unsafe path "../');
    const tar = writeTar([{ name: "top/omp", data: bytes(2000), mode: 0o755 }], 0);
    const dir = tempDir("omp-unit-");
    writeFileSync(join(dir, "cut.tar.gz"), Bun.gzipSync(tar.slice(0, 1024)));
    await expect(readTarGz(join(dir, "cut.tar.gz"), "cut", ["omp"])).rejects.toThrow("cut is not a readable .tar.gz (truncated tar archive");
    writeFileSync(join(dir, "junk.tar.gz"), new Uint8Array([0x1f, 0x8b, 1, 2, 3, 4, 5]));
    await expect(readTarGz(join(dir, "junk.tar.gz"), "junk", ["omp"])).rejects.toThrow("junk is not a readable .tar.gz");
  });
});
