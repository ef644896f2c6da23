import { existsSync } from "node:fs";
import { fallbackCacheRoots, primaryCacheRoot } from "../natives/cache-dir.ts";
import { pruneNatives } from "../natives/prune.ts";

/**
 * After an update to `newVersion`: the natives cache keeps that version's builds and the one used most
 * recently before it (the version just replaced, so a rollback starts without extracting); older
 * ones go. Never loads the addon; best effort, like pruneNatives itself.
 */
export function pruneAfterUpdate(newVersion: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const roots: string[] = [];
  try {
    roots.push(primaryCacheRoot(env).path);
  } catch {}
  for (const root of fallbackCacheRoots(env)) roots.push(root.path);
  return [...new Set(roots)].filter((root) => existsSync(root)).flatMap((root) => pruneNatives(root, newVersion));
}
