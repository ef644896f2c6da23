import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type LauncherFile, type NativeFile, NativesManifest, type Variant } from "../core/natives/manifest.ts";
import { addonFileName, launcherFileName, stampMarker } from "../core/natives/names.ts";

export interface Packed {
  /** One archive per variant, so a first run reads only the one it loads. */
  archives: Partial<Record<Variant, string>>;
  /** The sandbox launcher's archive, read only when a command is first sandboxed. */
  launcherArchive?: string;
  manifest: NativesManifest;
}

/**
 * Packs each addon variant for `platform` from `addonDir` into its own uncompressed tar, with a
 * manifest. Uncompressed because a first run pays mostly for the fresh memory it touches (~5 ms a
 * megabyte on a small VM): reading 2.4 MB of plain bytes beats reading 0.9 MB of zstd and
 * inflating it into 2.4 MB more, let alone gunzipping both variants (~35 ms). It costs the binary
 * ~2.8 MB, within its size target. Refuses an addon whose stamp is not `version`, so a stale build
 * can never be embedded.
 */
export async function packNatives(options: {
  addonDir: string;
  outDir: string;
  platform: string;
  version: string;
  variants: Variant[];
}): Promise<Packed> {
  const { addonDir, outDir, platform, version, variants } = options;
  const archives: Partial<Record<Variant, string>> = {};
  const files: NativeFile[] = [];
  let newest = 0;
  mkdirSync(outDir, { recursive: true });
  for (const variant of variants) {
    const name = addonFileName(platform, variant);
    const path = join(addonDir, name);
    if (!existsSync(path)) throw new Error(`missing addon ${path}: run bun run build:native`);
    const data = readFileSync(path);
    newest = Math.max(newest, statSync(path).mtimeMs);
    if (!data.includes(Buffer.from(stampMarker(version)))) {
      throw new Error(`${path} is not stamped for omp ${version}; rebuild it with bun run build:native --force`);
    }
    files.push({ variant, name, size: data.length, sha256: new Bun.CryptoHasher("sha256").update(data).digest("hex") });
    const archivePath = join(outDir, `${name}.tar`);
    await Bun.write(archivePath, await new Bun.Archive({ [name]: data }).bytes());
    archives[variant] = archivePath;
  }
  let launcher: LauncherFile | undefined;
  let launcherArchive: string | undefined;
  const launcherPath = join(addonDir, launcherFileName(platform));
  if (platform.startsWith("linux-") && existsSync(launcherPath)) {
    const data = readFileSync(launcherPath);
    newest = Math.max(newest, statSync(launcherPath).mtimeMs);
    launcher = { name: launcherFileName(platform), size: data.length, sha256: new Bun.CryptoHasher("sha256").update(data).digest("hex") };
    launcherArchive = join(outDir, `${launcher.name}.tar`);
    // Gzipped, unlike the addons: it is read only on the first sandboxed command of a version,
    // and statically linked it would otherwise add 1.2 MB to every binary.
    await Bun.write(launcherArchive, await new Bun.Archive({ [launcher.name]: Bun.gzipSync(data) }).bytes());
  }
  const manifest = NativesManifest.parse({
    format: 2,
    version,
    platform,
    // The files' own time, not the build's: builds of the same addons (whose cache dir is the same,
    // core/natives/cache-key.ts) then take each other's extracted files as hits.
    mtime: Math.floor(newest / 1000),
    files,
    ...(launcher ? { launcher } : {}),
  });
  return { archives, ...(launcherArchive ? { launcherArchive } : {}), manifest };
}
