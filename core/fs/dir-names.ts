import { readdirSync } from "node:fs";

/** The names in `dir`; none when it cannot be listed (missing, not a folder, not readable): for sweeps and lookups that skip such a folder. */
export function dirNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
