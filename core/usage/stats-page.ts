import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { statsHtml } from "./stats-html.ts";
import type { SessionStats } from "./stats.ts";

export const DEFAULT_STATS_PAGE = "omp-stats.html";

/** Writes the stats page to `file` (relative to `cwd`; default ./omp-stats.html) and returns its absolute path. */
export function writeStatsPage(stats: SessionStats, cwd: string, file: string = DEFAULT_STATS_PAGE): string {
  const path = resolve(cwd, file);
  try {
    writeFileSync(path, statsHtml(stats));
  } catch (error) {
    throw new OmpError(`could not write the stats page to ${path}: ${(error as Error).message}`, { cause: error });
  }
  return path;
}
