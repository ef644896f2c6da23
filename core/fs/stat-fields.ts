import { lstatSync } from "node:fs";

/**
 * Stat data of many paths, one after another, without a Stats object (and its garbage) for each:
 * on Linux libc's statx writes into one buffer this reader owns; elsewhere, or when that cannot be
 * loaded, lstat does. A checkpoint compares every file of a work tree after each command
 * (core/session/checkpoints/work-tree-stat.ts): there the object per file was most of the cost.
 */

/** The fields git keeps of a file's stat data; times in milliseconds. */
export interface StatFields {
  mode: number;
  ino: number;
  size: number;
  ctimeMs: number;
  mtimeMs: number;
}

interface Statx {
  /** statx(2) on a NUL-terminated path at a fixed address, into {@link view}: true when it answered. */
  call(path: number): boolean;
  view: DataView;
  ptr(bytes: Uint8Array): number;
}

/** statx(2)'s buffer: 256 bytes, the same layout on every Linux architecture. */
const STATX_SIZE = 256;
const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const STATX_BASIC_STATS = 0x7ff;

let statx: Statx | null | undefined;

/** Bytes with an ArrayBuffer of their own: their address stays put while they live (a small typed array's may move). */
function fixed(length: number): Uint8Array {
  return new Uint8Array(new ArrayBuffer(length));
}

function loadStatx(): Statx | null {
  if (process.platform !== "linux") return null;
  try {
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const libc = dlopen("libc.so.6", { statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 } });
    const buffer = fixed(STATX_SIZE);
    const at = ptr(buffer);
    return { view: new DataView(buffer.buffer), ptr: (bytes) => ptr(bytes), call: (path) => libc.symbols.statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, at) === 0 };
  } catch {
    // Not glibc (musl, a static build): lstat it is.
    return null;
  }
}

/** A path as statx wants it (its bytes, NUL-terminated, and their address), made once per path. */
export interface EncodedPath {
  bytes: Uint8Array;
  at: number;
}

export function encodePath(path: string): EncodedPath | undefined {
  statx ??= loadStatx();
  if (!statx) return undefined;
  const text = Buffer.from(path);
  const bytes = fixed(text.length + 1);
  bytes.set(text);
  return { bytes, at: statx.ptr(bytes) };
}

const timeMs = (view: DataView, at: number) => (view.getUint32(at, true) + view.getInt32(at + 4, true) * 0x100000000) * 1000 + view.getUint32(at + 8, true) / 1e6;

/**
 * Reads the stat data of `path` (not following a symlink; `encoded` is {@link encodePath} of it)
 * into `into`, size and inode cut to 32 bits as git keeps them; false when nothing is there or it
 * cannot be read (the caller looks closer).
 */
export function readStatFields(path: string, encoded: EncodedPath | undefined, into: StatFields): boolean {
  if (statx && encoded) {
    if (!statx.call(encoded.at)) return false;
    const view = statx.view;
    into.mode = view.getUint16(28, true);
    into.ino = view.getUint32(32, true);
    into.size = view.getUint32(40, true);
    into.ctimeMs = timeMs(view, 96);
    into.mtimeMs = timeMs(view, 112);
    return true;
  }
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return false;
  into.mode = stat.mode;
  into.ino = stat.ino % 0x100000000;
  into.size = stat.size % 0x100000000;
  into.ctimeMs = stat.ctimeMs;
  into.mtimeMs = stat.mtimeMs;
  return true;
}
