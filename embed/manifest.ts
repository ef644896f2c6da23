import { z } from "zod";

/**
 * What the build packs into the binary next to the addon archive. The manifest is embedded as
 * JSON in the program itself, so a cache hit never opens the archive.
 */
export const Variant = z.enum(["modern", "baseline", "default"]);
export type Variant = z.infer<typeof Variant>;

export const NativeFile = z.object({
  variant: Variant,
  /** Flat file name, also the archive entry name: `omp_natives.linux-x64-modern.node`. */
  name: z.string().regex(/^[A-Za-z0-9._-]+\.node$/, "a flat .node file name"),
  size: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type NativeFile = z.infer<typeof NativeFile>;

export const NativesManifest = z.object({
  format: z.literal(1),
  version: z.string().min(1),
  /** `${process.platform}-${process.arch}` the addons were built for. */
  platform: z.string().min(1),
  /** Whole seconds since the epoch; extracted files get this mtime, so a cache hit is a stat. */
  mtime: z.number().int().positive(),
  files: z.array(NativeFile).min(1),
});
export type NativesManifest = z.infer<typeof NativesManifest>;
