import { fsyncPath } from "./fsync-path.ts";

/**
 * Writes `path`'s dirty pages out and asks the kernel to drop its cached pages (GNU dd's nocache:
 * posix_fadvise DONTNEED). An executable just written stays cached as the writes left it, and a
 * run of it maps ~5 MiB more than of the same file read back from disk (`omp -p hi` 47.6 against
 * 42.8 MiB, bench/results/rss-floor.md); once dropped, the next run reads it back as every later
 * run does. Returns whether the pages were dropped: not without GNU dd (busybox, macOS), which
 * changes nothing else.
 */
export function dropCachedPages(path: string): boolean {
  try {
    fsyncPath(path);
    return Bun.spawnSync(["dd", `if=${path}`, "iflag=nocache", "count=0", "status=none"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  } catch {
    return false;
  }
}
