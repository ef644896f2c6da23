import type { NativesManifest } from "./manifest.ts";

/**
 * The archive the build embedded in this binary. The compiled entry point (written by
 * embed/build.ts) registers it before the CLI runs; running from source leaves it empty and the
 * loader uses the addon built under native/out instead.
 */
export interface EmbeddedNatives {
  /** A `$bunfs` path inside the executable. */
  archivePath: string;
  manifest: NativesManifest;
}

let embedded: EmbeddedNatives | null = null;

export function setEmbeddedNatives(natives: EmbeddedNatives): void {
  embedded = natives;
}

export function getEmbeddedNatives(): EmbeddedNatives | null {
  return embedded;
}
