import { z } from "zod";

/**
 * What the build packs into the binary next to the addon archives (one per variant). The manifest
 * is embedded as JSON in the program itself, so a cache hit never opens an archive.
 */
export const Variant = z.enum(["modern", "baseline", "default"]);
export type Variant = z.infer<typeof Variant>;

export const NativeFile = z.object({
  variant: Variant,
  /** Flat file name, also the entry name in its variant's archive: `omp_natives.linux-x64-modern.node`. */
  name: z.string().regex(/^[A-Za-z0-9._-]+\.node$/, "a flat .node file name"),
  size: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type NativeFile = z.infer<typeof NativeFile>;

/** The sandbox launcher: an executable extracted next to the addon, in its own archive. */
export const LauncherFile = z.object({
  name: z.string().regex(/^omp-sandbox\.[A-Za-z0-9._-]+$/, "a flat omp-sandbox.<platform> file name"),
  size: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type LauncherFile = z.infer<typeof LauncherFile>;

export const NativesManifest = z.object({
  /** 2: one uncompressed tar per variant (1 was one gzipped tar holding every variant). */
  format: z.literal(2),
  version: z.string().min(1),
  /** `${process.platform}-${process.arch}` the addons were built for. */
  platform: z.string().min(1),
  /** Whole seconds since the epoch; extracted files get this mtime, so a cache hit is a stat. */
  mtime: z.number().int().positive(),
  files: z.array(NativeFile).min(1),
  /** Absent where commands cannot be sandboxed this way (not Linux). */
  launcher: LauncherFile.optional(),
});
export type NativesManifest = z.infer<typeof NativesManifest>;
