import { readFileSync } from "node:fs";
import { type TarEntry, readTar } from "../../embed/tar.ts";
import { OmpError } from "../errors/omp-error.ts";

/**
 * Release archives and bundles, read with the strict tar reader the natives loader uses: plain
 * files and directories only, no absolute paths, no `..`. Only the files asked for are taken out,
 * and only into places the caller chooses.
 */

const GZIP_MAGIC = [0x1f, 0x8b];

export function isGzip(path: string): boolean {
  const head = readFileSync(path).subarray(0, 2);
  return head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}

/** The plain files of a .tar.gz, by their path inside it. */
export function readTarGz(path: string, what: string): Map<string, Uint8Array> {
  let entries: TarEntry[];
  try {
    entries = readTar(Bun.gunzipSync(readFileSync(path)));
  } catch (error) {
    throw new OmpError(`${what} is not a readable .tar.gz (${(error as Error).message}); it is damaged or truncated`);
  }
  const files = new Map<string, Uint8Array>();
  for (const entry of entries) {
    const name = entry.name.replace(/^\.\//, "");
    if (name.startsWith("/") || name.split("/").includes("..")) throw new OmpError(`${what} holds an unsafe path ${JSON.stringify(entry.name)}; refusing it`);
    if (entry.type === "directory") continue;
    if (entry.type !== "file") throw new OmpError(`${what} holds ${JSON.stringify(entry.name)}, which is not a plain file; refusing it`);
    files.set(name, entry.data);
  }
  return files;
}

/** The one file whose base name is `name`, at the top or one directory down (archives have a top-level dir). */
export function findEntry(files: Map<string, Uint8Array>, name: string): Uint8Array | undefined {
  for (const [path, data] of files) {
    const parts = path.split("/");
    if (parts.length <= 2 && parts.at(-1) === name) return data;
  }
  return undefined;
}
