import { closeSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { describeError } from "../errors/omp-error.ts";
import { formatBytes } from "../format-bytes.ts";

export const DEFAULT_MAX_LOG_BYTES = 50 * 1024 * 1024;

/** The disk is full: the caller ends the command, since nothing it prints can be kept. */
export class LogDiskFullError extends Error {
  override readonly name = "LogDiskFullError";
}

/**
 * A command's log file, never larger than `maxBytes` (plus a one-line marker): the first half is
 * written as it comes; past it, output goes to two tail segments of a quarter each, used in turn,
 * so the last quarter to half of the output is always on disk. `close` joins head, marker and tail.
 * Memory stays constant whatever the command prints.
 */
export class CappedLog {
  private written = 0;
  private total = 0;
  private segments: { fd: number; path: string; bytes: number }[] = [];
  private current = 0;
  private failure: string | undefined;

  constructor(
    private fd: number | undefined,
    readonly path: string,
    private readonly maxBytes: number = DEFAULT_MAX_LOG_BYTES,
  ) {}

  get totalBytes(): number {
    return this.total;
  }

  /** Why the log stopped being written, if it did. */
  get error(): string | undefined {
    return this.failure;
  }

  get capped(): boolean {
    return this.total > this.written;
  }

  /** Throws LogDiskFullError on ENOSPC/EDQUOT; other write errors stop the log and are kept in `error`. */
  write(bytes: Uint8Array): void {
    this.total += bytes.length;
    if (this.fd === undefined) return;
    const headRoom = Math.max(0, Math.floor(this.maxBytes / 2) - this.written);
    try {
      if (headRoom > 0) {
        const head = bytes.subarray(0, headRoom);
        writeAll(this.fd, head);
        this.written += head.length;
        bytes = bytes.subarray(head.length);
      }
      if (bytes.length > 0) this.writeTail(bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      this.failure = code === "ENOSPC" || code === "EDQUOT" ? `the disk holding ${this.path} is full` : `writing ${this.path} failed: ${describeError(error)}`;
      this.close();
      if (code === "ENOSPC" || code === "EDQUOT") throw new LogDiskFullError(this.failure);
    }
  }

  private writeTail(bytes: Uint8Array): void {
    const segmentMax = Math.max(1, Math.floor(this.maxBytes / 4));
    let segment = this.segments[this.current];
    if (!segment) {
      const path = `${this.path}.tail${this.current}`;
      segment = { fd: openSync(path, "w+", 0o600), path, bytes: 0 };
      this.segments[this.current] = segment;
    }
    if (segment.bytes + bytes.length > segmentMax && segment.bytes > 0) {
      // The other segment is older: it starts over and becomes the current one.
      this.current = 1 - this.current;
      const other = this.segments[this.current];
      if (other) {
        closeSync(other.fd);
        this.segments[this.current] = { fd: openSync(other.path, "w+", 0o600), path: other.path, bytes: 0 };
      }
      this.writeTail(bytes);
      return;
    }
    const keep = bytes.subarray(Math.max(0, bytes.length - segmentMax));
    writeAll(segment.fd, keep);
    segment.bytes += keep.length;
  }

  /** Joins the kept tail onto the head with a line saying how much was left out. Safe to call twice. */
  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    const order = [this.segments[1 - this.current], this.segments[this.current]].filter((s) => s !== undefined);
    this.segments = [];
    try {
      if (fd !== undefined && order.length > 0) {
        const tailBytes = order.reduce((sum, s) => sum + s.bytes, 0);
        const omitted = this.total - this.written - tailBytes;
        writeAll(
          fd,
          Buffer.from(
            `\n[... ${formatBytes(omitted)} (${omitted} bytes) omitted: this log keeps the first and last parts of ${formatBytes(this.total)} of output (cap bash.maxLogBytes = ${formatBytes(this.maxBytes)}) ...]\n`,
          ),
        );
        const buffer = Buffer.alloc(1 << 20);
        for (const segment of order) {
          for (let position = 0; position < segment.bytes; ) {
            const n = readSync(segment.fd, buffer, 0, Math.min(buffer.length, segment.bytes - position), position);
            if (n <= 0) break;
            writeAll(fd, buffer.subarray(0, n));
            position += n;
          }
        }
        this.written += tailBytes;
      }
    } catch (error) {
      this.failure ??= `finishing ${this.path} failed: ${describeError(error)}`;
    } finally {
      if (fd !== undefined) closeSync(fd);
      for (const segment of order) {
        closeSync(segment.fd);
        try {
          unlinkSync(segment.path);
        } catch {
          // Already gone.
        }
      }
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}
