import type { Variant } from "./manifest.ts";

// Kept apart from manifest.ts so the run-time loader never pulls zod onto the startup path.

export function addonFileName(platform: string, variant: Variant): string {
  return variant === "default" ? `omp_natives.${platform}.node` : `omp_natives.${platform}-${variant}.node`;
}

/** The addon's stamp as laid out in its data section (see native/crates/addon/src/stamp.rs). */
export function stampMarker(version: string): string {
  return `omp-natives-stamp:${version}\0`;
}

/** The sandbox launcher's file name (native/crates/sandbox), one per platform. */
export function launcherFileName(platform: string): string {
  return `omp-sandbox.${platform}`;
}
