import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { OmpError } from "../errors/omp-error.ts";
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

/** A config file is a page or two; a bigger one is a mistake or an attack on the parser. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export function tooBig(path: string, size: number): OmpError {
  return configError(path, [`refused: it is ${size} bytes, over the ${MAX_CONFIG_BYTES / 1024} KiB a config file may have`]);
}

/** The file's exact bytes (what the config cache hashes), or undefined when it does not exist. */
export function readConfigBytes(path: string): Buffer | undefined {
  try {
    return readAtMost(path);
  } catch (error) {
    if (error instanceof OmpError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "EISDIR") throw configError(path, ["is a directory, expected a YAML file"]);
    throw configError(path, [`cannot read: ${(error as Error).message}`]);
  }
}

/** Reads the file but never more than the cap: neither a huge file nor a device (/dev/zero never ends) fills the memory. */
function readAtMost(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_CONFIG_BYTES) throw tooBig(path, size);
    // One byte more than the stat says, so the usual file is read in one call and its end seen in the next.
    let buffer = Buffer.allocUnsafe(size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > MAX_CONFIG_BYTES) throw tooBig(path, length);
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2 + 4096, MAX_CONFIG_BYTES + 1));
        buffer.copy(grown);
        buffer = grown;
      }
      const got = readSync(fd, buffer, length, buffer.length - length, null);
      if (got === 0) return buffer.subarray(0, length);
      length += got;
    }
  } finally {
    closeSync(fd);
  }
}
