import { realpathSync } from "node:fs";
import { resolve } from "node:path";

/**
 * `dir` as one canonical path (links resolved), so one folder reached through a link or by its
 * own name keys the same trust and egress records; as given, made absolute, when it does not exist.
 */
export function realFolder(dir: string): string {
  const absolute = resolve(dir);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}
