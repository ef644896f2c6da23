import { readFileSync } from "node:fs";
import { configError } from "./config-error.ts";

/**
 * Reading config files, apart from parsing them: the start-up path reads every config file to
 * check it against the config cache, and only a changed file needs the YAML parser (yaml-file.ts).
 */

export type Mapping = Record<string, unknown>;

export function isMapping(value: unknown): value is Mapping {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The file's text, or undefined when it does not exist. Other read failures are config errors. */
export function readConfigText(path: string): string | undefined {
  return readConfigBytes(path)?.toString("utf8");
}

/** The file's exact bytes (what the config cache hashes), or undefined when it does not exist. */
export function readConfigBytes(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "EISDIR") throw configError(path, ["is a directory, expected a YAML file"]);
    throw configError(path, [`cannot read: ${(error as Error).message}`]);
  }
}
