import { open } from "node:fs/promises";
import { inflateRawSync } from "node:zlib";
import { formatBytes } from "../format-bytes.ts";
import { ArchiveError } from "./archive-error.ts";
import { MAX_ARCHIVE_ENTRIES, MAX_COMPRESSION_RATIO, MAX_DOCUMENT_BYTES, MAX_MEMBER_BYTES, RATIO_EXEMPT_BYTES } from "./limits.ts";

/** Reads `length` bytes at `offset`; short at the end of the data. */
export interface RandomAccess {
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  directory: boolean;
}

export function bytesAccess(bytes: Uint8Array): RandomAccess {
  return { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, offset + length), close: async () => {} };
}

/** A file read by ranges: a zip's index and one member cost memory, never the whole archive. */
export async function fileAccess(path: string): Promise<RandomAccess> {
  const handle = await open(path, "r");
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const buffer = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      return buffer.subarray(0, bytesRead);
    },
    close: () => handle.close(),
  };
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** The end record (22 bytes) plus the longest comment. */
const EOCD_SEARCH = 22 + 0xffff;

/** The archive's entries, from its central directory (the end of the file; nothing is unpacked). */
export async function zipEntries(access: RandomAccess, name: string): Promise<ZipEntry[]> {
  const tailStart = Math.max(0, access.size - EOCD_SEARCH);
  const tail = await access.read(tailStart, access.size - tailStart);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let eocd = -1;
  for (let at = tail.length - 22; at >= 0; at--) {
    if (view.getUint32(at, true) === EOCD_SIGNATURE) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new ArchiveError("corrupt", `${name} is not a readable zip archive (no end-of-directory record); it may be truncated or another format.`);
  const count = view.getUint16(eocd + 10, true);
  const dirSize = view.getUint32(eocd + 12, true);
  const dirOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || dirOffset === 0xffffffff) {
    throw new ArchiveError("unsupported", `${name} is a ZIP64 archive, which omp does not read; list it with bash (unzip -l).`);
  }
  if (count > MAX_ARCHIVE_ENTRIES) throw new ArchiveError("too-large", `${name} has ${count} entries, over the limit of ${MAX_ARCHIVE_ENTRIES}; use bash (unzip -l) instead.`);
  if (dirOffset + dirSize > access.size) throw new ArchiveError("corrupt", `${name} is corrupt: its directory points past the end of the file.`);
  const dir = await access.read(dirOffset, dirSize);
  const dv = new DataView(dir.buffer, dir.byteOffset, dir.byteLength);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > dir.length || dv.getUint32(at, true) !== CENTRAL_SIGNATURE) throw new ArchiveError("corrupt", `${name} is corrupt: entry ${i + 1} of its directory is damaged.`);
    const nameLength = dv.getUint16(at + 28, true);
    const extraLength = dv.getUint16(at + 30, true);
    const commentLength = dv.getUint16(at + 32, true);
    const entryName = new TextDecoder().decode(dir.subarray(at + 46, at + 46 + nameLength));
    entries.push({
      name: entryName,
      method: dv.getUint16(at + 10, true),
      compressedSize: dv.getUint32(at + 20, true),
      size: dv.getUint32(at + 24, true),
      localOffset: dv.getUint32(at + 42, true),
      directory: entryName.endsWith("/"),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * One member's bytes, unpacked in memory with its declared size as a hard cap (a member that
 * lies about its size fails instead of growing), refused past MAX_MEMBER_BYTES or a zip bomb's ratio.
 */
export async function readZipEntry(access: RandomAccess, entry: ZipEntry, archiveName: string, maxBytes = MAX_MEMBER_BYTES): Promise<Uint8Array> {
  const label = `${archiveName}:${entry.name}`;
  if (entry.size > RATIO_EXEMPT_BYTES && entry.size > entry.compressedSize * MAX_COMPRESSION_RATIO) {
    throw new ArchiveError("bomb", `${label} refused: it unpacks from ${formatBytes(entry.compressedSize)} to ${formatBytes(entry.size)} (over 1:${MAX_COMPRESSION_RATIO}), which is how zip bombs look.`);
  }
  if (entry.size > maxBytes) throw new ArchiveError("too-large", `${label} unpacks to ${formatBytes(entry.size)}, over the ${formatBytes(maxBytes)} limit for one member; extract it with bash (unzip -p) if you need it.`);
  const local = await access.read(entry.localOffset, 30);
  const lv = new DataView(local.buffer, local.byteOffset, local.byteLength);
  if (local.length < 30 || lv.getUint32(0, true) !== LOCAL_SIGNATURE) throw new ArchiveError("corrupt", `${label}: the archive is corrupt (bad local header).`);
  const dataStart = entry.localOffset + 30 + lv.getUint16(26, true) + lv.getUint16(28, true);
  const packed = await access.read(dataStart, entry.compressedSize);
  if (packed.length < entry.compressedSize) throw new ArchiveError("corrupt", `${label}: the archive is truncated.`);
  if (entry.method === 0) return packed;
  if (entry.method !== 8) throw new ArchiveError("unsupported", `${label} uses compression method ${entry.method}, which omp does not read (only stored and deflated members); use bash (unzip -p).`);
  try {
    return inflateRawSync(packed, { maxOutputLength: Math.max(1, entry.size) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_BUFFER_TOO_LARGE") throw new ArchiveError("bomb", `${label} refused: it unpacks to more than the ${formatBytes(entry.size)} its header declares, which is how zip bombs look.`);
    throw new ArchiveError("corrupt", `${label}: the member is corrupt (${(error as Error).message}).`);
  }
}

/** A document's members, read by name within the archive limits and MAX_DOCUMENT_BYTES in all. */
export interface ZipMembers {
  names: string[];
  read(member: string): Promise<Uint8Array | undefined>;
  /** Unpacks every member once within the limits, keeping none: for a reader (mammoth) that unpacks the whole archive itself. */
  checkAll(): Promise<void>;
}

/**
 * Opens a zip held in memory (a document: docx, pptx, xlsx, epub) and returns a reader of its
 * members by name. A document whose members declare more than MAX_DOCUMENT_BYTES in all is
 * refused before anything is inflated; reads past it in all are refused as they happen.
 */
export async function zipMembers(bytes: Uint8Array, name: string): Promise<ZipMembers> {
  const access = bytesAccess(bytes);
  const entries = await zipEntries(access, name);
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0);
  const overDocument = (size: string) =>
    new ArchiveError("too-large", `${name} refused: its members unpack to ${size}, over the ${formatBytes(MAX_DOCUMENT_BYTES)} limit for one document; extract what you need with bash (unzip -p).`);
  if (declared > MAX_DOCUMENT_BYTES) throw overDocument(formatBytes(declared));
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  let total = 0;
  const unpack = async (entry: ZipEntry) => {
    const data = await readZipEntry(access, entry, name);
    total += data.length;
    if (total > MAX_DOCUMENT_BYTES) throw overDocument(`more than ${formatBytes(total)}`);
    return data;
  };
  return {
    names: entries.map((entry) => entry.name),
    async read(member) {
      const entry = byName.get(member);
      return entry ? unpack(entry) : undefined;
    },
    async checkAll() {
      for (const entry of entries) if (!entry.directory) await unpack(entry);
      total = 0;
    },
  };
}
