import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type NativeFile, NativesManifest, type Variant } from "./manifest.ts";
import { addonFileName, stampMarker } from "./names.ts";

export interface Packed {
  archivePath: string;
  manifest: NativesManifest;
}

/**
 * Packs the addon variants for `platform` from `addonDir` into one gzipped tar with a manifest.
 * Refuses an addon whose stamp is not `version`, so a stale build can never be embedded.
 */
export async function packNatives(options: {
  addonDir: string;
  outDir: string;
  platform: string;
  version: string;
  variants: Variant[];
}): Promise<Packed> {
  const { addonDir, outDir, platform, version, variants } = options;
  const entries: Record<string, Uint8Array> = {};
  const files: NativeFile[] = [];
  for (const variant of variants) {
    const name = addonFileName(platform, variant);
    const path = join(addonDir, name);
    if (!existsSync(path)) throw new Error(`missing addon ${path}: run bun run build:native`);
    const data = readFileSync(path);
    if (!data.includes(Buffer.from(stampMarker(version)))) {
      throw new Error(`${path} is not stamped for omp ${version}; rebuild it with bun run build:native --force`);
    }
    entries[name] = data;
    files.push({ variant, name, size: data.length, sha256: new Bun.CryptoHasher("sha256").update(data).digest("hex") });
  }
  const manifest = NativesManifest.parse({
    format: 1,
    version,
    platform,
    mtime: Math.floor(Date.now() / 1000),
    files,
  });
  mkdirSync(outDir, { recursive: true });
  const archivePath = join(outDir, `natives.${platform}.tar.gz`);
  await Bun.write(archivePath, await new Bun.Archive(entries, { compress: "gzip", level: 9 }).bytes());
  return { archivePath, manifest };
}
