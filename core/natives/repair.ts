import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describeError } from "../errors/omp-error.ts";
import { syncDirectory } from "../fs/atomic-write.ts";
import { type CacheRoot, fallbackCacheRoots, primaryCacheRoot } from "./cache-dir.ts";
import { discardTemp, extractToTemp, matchesManifest } from "./extract.ts";
import { cacheDirName } from "./cache-key.ts";
import { cachedState, prepareVersionDir } from "./load.ts";
import { clearStaleMarker } from "./loading-marker.ts";
import type { NativeFile, NativesManifest } from "./manifest.ts";
import type { EmbeddedNatives } from "./payload.ts";
import { staleTempDirs } from "./prune.ts";

/** What `omp doctor --repair` did, one line per file or dir it looked at. */
export interface RepairReport {
  verified: string[];
  replaced: { path: string; reason: string }[];
  removed: string[];
  skipped: { path: string; reason: string }[];
}

function knownRoots(): CacheRoot[] {
  const roots: CacheRoot[] = [];
  try {
    roots.push(primaryCacheRoot());
  } catch {}
  for (const root of fallbackCacheRoots()) if (!roots.some((known) => known.path === root.path)) roots.push(root);
  return roots;
}

/** "absent", why the cached copy at `target` cannot be trusted, or null when its bytes are the manifest's. */
function problemWith(target: string, file: NativeFile, manifest: NativesManifest): string | null {
  const state = cachedState(target, file, manifest);
  if (state !== "hit") return state;
  return matchesManifest(target, file) ? null : `${target} has the right size and mtime but not the right bytes (sha256 mismatch)`;
}

/**
 * Checks every cached addon of this version in every cache dir by its sha256, without loading any
 * (a damaged one could crash the process), and replaces the bad ones from the embedded archive.
 * Also removes what killed extractions left. Run before the load, so that a cache that crashes omp
 * can still be mended.
 */
export function repairNatives(embedded: EmbeddedNatives): RepairReport {
  const { manifest } = embedded;
  const dirName = cacheDirName(embedded);
  const report: RepairReport = { verified: [], replaced: [], removed: [], skipped: [] };
  for (const root of knownRoots()) {
    if (!existsSync(join(root.path, dirName))) continue;
    let versionDir: string;
    try {
      versionDir = prepareVersionDir(root, dirName);
    } catch (error) {
      report.skipped.push({ path: join(root.path, dirName), reason: describeError(error) });
      continue;
    }
    for (const temp of staleTempDirs(versionDir)) {
      rmSync(temp, { recursive: true, force: true });
      report.removed.push(temp);
    }
    for (const file of manifest.files) {
      const target = join(versionDir, file.name);
      const problem = problemWith(target, file, manifest);
      if (problem === "absent") continue;
      if (problem === null) {
        report.verified.push(target);
      } else {
        const extracted = extractToTemp(embedded, file, versionDir);
        try {
          renameSync(extracted.path, target);
          syncDirectory(versionDir);
        } finally {
          discardTemp(extracted);
        }
        report.replaced.push({ path: target, reason: problem });
      }
      clearStaleMarker(target);
    }
  }
  return report;
}
