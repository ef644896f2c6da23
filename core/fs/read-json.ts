import { existsSync, readFileSync } from "node:fs";

/**
 * A JSON file's value, or undefined when it is missing or not JSON: for optional files read on the
 * start-up path, where a missing one is normal and a broken one must not stop the run. The existence
 * check comes first because a throw per missing file is most of the cost when many are probed.
 */
export function readJsonIfPresent(file: string): unknown {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}
