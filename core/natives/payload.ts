import type { NativesManifest, Variant } from "./manifest.ts";

/**
 * The archives the build embedded in this binary. The compiled entry point (written by
 * embed/build.ts) registers them before the CLI runs; running from source leaves it empty and the
 * loader uses the addon built under native/out instead.
 */
export interface EmbeddedNatives {
  /** Each variant's archive: a `$bunfs` path inside the executable. */
  archives: Partial<Record<Variant, string>>;
  /** The sandbox launcher's archive (Linux builds). */
  launcherArchive?: string;
  manifest: NativesManifest;
}

let embedded: EmbeddedNatives | null = null;

export function setEmbeddedNatives(natives: EmbeddedNatives): void {
  embedded = natives;
}

export function getEmbeddedNatives(): EmbeddedNatives | null {
  return embedded;
}

/** A prebuilt file from an npm package packed next to the addon (see extras.ts). */
export interface ExtraFile {
  /** Flat file name in the cache: `ast-grep-napi.node`. */
  name: string;
  /** Its `$bunfs` path inside the executable. */
  path: string;
  size: number;
  sha256: string;
}

export interface EmbeddedExtras {
  /** Whole seconds since the epoch, given to extracted files so that a cache hit is a stat. */
  mtime: number;
  files: ExtraFile[];
}

let extras: EmbeddedExtras | null = null;

export function setEmbeddedExtras(value: EmbeddedExtras): void {
  extras = value;
}

export function getEmbeddedExtras(): EmbeddedExtras | null {
  return extras;
}
