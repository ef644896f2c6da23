/**
 * Peak RSS counts the pages of an executable a run maps, and how many it maps depends on how the
 * file sits in the page cache: an executable just written (a build, an npm install) is cached as
 * the writes left it, and a run of it maps ~5 MiB more than the same file read back from disk —
 * `omp -p hi` 47.6 against 42.8 MiB, the floor program 36.9 against 31.8, byte-identical copies
 * (bench/results/rss-floor.md). An installed program a user runs every day is in the second state
 * once the kernel has dropped the written pages (omp's installer and `omp update` drop them). So the
 * benchmarks drop them first, for every program they compare alike, and the next run reads them
 * back as any later run does.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { dropCachedPages } from "../core/fs/page-cache.ts";

export function settle(paths: readonly string[]): void {
  for (const path of paths) {
    if (!dropCachedPages(path)) throw new Error(`could not drop ${path} from the page cache (GNU dd with iflag=nocache is needed)`);
  }
}

/** The executables (files over 1 MiB) in the npm packages under `dir` whose names start with one of `prefixes`. */
export function packageExecutables(dir: string, prefixes: readonly string[]): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && statSync(path).size > 1024 * 1024 && (statSync(path).mode & 0o111) !== 0) found.push(path);
    }
  };
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory() && prefixes.some((prefix) => entry.name.startsWith(prefix))) walk(join(dir, entry.name));
  return found;
}
