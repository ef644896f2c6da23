import { fstatSync, openSync, closeSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";

/**
 * Reads, without starting git, what a command's checkpoint needs from the private index and the
 * object store: the blob each changed path had, and that blob's bytes when it is a loose object
 * (the index's own updates write loose objects, so a file changed again is one). Anything this
 * reader does not know (a split or sparse index, a packed object) is left to git.
 */

/** A path's stage-0 entry: its blob, or "gitlink" for a submodule's commit (no content to keep). */
export type IndexEntry = string | "gitlink";

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
 * The stage-0 entries for `wanted` in the index file at `path` (a wanted path absent from the map
 * has none); undefined when the file cannot be read this way, so the caller asks git instead.
 */
export function indexEntries(path: string, wanted: ReadonlySet<string>, hashBytes: number): Map<string, IndexEntry> | undefined {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return undefined;
  }
  const found = new Map<string, IndexEntry>();
  const read = eachEntry(data, hashBytes, (at, name, mode, stage) => {
    if (stage !== 0) return;
    const key = name.toString("utf8");
    if (wanted.has(key)) found.set(key, (mode & 0o170000) === 0o160000 ? "gitlink" : data.toString("hex", at + 40, at + 40 + hashBytes));
  });
  return read ? found : undefined;
}

/**
 * Whether the index file at `path` holds an entry git must read the file of on every listing: one
 * whose file was modified in the second the index was written, or later ("racily clean"; git keeps
 * it so until the index is written again in a later second). Unreadable counts as racy.
 */
export function racyIndex(path: string, hashBytes: number): boolean {
  let data: Buffer;
  let written: number;
  try {
    const fd = openSync(path, "r");
    try {
      written = Math.floor(fstatSync(fd).mtimeMs / 1000);
      data = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return true;
  }
  let racy = false;
  const read = eachEntry(data, hashBytes, (at) => {
    if (data.readUInt32BE(at + 8) >= written) racy = true;
  });
  return !read || racy;
}

/** Calls `visit` with each entry of an index file's bytes (offset, name, mode, stage); false when they cannot be read this way. */
function eachEntry(data: Buffer, hashBytes: number, visit: (at: number, name: Buffer, mode: number, stage: number) => void): boolean {
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
    visit(at, name, mode, (flags >> 12) & 3);
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
    object = inflateSync(raw, { maxOutputLength: maxBytes + 32 });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? "too-big" : undefined;
  }
  const nul = object.indexOf(0);
  const header = /^blob (\d+)$/.exec(object.toString("latin1", 0, Math.max(nul, 0)));
  if (nul < 0 || !header || Number(header[1]) !== object.length - nul - 1) return undefined;
  return Number(header[1]) > maxBytes ? "too-big" : object.subarray(nul + 1);
}
