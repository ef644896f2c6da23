import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { describeError } from "../errors/omp-error.ts";
import { fallbackCacheRoots, primaryCacheRoot, type CacheRoot } from "./cache-dir.ts";
import { discardTemp, extractToTemp, releaseExtraction, UnsafeArchiveError } from "./extract.ts";
import { cacheDirName } from "./cache-key.ts";
import { cachedState, prepareVersionDir } from "./load.ts";
import { launcherFileName } from "./names.ts";
import { getEmbeddedNatives } from "./payload.ts";
import { platformTag } from "./variant.ts";

/**
 * `abi`: the Landlock ABI its `--probe` reported (0: none); `namespaces`: whether it can make PID and
 * mount namespaces here. A copy that cannot be run (a noexec mount) is skipped.
 */
export type LauncherLookup = { path: string; abi: number; namespaces: boolean } | { error: string };

/** Runs the launcher's `--probe`: the kernel's Landlock ABI, or why it cannot run from where it is. */
function probe(path: string): { abi: number; namespaces: boolean } | { error: string } {
  try {
    const run = Bun.spawnSync([path, "--probe"], { stdout: "pipe", stderr: "pipe" });
    if (run.exitCode !== 0) return { error: `${path} --probe failed: ${run.stderr.toString().trim() || `exit ${run.exitCode}`}` };
    const [abi, namespaces] = run.stdout.toString().trim().split(/\s+/);
    return { abi: Number(abi) || 0, namespaces: namespaces === "ns" };
  } catch (error) {
    // EACCES from a cache dir mounted noexec: the next cache root may allow it.
    return { error: `${path} cannot be run (${describeError(error)})` };
  }
}

/**
 * The sandbox launcher, put next to the addon in the same natives cache with the same checks: a
 * hit is a stat (size and the manifest's mtime, owned by us, not writable by others), anything
 * else extracts a copy verified against the manifest's sha256 and renames it into place. Running
 * from source, it is the one `bun run build:native` left in native/out.
 */
function findLauncher(): LauncherLookup {
  const embedded = getEmbeddedNatives();
  if (!embedded) {
    const path = join(import.meta.dir, "..", "..", "native", "out", launcherFileName(platformTag()));
    if (!existsSync(path)) return { error: `${path} is missing: run bun run build:native` };
    const probed = probe(path);
    return "error" in probed ? probed : { path, ...probed };
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
      const versionDir = prepareVersionDir(root, cacheDirName(embedded));
      const target = join(versionDir, file.name);
      if (cachedState(target, file, embedded.manifest) !== "hit") {
        const extracted = extractToTemp(embedded, file, versionDir);
        try {
          renameSync(extracted.path, target);
        } finally {
          discardTemp(extracted);
        }
        releaseExtraction();
      }
      const probed = probe(target);
      if ("error" in probed) {
        errors.push(probed.error);
        continue;
      }
      return { path: target, ...probed };
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
