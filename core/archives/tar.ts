import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { createGunzip } from "node:zlib";
import { formatBytes } from "../format-bytes.ts";
import { ArchiveError } from "./archive-error.ts";
import { MAX_ARCHIVE_ENTRIES, MAX_COMPRESSION_RATIO, MAX_MEMBER_BYTES } from "./limits.ts";

/**
 * A tar read header by header, skipping members' data: a plain .tar seeks past it, so a 2 GB
 * archive (or a 2 GB sparse file of zeros) costs a few reads; a .tar.gz streams through gunzip
 * with a cap on what it unpacks. node-tar's reader was measured buffering a 2 GB sparse .tar into
 * 6.5 GB of memory for 211 s, which a read tool cannot afford.
 */
export interface TarMember {
  name: string;
  size: number;
  type: "file" | "directory" | "other";
}

/** A .tar.gz stops being read past this many unpacked bytes: indexing is for looking, not unpacking. */
const MAX_GZIP_STREAM_BYTES = 2 * 1024 * 1024 * 1024;
const BLOCK = 512;

interface Source {
  /** Exactly `length` bytes, or fewer at the end. */
  read(length: number): Promise<Uint8Array>;
  skip(length: number): Promise<void>;
  close(): Promise<void>;
}

async function plainSource(path: string): Promise<Source> {
  const handle = await open(path, "r");
  let position = 0;
  return {
    async read(length) {
      const buffer = new Uint8Array(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      position += bytesRead;
      return buffer.subarray(0, bytesRead);
    },
    async skip(length) {
      position += length;
    },
    close: () => handle.close(),
  };
}

function gzipSource(path: string, name: string, packedSize: number): Source {
  const file = createReadStream(path);
  const gunzip = createGunzip();
  const chunks = file.pipe(gunzip)[Symbol.asyncIterator]();
  let pending: Uint8Array = new Uint8Array(0);
  let unpacked = 0;
  const more = async (): Promise<boolean> => {
    let next: IteratorResult<Buffer>;
    try {
      next = await chunks.next();
    } catch (error) {
      throw new ArchiveError("corrupt", `${name} is not a readable gzip stream (${(error as Error).message}).`, { cause: error });
    }
    if (next.done) return false;
    unpacked += next.value.length;
    if (unpacked > MAX_GZIP_STREAM_BYTES || (unpacked > MAX_MEMBER_BYTES && unpacked > packedSize * MAX_COMPRESSION_RATIO)) {
      throw new ArchiveError("bomb", `${name} unpacks to more than ${formatBytes(unpacked)} from ${formatBytes(packedSize)}, which is how decompression bombs look (or it is too big to look into); list it with bash (tar tzf) if you trust it.`);
    }
    pending = pending.length === 0 ? next.value : Buffer.concat([pending, next.value]);
    return true;
  };
  return {
    async read(length) {
      while (pending.length < length && (await more()));
      const out = pending.subarray(0, length);
      pending = pending.subarray(out.length);
      return out;
    },
    async skip(length) {
      let left = length;
      for (;;) {
        const dropped = Math.min(left, pending.length);
        pending = pending.subarray(dropped);
        left -= dropped;
        if (left === 0 || !(await more())) return;
      }
    },
    async close() {
      file.destroy();
      gunzip.destroy();
    },
  };
}

const text = (bytes: Uint8Array) => {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
};

function octal(bytes: Uint8Array): number {
  // GNU base-256 for sizes past 8 GB: the high bit of the first byte is set.
  if (bytes[0]! & 0x80) {
    let value = bytes[0]! & 0x7f;
    for (const byte of bytes.subarray(1)) value = value * 256 + byte;
    return value;
  }
  const digits = text(bytes).trim();
  return digits === "" ? 0 : Number.parseInt(digits, 8);
}

function checksumOk(header: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return sum === octal(header.subarray(148, 156));
}

/**
 * Walks the archive's members; `visit` returns "read" to receive a member's bytes (then the walk
 * stops). GNU long names (L) and pax paths (x) are applied to the member they precede.
 */
export async function walkTar(path: string, name: string, packedSize: number, visit: (member: TarMember) => "read" | "skip", onData?: (data: Uint8Array) => void): Promise<void> {
  const source = /\.(tgz|tar\.gz)$/i.test(path) ? gzipSource(path, name, packedSize) : await plainSource(path);
  try {
    let longName: string | undefined;
    for (let count = 0; ; ) {
      const header = await source.read(BLOCK);
      if (header.length < BLOCK || header.every((byte) => byte === 0)) return;
      if (!checksumOk(header)) {
        if (count === 0) throw new ArchiveError("corrupt", `${name} is not a tar archive (its first header's checksum is wrong); it may be another format.`);
        throw new ArchiveError("corrupt", `${name} is corrupt after ${count} members (a header's checksum is wrong).`);
      }
      const size = octal(header.subarray(124, 136));
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      const flag = String.fromCharCode(header[156]!);
      if (flag === "L" || flag === "x") {
        if (size > 1024 * 1024) throw new ArchiveError("corrupt", `${name} is corrupt (a ${formatBytes(size)} name record).`);
        const data = await source.read(padded);
        const value = flag === "L" ? text(data.subarray(0, size)) : /(?:^|\n)\d+ path=([^\n]*)\n/.exec(new TextDecoder().decode(data.subarray(0, size)))?.[1];
        if (value) longName = value;
        continue;
      }
      const prefix = header[257] === 0x75 ? text(header.subarray(345, 500)) : "";
      const memberName = longName ?? (prefix ? `${prefix}/${text(header.subarray(0, 100))}` : text(header.subarray(0, 100)));
      longName = undefined;
      if (++count > MAX_ARCHIVE_ENTRIES) throw new ArchiveError("too-large", `${name} has more than ${MAX_ARCHIVE_ENTRIES} entries; list it with bash (tar tf) instead.`);
      const type = flag === "0" || flag === "\0" || flag === "7" ? "file" : flag === "5" ? "directory" : "other";
      if (visit({ name: memberName, size, type }) === "read") {
        onData?.(await source.read(size));
        return;
      }
      await source.skip(padded);
    }
  } finally {
    await source.close();
  }
}
