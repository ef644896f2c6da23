import { createWriteStream } from "node:fs";
import { createGzip } from "node:zlib";
import { writeTar } from "../../release/tar-writer.ts";

/**
 * A tar header for `name` that claims `size` bytes of data, whatever follows it: the first block
 * of a decompression bomb.
 */
export function claimingHeader(name: string, size: number): Uint8Array {
  const block = writeTar([{ name: "x", data: new Uint8Array(0), mode: 0o755 }], 0).slice(0, 512);
  block.fill(0, 0, 100);
  block.set(new TextEncoder().encode(name), 0);
  block.set(new TextEncoder().encode(size.toString(8).padStart(11, "0")), 124);
  block.fill(0x20, 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  block.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
  return block;
}

/**
 * Writes `parts` (bytes as they are, numbers as that many zero bytes) gzipped as they stream to
 * `path`, as one gzip member: megabytes on disk, gigabytes unpacked.
 */
export async function writeGzipBomb(path: string, parts: (Uint8Array | number)[]): Promise<void> {
  const gzip = createGzip({ level: 1 });
  const done = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on("finish", resolve);
    out.on("error", reject);
    gzip.pipe(out);
  });
  const chunk = Buffer.alloc(4 * 1024 * 1024);
  for (const part of parts) {
    if (typeof part !== "number") {
      gzip.write(part);
      continue;
    }
    for (let left = part; left > 0; left -= chunk.length) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      if (!gzip.write(piece)) await new Promise((resolve) => gzip.once("drain", resolve));
    }
  }
  gzip.end();
  await done;
}
