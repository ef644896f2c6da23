import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { describeError } from "../core/errors/omp-error.ts";
import { fallbackCacheRoots, primaryCacheRoot, type CacheRoot } from "./cache-dir.ts";
import { discardTemp, extractToTemp, UnsafeArchiveError } from "./extract.ts";
import { cachedState, prepareVersionDir } from "./load.ts";
import { launcherFileName } from "./names.ts";
import { getEmbeddedNatives } from "./payload.ts";
import { platformTag } from "./variant.ts";

export type LauncherLookup = { path: string } | { error: string };

/**
 * The sandbox launcher, put next to the addon in the same natives cache with the same checks: a
 * hit is a stat (size and the manifest's mtime, owned by us, not writable by others), anything
 * else extracts a copy verified against the manifest's sha256 and renames it into place. Running
 * from source, it is the one `bun run build:native` left in native/out.
 */
function findLauncher(): LauncherLookup {
  const embedded = getEmbeddedNatives();
  if (!embedded) {
    const path = join(import.meta.dir, "..", "native", "out", launcherFileName(platformTag()));
    return existsSync(path) ? { path } : { error: `${path} is missing: run bun run build:native` };
  }
  const file = embedded.manifest.launcher;
  if (!file) return { error: `this omp build (${embedded.manifest.platform}) carries no sandbox launcher` };
  const roots: CacheRoot[] = [];
  const errors: string[] = [];
  try {
    roots.push(primaryCacheRoot());
  } catch (error) {
    errors.push(describeError(error));
  }
  roots.push(...fallbackCacheRoots());
  for (const root of roots) {
    try {
      const versionDir = prepareVersionDir(root, embedded.manifest.version);
      const target = join(versionDir, file.name);
      if (cachedState(target, file, embedded.manifest) === "hit") return { path: target };
      const extracted = extractToTemp(embedded, file, versionDir);
      try {
        renameSync(extracted.path, target);
      } finally {
        discardTemp(extracted);
      }
      return { path: target };
    } catch (error) {
      if (error instanceof UnsafeArchiveError) return { error: `the embedded sandbox launcher failed its safety check: ${error.message}` };
      errors.push(`${root.path}: ${describeError(error)}`);
    }
  }
  return { error: `could not extract the sandbox launcher: ${errors.join("; ")}` };
}

let found: LauncherLookup | null = null;

/** Looks the launcher up once per process. */
export function sandboxLauncher(): LauncherLookup {
  found ??= findLauncher();
  return found;
}
