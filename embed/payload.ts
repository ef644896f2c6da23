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
