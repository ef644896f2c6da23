import { createReadStream, openSync, readSync, closeSync, readdirSync } from "node:fs";
import { once } from "node:events";
import { posix } from "node:path";
import { createGunzip } from "node:zlib";
import { OmpError } from "../errors/omp-error.ts";
import { formatBytes } from "../http/body-limit.ts";
import type { PluginLimits } from "./limits.ts";
import { PluginLimitError } from "./limit-error.ts";

function escapes(path: string): boolean {
  const normal = posix.normalize(path.replace(/\\/g, "/"));
  return posix.isAbsolute(normal) || normal === ".." || normal.startsWith("../") || /^[A-Za-z]:/.test(path);
}


/** What the tar parser needs of its input: node-tar's Parser and Unpack both take writes with back-pressure. */
interface TarSink {
  write(chunk: Buffer): boolean;
  end(): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
}

function isGzip(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/**
 * Streams the archive into `sink` in small pieces, inflating as it goes: never more than a chunk
 * of it is in memory, and it stops as soon as the total or the compression ratio passes its limit.
 */
async function pump(file: string, sink: TarSink, limits: PluginLimits): Promise<void> {
  const raw = createReadStream(file, { highWaterMark: 64 * 1024 });
  let packed = 0;
  raw.on("data", (chunk) => (packed += chunk.length));
  const source = isGzip(file) ? raw.pipe(createGunzip({ chunkSize: 64 * 1024 })) : raw;
  // The first error of any of them stops the loop below, which rethrows it: a refusal the sink
  // raised mid-write (an entry over a limit) must not surface as an unhandled rejection.
  let failed: unknown;
  const ended = new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      failed ??= error;
      reject(error);
    };
    sink.on("error", fail);
    sink.on("end", resolve);
    raw.on("error", fail);
    source.on("error", fail);
  });
  ended.catch(() => undefined);
  let unpacked = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (failed) throw failed;
      unpacked += chunk.length;
      if (unpacked > limits.maxBytes) throw new PluginLimitError("plugins.maxSizeMB", limits.maxBytes, `it unpacks to more than ${formatBytes(limits.maxBytes)}`);
      if (unpacked > 1024 * 1024 && unpacked / Math.max(1, packed) > limits.maxCompressionRatio) {
        throw new PluginLimitError(
          "plugins.maxCompressionRatio",
          limits.maxCompressionRatio,
          `it inflates more than ${limits.maxCompressionRatio} times (${formatBytes(unpacked)} from ${formatBytes(packed)} so far), as a decompression bomb does`,
        );
      }
      if (!sink.write(chunk)) await Promise.race([once(sink as unknown as NodeJS.EventEmitter, "drain"), ended]);
    }
    sink.end();
    await ended;
  } finally {
    raw.destroy();
    if (source !== raw) source.destroy();
  }
}

/**
 * Why an archive must not be unpacked: an entry with an absolute path or `..`, a link leading out
 * of the folder it unpacks into, a device or fifo, or more entries, bytes or inflation than a
 * plugin needs. Checked over the whole archive, streamed, before anything is written.
 */
async function problemsOf(file: string, strip: number, limits: PluginLimits): Promise<string[]> {
  const { Parser } = await import("tar");
  const problems: string[] = [];
  let entries = 0;
  let declared = 0;
  const parser = new Parser({
    strict: true,
    // The ratio is checked by pump(), against the setting; node-tar's own check would only add a second, fixed one.
    maxDecompressionRatio: Number.POSITIVE_INFINITY,
    onReadEntry: (entry) => {
      entries++;
      const path = entry.path;
      const inner = path.split("/").slice(strip).join("/");
      if (escapes(path) || path.split(/[\\/]/).includes("..")) problems.push(`${JSON.stringify(path)} leads outside the folder`);
      else if (entry.type === "SymbolicLink" || entry.type === "Link") {
        const target = entry.type === "SymbolicLink" ? posix.join(posix.dirname(inner), entry.linkpath ?? "") : (entry.linkpath ?? "").split("/").slice(strip).join("/");
        if (posix.isAbsolute(entry.linkpath ?? "") || escapes(target)) problems.push(`${JSON.stringify(path)} is a link to ${JSON.stringify(entry.linkpath)}, outside the folder`);
      } else if (!["File", "OldFile", "ContiguousFile", "Directory", "GNUDumpDir"].includes(entry.type) && !entry.meta) {
        problems.push(`${JSON.stringify(path)} is a ${entry.type}, not a file or folder`);
      }
      declared += entry.size ?? 0;
      entry.resume();
    },
  });
  parser.on("entry", () => {
    if (entries > limits.maxEntries) parser.emit("error", new PluginLimitError("plugins.maxEntries", limits.maxEntries, `it has more than ${limits.maxEntries} entries`));
    else if (declared > limits.maxBytes) parser.emit("error", new PluginLimitError("plugins.maxSizeMB", limits.maxBytes, `its entries claim more than ${formatBytes(limits.maxBytes)}`));
  });
  await pump(file, parser as unknown as TarSink, limits);
  return problems;
}

/** Unpacks a .tgz into `dest` (which must exist), dropping `strip` leading path parts, after checking every entry. */
export async function extractArchive(file: string, dest: string, what: string, strip = 1, limits?: PluginLimits): Promise<void> {
  const { pluginLimits } = await import("./limits.ts");
  const bounds = limits ?? pluginLimits();
  let problems: string[];
  try {
    problems = await problemsOf(file, strip, bounds);
  } catch (error) {
    if (error instanceof PluginLimitError) throw error.of(`${what} is too big to install and was not unpacked`);
    throw new OmpError(`${what} is not a readable .tgz (${(error as Error).message}); it is damaged or not an archive`);
  }
  if (problems.length > 0) throw new OmpError(`${what} is unsafe and was not unpacked: ${problems.slice(0, 3).join("; ")}`);
  const { Unpack } = await import("tar");
  const unpack = new Unpack({ cwd: dest, strip, preservePaths: false, preserveOwner: false, maxDecompressionRatio: Number.POSITIVE_INFINITY });
  try {
    await pump(file, unpack as unknown as TarSink, bounds);
  } catch (error) {
    if (error instanceof PluginLimitError) throw error.of(`${what} is too big to install`);
    throw error;
  }
}

/** Writes `dir`'s contents as a .tgz whose entries sit under `package/`, npm's layout. */
export async function packDirectory(dir: string, out: string): Promise<void> {
  const { c } = await import("tar");
  await c({ gzip: true, file: out, cwd: dir, prefix: "package", portable: true }, readdirSync(dir));
}
