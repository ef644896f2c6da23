import { fstatSync, openSync, closeSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { constants, inflateSync } from "node:zlib";

/**
 * Reads, without starting git, what a command's checkpoint needs from the private index and the
 * object store: each entry's stat data and blob (work-tree-stat.ts compares the files with them),
 * and a blob's bytes when it is a loose object (the index's own updates write loose objects, so a
 * file changed again is one). Anything this reader does not know (a split or sparse index, a
 * packed object) is left to git.
 */

/** git's offset varint (index v4's prefix lengths). */
function varint(data: Buffer, at: number): [number, number] {
  let byte = data[at++]!;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = data[at++]!;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return [value, at];
}

/**
 * Calls `visit` with each entry of an index file's bytes (offset, name, mode, stage, and whether git
 * keeps it without looking at the file: assume-unchanged, skip-worktree, intent-to-add); false
 * when they cannot be read this way.
 */
function eachEntry(data: Buffer, hashBytes: number, visit: (at: number, name: Buffer, mode: number, stage: number, unlooked: boolean) => void): boolean {
  if (data.length < 12 || data.toString("latin1", 0, 4) !== "DIRC") return false;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return false;
  const count = data.readUInt32BE(8);
  let at = 12;
  let previous: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  const end = data.length - hashBytes;
  for (let i = 0; i < count; i++) {
    const fixed = 40 + hashBytes + 2;
    if (at + fixed > end) return false;
    const mode = data.readUInt32BE(at + 24);
    const flags = data.readUInt16BE(at + 40 + hashBytes);
    const extended = version >= 3 && (flags & 0x4000) !== 0;
    const nameAt = at + fixed + (extended ? 2 : 0);
    let name: Buffer<ArrayBufferLike>;
    let next: number;
    if (version === 4) {
      const [strip, suffixAt] = varint(data, nameAt);
      const nul = data.indexOf(0, suffixAt);
      if (nul < 0 || strip > previous.length) return false;
      name = Buffer.concat([previous.subarray(0, previous.length - strip), data.subarray(suffixAt, nul)]);
      next = nul + 1;
    } else {
      const nul = data.indexOf(0, nameAt);
      if (nul < 0) return false;
      name = data.subarray(nameAt, nul);
      next = at + ((nameAt - at + name.length + 8) & ~7);
    }
    // A sparse index's directory entry stands for files this reader cannot see.
    if ((mode & 0o170000) === 0o040000) return false;
    const unlooked = (flags & 0x8000) !== 0 || (extended && (data.readUInt16BE(at + fixed) & 0x6000) !== 0);
    visit(at, name, mode, (flags >> 12) & 3, unlooked);
    previous = name;
    at = next;
  }
  // A split index keeps most entries in a shared file ("link"); a sparse one ("sdir") some in trees.
  while (at + 8 <= end) {
    const signature = data.toString("latin1", at, at + 4);
    if (signature === "link" || signature === "sdir") return false;
    at += 8 + data.readUInt32BE(at + 4);
  }
  return true;
}

/** An entry's stat data as git recorded it (times in ns; size and inode cut to 32 bits, as git keeps them) and its blob. */
export interface IndexStat {
  ctimeNs: bigint;
  mtimeNs: bigint;
  ino: number;
  mode: number;
  size: number;
  oid: string;
}

/**
 * Every stage-0 entry of the index file at `path` with its stat data, the paths git keeps without
 * looking at the files (submodules, skip-worktree and the like: `opaque`), and when the file was
 * written; undefined when it cannot be read this way.
 */
export function indexStats(path: string, hashBytes: number): { entries: Map<string, IndexStat>; opaque: string[]; writtenNs: bigint } | undefined {
  let data: Buffer;
  let writtenNs: bigint;
  try {
    const fd = openSync(path, "r");
    try {
      writtenNs = fstatSync(fd, { bigint: true }).mtimeNs;
      data = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const entries = new Map<string, IndexStat>();
  const opaque: string[] = [];
  const ns = (at: number) => BigInt(data.readUInt32BE(at)) * 1_000_000_000n + BigInt(data.readUInt32BE(at + 4));
  const read = eachEntry(data, hashBytes, (at, name, mode, stage, unlooked) => {
    if (stage !== 0) return;
    const key = name.toString("utf8");
    if (unlooked || (mode & 0o170000) === 0o160000) opaque.push(key);
    else entries.set(key, { ctimeNs: ns(at), mtimeNs: ns(at + 8), ino: data.readUInt32BE(at + 20), mode, size: data.readUInt32BE(at + 36), oid: data.toString("hex", at + 40, at + 40 + hashBytes) });
  });
  return read ? { entries, opaque, writtenNs } : undefined;
}

/**
 * A loose blob's bytes; "too-big" past `maxBytes` (never inflated further than that); undefined
 * when it is not a loose blob here (packed, or in an alternate store).
 */
export function looseBlob(objectsDir: string, name: string, maxBytes: number): Buffer | "too-big" | undefined {
  let raw: Buffer;
  try {
    raw = readFileSync(join(objectsDir, name.slice(0, 2), name.slice(2)));
  } catch {
    return undefined;
  }
  let object: Buffer;
  try {
    // The header says the size: a blob past the limit is never inflated at all.
    const head = /^blob (\d+)\0/.exec(inflateSync(raw.subarray(0, 64), { finishFlush: constants.Z_SYNC_FLUSH }).toString("latin1", 0, 32));
    if (head && Number(head[1]) > maxBytes) return "too-big";
    object = inflateSync(raw, { maxOutputLength: maxBytes + 32 });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? "too-big" : undefined;
  }
  const nul = object.indexOf(0);
  const header = /^blob (\d+)$/.exec(object.toString("latin1", 0, Math.max(nul, 0)));
  if (nul < 0 || !header || Number(header[1]) !== object.length - nul - 1) return undefined;
  return Number(header[1]) > maxBytes ? "too-big" : object.subarray(nul + 1);
}
