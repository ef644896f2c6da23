import { mkdirSync, openSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describeError } from "../errors/omp-error.ts";
import { CappedLog, LogDiskFullError } from "./capped-log.ts";
import { formatBytes } from "../format-bytes.ts";
import { plural } from "../plural.ts";

export interface OutputLimits {
  headLines: number;
  tailLines: number;
  /** Characters kept from the start and from the end when output is cut. */
  headChars: number;
  tailChars: number;
}

export const BASH_OUTPUT_LIMITS: OutputLimits = { headLines: 200, tailLines: 400, headChars: 10_000, tailChars: 20_000 };

export interface CollectedOutput {
  text: string;
  truncated: boolean;
  totalBytes: number;
  totalLines: number;
  /** The complete output, when it was cut. */
  logPath?: string;
  /** Why the complete output could not be saved, when it was cut. */
  logError?: string;
  /** The log reached bash.maxLogBytes: it holds the head and the tail. */
  logCapped?: boolean;
  /** Writing the log hit a full disk (the command was ended for it). */
  diskFull?: boolean;
}

export interface LogOptions {
  /** bash.maxLogBytes. */
  maxLogBytes?: number;
  /** The disk filled up while logging: the caller ends the command. */
  onDiskFull?: () => void;
}

/** Creates `<dir>/<prefix>-<n>.log` with the next free n; `wx` makes concurrent callers pick different files. */
export function createNumberedLog(dir: string, prefix: string): { fd: number; path: string } {
  mkdirSync(dir, { recursive: true });
  const pattern = new RegExp(`^${prefix}-(\\d+)\\.log$`);
  let n = 1;
  for (const name of readdirSync(dir)) {
    const match = pattern.exec(name);
    if (match) n = Math.max(n, Number(match[1]) + 1);
  }
  for (;;) {
    const path = join(dir, `${prefix}-${n}.log`);
    try {
      return { fd: openSync(path, "wx", 0o600), path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      n++;
    }
  }
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** The first `lines` lines of `text`, at most `chars` characters. */
function headOf(text: string, lines: number, chars: number): string {
  let end = 0;
  for (let i = 0; i < lines; i++) {
    const newline = text.indexOf("\n", end);
    if (newline === -1) return text.slice(0, chars);
    end = newline + 1;
    if (end >= chars) break;
  }
  return text.slice(0, Math.min(end, chars));
}

/** The last `lines` lines of `text`, at most `chars` characters, starting at a line start when one is in reach. */
function tailOf(text: string, lines: number, chars: number): string {
  let start = text.length;
  // A final newline ends the last line rather than starting an empty one.
  let searchFrom = text.endsWith("\n") ? text.length - 2 : text.length - 1;
  for (let i = 0; i < lines; i++) {
    const newline = text.lastIndexOf("\n", searchFrom);
    if (newline === -1) {
      start = 0;
      break;
    }
    start = newline + 1;
    searchFrom = newline - 1;
    if (text.length - start >= chars) break;
  }
  if (text.length - start <= chars) return text.slice(start);
  const cut = text.length - chars - (text.endsWith("\n") ? 1 : 0);
  const lineStart = text.indexOf("\n", cut);
  return lineStart !== -1 && lineStart < text.length - 1 ? text.slice(lineStart + 1) : text.slice(cut);
}

/**
 * Collects a command's output for the model: all of it while it is small; once it is not, the
 * head and a rolling tail stay in memory and everything goes to a log file the model can read.
 */
export class OutputCollector {
  private readonly decoder = new TextDecoder();
  private text = "";
  private rawChunks: Uint8Array[] = [];
  private head: string | undefined;
  private tail = "";
  private log: CappedLog | undefined;
  private logError: string | undefined;
  private diskFull = false;
  private totalBytes = 0;
  private newlines = 0;
  private endsWithNewline = true;

  /** With a redactor, the log gets decoded text, redacted a whole line at a time; this is the unfinished last line. */
  private logPending = "";

  constructor(
    private readonly openLog: () => { fd: number; path: string },
    private readonly limits: OutputLimits = BASH_OUTPUT_LIMITS,
    /** Applied to what goes to the log file, so secrets in use never reach the disk. */
    private readonly redact?: (text: string) => string,
    private readonly logOptions: LogOptions = {},
  ) {}

  /** Bytes taken so far. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Takes raw bytes; returns them decoded, for streaming to a UI. */
  push(bytes: Uint8Array): string {
    const decoded = this.decoder.decode(bytes, { stream: true });
    this.account(bytes.length, decoded);
    if (this.head === undefined) {
      this.text += decoded;
      if (this.log) this.logChunk(bytes, decoded);
      else this.rawChunks.push(bytes.slice());
      if (this.overLimits()) this.spill();
    } else {
      this.logChunk(bytes, decoded);
      this.tail += decoded;
      if (this.tail.length > 4 * this.limits.tailChars) this.tail = tailOf(this.tail, this.limits.tailLines, this.limits.tailChars);
    }
    return decoded;
  }

  /**
   * Logs everything from the start rather than only once output is cut (jobs: the model may want
   * a server's whole log later). What came so far is written now.
   */
  startLog(): string | undefined {
    if (!this.log && !this.logError) {
      this.openCappedLog();
      if (this.redact) this.writeLogText(this.text);
      else for (const chunk of this.rawChunks) this.writeLog(chunk);
      this.rawChunks = [];
    }
    return this.logPath;
  }

  /** The log file, once there is one. */
  get logPath(): string | undefined {
    return this.log?.path;
  }

  finish(): CollectedOutput {
    const rest = this.decoder.decode();
    this.account(0, rest);
    if (this.head === undefined) this.text += rest;
    else this.tail += rest;
    if (this.redact && this.log) this.writeLogText(rest, true);
    this.log?.close();
    const logCapped = this.log?.capped ?? false;
    if (this.log?.error) this.logError = this.log.error;
    const totalLines = this.newlines + (this.endsWithNewline ? 0 : 1);
    const base = { totalBytes: this.totalBytes, totalLines };
    if (this.head === undefined) return { ...base, text: this.text, truncated: false, ...(this.log ? { logPath: this.log.path } : {}) };

    const tail = tailOf(this.tail, this.limits.tailLines, this.limits.tailChars);
    const shownLines = countNewlines(this.head) + countNewlines(tail) + (tail.endsWith("\n") ? 0 : 1);
    const omittedLines = Math.max(0, totalLines - shownLines);
    const where = !this.log
      ? `the full output could not be saved (${this.logError})`
      : this.diskFull
        ? `the log ${this.log.path} stopped when the disk filled up`
        : logCapped
          ? `the output (${plural(totalLines, "line")}, ${formatBytes(this.totalBytes)}) passed the log cap, so ${this.log.path} keeps only its first and last parts; read or grep it`
          : `the full output (${plural(totalLines, "line")}, ${formatBytes(this.totalBytes)}) is saved in ${this.log.path}; read or grep that file to see the rest`;
    const marker = `\n[... ${plural(omittedLines, "line")} omitted from the middle; ${where} ...]\n`;
    const head = this.head.endsWith("\n") ? this.head.slice(0, -1) : this.head;
    return { ...base, text: head + marker + tail, truncated: true, logPath: this.log?.path, logError: this.logError, logCapped, diskFull: this.diskFull };
  }

  private account(bytes: number, decoded: string): void {
    this.totalBytes += bytes;
    this.newlines += countNewlines(decoded);
    if (decoded.length > 0) this.endsWithNewline = decoded.endsWith("\n");
  }

  private overLimits(): boolean {
    const { headLines, tailLines, headChars, tailChars } = this.limits;
    return this.text.length > headChars + tailChars || this.newlines > headLines + tailLines;
  }

  /** Output will be cut from now on: fix the head, keep the rest as the tail, start the log. */
  private spill(): void {
    this.head = headOf(this.text, this.limits.headLines, this.limits.headChars);
    this.tail = this.text.slice(this.head.length);
    this.text = "";
    // A log started early (startLog) already has everything.
    if (this.log || this.logError) return;
    this.openCappedLog();
    if (this.redact) this.writeLogText(this.head + this.tail);
    else for (const chunk of this.rawChunks) this.writeLog(chunk);
    this.rawChunks = [];
  }

  private openCappedLog(): void {
    try {
      const { fd, path } = this.openLog();
      this.log = new CappedLog(fd, path, this.logOptions.maxLogBytes);
    } catch (error) {
      this.logError = describeError(error);
    }
  }

  private logChunk(bytes: Uint8Array, decoded: string): void {
    if (this.redact) this.writeLogText(decoded);
    else this.writeLog(bytes);
  }

  /** Secrets do not span lines: complete lines are redacted and written, the rest waits (up to 64 KiB). */
  private writeLogText(text: string, final = false): void {
    this.logPending += text;
    const cut = final || this.logPending.length > 65_536 ? this.logPending.length : this.logPending.lastIndexOf("\n") + 1;
    if (cut === 0) return;
    const ready = this.logPending.slice(0, cut);
    this.logPending = this.logPending.slice(cut);
    this.writeLog(Buffer.from(this.redact!(ready)));
  }

  private writeLog(bytes: Uint8Array): void {
    if (!this.log || this.diskFull) return;
    try {
      this.log.write(bytes);
    } catch (error) {
      if (!(error instanceof LogDiskFullError)) throw error;
      this.diskFull = true;
      this.logError = error.message;
      this.logOptions.onDiskFull?.();
    }
  }
}
