// Packing each variant into its own archive and extracting one, run from source.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { UnsafeArchiveError, discardTemp, extractToTemp } from "../../core/natives/extract.ts";
import type { NativeFile, NativesManifest } from "../../core/natives/manifest.ts";
import { packNatives } from "../../embed/pack.ts";
import type { EmbeddedNatives } from "../../core/natives/payload.ts";
import { VERSION } from "../../core/version.ts";
import { nativeOutDir, variantsFor } from "../../native/build.ts";
import { platformTag } from "../../core/natives/variant.ts";
import { tempDir } from "../support/temp.ts";

const sha256 = (data: Uint8Array) => new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** Two tiny "addons", each in its own archive, as packNatives lays them out. */
async function fixture(): Promise<{ embedded: EmbeddedNatives; files: Record<"modern" | "baseline", NativeFile>; dir: string }> {
  const dir = tempDir("omp-unit-");
  const contents = { modern: new TextEncoder().encode("modern addon bytes"), baseline: new TextEncoder().encode("baseline addon") };
  const files = {} as Record<"modern" | "baseline", NativeFile>;
  const archives: EmbeddedNatives["archives"] = {};
  for (const variant of ["modern", "baseline"] as const) {
    const name = `omp_natives.linux-x64-${variant}.node`;
    files[variant] = { variant, name, size: contents[variant].length, sha256: sha256(contents[variant]) };
    archives[variant] = join(dir, `${name}.tar`);
    writeFileSync(archives[variant]!, await new Bun.Archive({ [name]: contents[variant] }).bytes());
  }
  const manifest: NativesManifest = { format: 2, version: "1.2.3", platform: "linux-x64", mtime: 1_700_000_000, files: Object.values(files) };
  return { embedded: { archives, manifest }, files, dir };
}

function versionDir(): string {
  return tempDir("omp-unit-version-");
}

describe("extracting one variant", () => {
  test("writes the verified file with the manifest's mtime, executable, in a temp dir named for this pid", async () => {
    const { embedded, files } = await fixture();
    const dir = versionDir();
    const extracted = extractToTemp(embedded, files.baseline, dir);
    expect(dirname(extracted.path)).toBe(extracted.tempDir);
    expect(basename(extracted.tempDir)).toStartWith(`.tmp-${process.pid}-`);
    expect(readFileSync(extracted.path, "utf8")).toBe("baseline addon");
    const stat = statSync(extracted.path);
    expect(stat.mtimeMs).toBe(1_700_000_000_000);
    expect(stat.mode & 0o777).toBe(0o755);
  });

  test("a corrupt archive of another variant does not matter: it is never read", async () => {
    const { embedded, files } = await fixture();
    writeFileSync(embedded.archives.modern!, "not a tar at all");
    const extracted = extractToTemp(embedded, files.baseline, versionDir());
    expect(readFileSync(extracted.path, "utf8")).toBe("baseline addon");
    expect(() => extractToTemp(embedded, files.modern, versionDir())).toThrow("the embedded natives archive for modern is unreadable");
  });

  test("a member whose bytes changed is refused and nothing is written", async () => {
    const { embedded, files } = await fixture();
    const archive = readFileSync(embedded.archives.modern!);
    archive[512] = archive[512]! ^ 0xff;
    writeFileSync(embedded.archives.modern!, archive);
    const dir = versionDir();
    expect(() => extractToTemp(embedded, files.modern, dir)).toThrow(UnsafeArchiveError);
    expect(() => extractToTemp(embedded, files.modern, dir)).toThrow(`${files.modern.name} in the archive has sha256`);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a member of another size than the manifest's is refused", async () => {
    const { embedded, files } = await fixture();
    const dir = versionDir();
    expect(() => extractToTemp(embedded, { ...files.modern, size: files.modern.size + 1 }, dir)).toThrow("bytes, the manifest says");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("an archive holding another variant's file instead of its own is refused", async () => {
    const { embedded, files } = await fixture();
    const swapped = { ...embedded, archives: { ...embedded.archives, modern: embedded.archives.baseline } };
    expect(() => extractToTemp(swapped, files.modern, versionDir())).toThrow(`lacks ${files.modern.name}`);
  });

  test("a variant without an archive is refused", async () => {
    const { embedded, files } = await fixture();
    const missing = { ...embedded, archives: { baseline: embedded.archives.baseline } };
    expect(() => extractToTemp(missing, files.modern, versionDir())).toThrow("embeds no archive");
  });
});

describe("temp dirs", () => {
  test("go whether their file was renamed into place or is still inside", async () => {
    const { embedded, files } = await fixture();
    const dir = versionDir();
    const renamed = extractToTemp(embedded, files.modern, dir);
    renameSync(renamed.path, join(dir, files.modern.name));
    discardTemp(renamed);
    const failed = extractToTemp(embedded, files.baseline, dir);
    discardTemp(failed);
    expect(existsSync(failed.tempDir)).toBe(false);
    expect(readdirSync(dir)).toEqual([files.modern.name]);
  });
});

describe("packing", () => {
  test("each built variant goes into its own archive, and extracts to the same bytes", async () => {
    const platform = platformTag();
    const variants = variantsFor(process.arch);
    const packed = await packNatives({ addonDir: nativeOutDir(VERSION), outDir: tempDir("omp-unit-pack-"), platform, version: VERSION, variants });
    expect(packed.manifest.files.map((file) => file.variant)).toEqual(variants);
    expect(Object.keys(packed.archives).sort()).toEqual([...variants].sort());
    for (const file of packed.manifest.files) {
      const extracted = extractToTemp(packed, file, versionDir());
      expect(sha256(readFileSync(extracted.path))).toBe(sha256(readFileSync(join(nativeOutDir(VERSION), file.name))));
    }
  });

  test("the manifest's mtime is the packed files' newest, not the build's, so two builds of the same addons agree on it", async () => {
    const options = { addonDir: nativeOutDir(VERSION), platform: platformTag(), version: VERSION, variants: variantsFor(process.arch) };
    const first = await packNatives({ ...options, outDir: tempDir("omp-unit-pack-") });
    const inputs = [...first.manifest.files, ...(first.manifest.launcher ? [first.manifest.launcher] : [])].map((file) => statSync(join(nativeOutDir(VERSION), file.name)).mtimeMs);
    expect(first.manifest.mtime).toBe(Math.floor(Math.max(...inputs) / 1000));
  });
});
