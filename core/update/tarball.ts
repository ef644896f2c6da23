import { closeSync, openSync, readSync } from "node:fs";
import { TAR_BLOCK, type TarHeader, parseTarHeader } from "../natives/tar.ts";
import { OmpError, describeError } from "../errors/omp-error.ts";

/**
 * Release archives and bundles, read with the strict tar header parser the natives loader uses:
 * plain files and directories only, no absolute paths, no `..`. The archive is streamed through
 * gunzip, never held whole: only the files asked for are kept, and limits on the compressed size,
 * the uncompressed size and the entry count stop a gzip bomb long before it fills the memory.
 */

export interface ArchiveLimits {
  compressedBytes: number;
  uncompressedBytes: number;
  entries: number;
  /** A file that is kept is held in memory: the binary is the biggest. */
  keptFileBytes: number;
}

/** A release archive is one binary of ~120 MB and a few small files. */
export const RELEASE_ARCHIVE_LIMITS: ArchiveLimits = { compressedBytes: 1024 ** 3, uncompressedBytes: 1024 ** 3, entries: 1000, keptFileBytes: 384 * 1024 ** 2 };

const GZIP_MAGIC = [0x1f, 0x8b];

/** Whether the (regular) file at `path` starts like a gzip stream; reads two bytes. */
export function isGzip(path: string): boolean {
  const head = new Uint8Array(2);
  const fd = openSync(path, "r");
  try {
    readSync(fd, head, 0, 2, 0);
  } finally {
    closeSync(fd);
  }
  return head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}

export interface TarGzContents {
  /** The kept files, by their path inside the archive (without a leading `./`). */
  files: Map<string, Uint8Array>;
  /** Every plain file's path, for messages about what the archive holds instead. */
  names: string[];
}

const mb = (bytes: number) => (bytes >= 1024 ** 2 ? `${Math.round(bytes / 1024 ** 2)} MiB` : `${bytes} bytes`);

/** The entry being read: its data when it is kept, and how far into its padded blocks we are. */
interface Current {
  name: string;
  size: number;
  padded: number;
  offset: number;
  data: Uint8Array | null;
}

/**
 * The plain files of the .tar.gz at `path` whose base name is in `wanted`, at the top or one
 * directory down (archives have a top-level dir). Refuses unsafe or odd entries and anything past
 * `limits`, with `what` naming the archive in the message.
 */
export async function readTarGz(path: string, what: string, wanted: readonly string[], limits: ArchiveLimits = RELEASE_ARCHIVE_LIMITS): Promise<TarGzContents> {
  const size = Bun.file(path).size;
  if (size > limits.compressedBytes) throw new OmpError(`${what} is ${mb(size)}, over the ${mb(limits.compressedBytes)} a release archive may be; refusing it`);
  const refuse = (why: string) => new OmpError(`${what} ${why}; refusing it`);
  const contents: TarGzContents = { files: new Map(), names: [] };
  const header = new Uint8Array(TAR_BLOCK);
  let headerFilled = 0;
  let current: Current | null = null;
  let total = 0;
  let entries = 0;
  let ended = false;

  const startEntry = (parsed: TarHeader) => {
    if (++entries > limits.entries) throw refuse(`holds more than ${limits.entries} entries`);
    const name = parsed.name.replace(/^\.\//, "");
    if (name.startsWith("/") || name.split("/").includes("..")) throw refuse(`holds an unsafe path ${JSON.stringify(parsed.name)}`);
    if (parsed.type !== "file" && parsed.type !== "directory") throw refuse(`holds ${JSON.stringify(parsed.name)}, which is not a plain file`);
    if (total + parsed.size > limits.uncompressedBytes) {
      throw refuse(`unpacks to more than ${mb(limits.uncompressedBytes)} (entry ${JSON.stringify(parsed.name)} alone claims ${mb(parsed.size)}): it is damaged or a decompression bomb`);
    }
    const parts = name.split("/");
    const keep = parsed.type === "file" && parts.length <= 2 && wanted.includes(parts.at(-1)!);
    if (keep && parsed.size > limits.keptFileBytes) {
      throw refuse(`holds ${JSON.stringify(parsed.name)} of ${mb(parsed.size)}, more than the ${mb(limits.keptFileBytes)} any omp release file has: it is damaged or a decompression bomb`);
    }
    if (parsed.type === "file") contents.names.push(name);
    const padded = Math.ceil(parsed.size / TAR_BLOCK) * TAR_BLOCK;
    current = { name, size: parsed.size, padded, offset: 0, data: keep ? new Uint8Array(parsed.size) : null };
    if (padded === 0) finishEntry();
  };
  const finishEntry = () => {
    if (current?.data) contents.files.set(current.name, current.data);
    current = null;
  };

  const consume = (chunk: Uint8Array) => {
    let at = 0;
    while (at < chunk.length && !ended) {
      if (current === null) {
        const take = Math.min(TAR_BLOCK - headerFilled, chunk.length - at);
        header.set(chunk.subarray(at, at + take), headerFilled);
        headerFilled += take;
        at += take;
        if (headerFilled < TAR_BLOCK) return;
        headerFilled = 0;
        total += TAR_BLOCK;
        const parsed = parseTarHeader(header, total - TAR_BLOCK);
        if (parsed === null) ended = true;
        else startEntry(parsed);
        continue;
      }
      const entry: Current = current;
      const take = Math.min(entry.padded - entry.offset, chunk.length - at);
      if (entry.data && entry.offset < entry.size) entry.data.set(chunk.subarray(at, at + Math.min(take, entry.size - entry.offset)), entry.offset);
      entry.offset += take;
      total += take;
      at += take;
      if (entry.offset === entry.padded) finishEntry();
    }
  };

  const reader = Bun.file(path).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  try {
    while (!ended) {
      const { done, value } = await reader.read();
      if (done) break;
      consume(value);
    }
  } catch (error) {
    if (error instanceof OmpError) throw error;
    throw new OmpError(`${what} is not a readable .tar.gz (${describeError(error)}); it is damaged or truncated`);
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (!ended) throw new OmpError(`${what} is not a readable .tar.gz (truncated tar archive: no end-of-archive marker); it is damaged or truncated`);
  return contents;
}

/** The one file whose base name is `name`, at the top or one directory down (archives have a top-level dir). */
export function findEntry(files: Map<string, Uint8Array>, name: string): Uint8Array | undefined {
  for (const [path, data] of files) {
    const parts = path.split("/");
    if (parts.length <= 2 && parts.at(-1) === name) return data;
  }
  return undefined;
}
