import { chmodSync, closeSync, constants, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { holdFileLock, lockPathBeside } from "../fs/file-lock.ts";
import { displayPath, ensurePrivateDir } from "../paths.ts";
import { newEntryId, newSessionId } from "./ids.ts";
import type { LoadedSession } from "./loader.ts";
import { type SessionDirOptions, sessionDirFor, sessionFileName } from "./paths.ts";
import { prepareForDisk } from "./persist.ts";
import { Redactor } from "./redact.ts";
import type { NewSessionEntry, SessionEntry, SessionHeader } from "./schema.ts";
import { SESSION_VERSION } from "./version.ts";
import { headerLineIndex } from "./title-slot.ts";

export interface NewSessionOptions extends SessionDirOptions {
  cwd: string;
  title?: string;
  parentSession?: string;
  /** Secret values in use (API keys) that must not reach the file; token-shaped strings are caught regardless. */
  secrets?: Iterable<string>;
}

/**
 * Appends entries to a session file, one JSON line each.
 *
 * Durability policy: every entry is written with one `write()` on an O_APPEND descriptor as soon as
 * it is appended, so a crash of omp loses nothing that was appended, and a crash of the machine
 * at worst leaves a torn last line, which the loader skips. `fsync` runs at the end of each turn
 * (an assistant message that does not call tools), after a compaction, on {@link sync} and on
 * {@link close}: a power cut costs at most the turn in progress, without paying a disk flush for
 * every tool result.
 *
 * Nothing touches the disk until the first entry: a session that is started and left empty leaves
 * no file. The file is created 0600 in a 0700 dir. Strings are redacted and size-capped on the way out.
 */
export class SessionWriter {
  readonly path: string;
  readonly header: SessionHeader;
  private leaf: string | null;
  private readonly ids: Set<string>;
  private redactor: Redactor;
  private readonly secrets: string[];
  private fd: number | undefined;
  /** The file does not exist yet; the first append creates it and writes the header. */
  private unborn: boolean;
  private unsynced = false;
  private dirUnsynced = false;
  private failure: OmpError | undefined;
  private lock: { release: () => void } | undefined;

  private constructor(path: string, header: SessionHeader, leaf: string | null, ids: Iterable<string>, unborn: boolean, secrets?: Iterable<string>) {
    this.path = path;
    this.header = header;
    this.leaf = leaf;
    this.ids = new Set(ids);
    this.unborn = unborn;
    this.secrets = [...(secrets ?? [])];
    this.redactor = new Redactor(this.secrets);
  }

  /** Another secret now in use (a key for a model switched to): kept out of every later entry. */
  addSecret(secret: string): void {
    if (this.secrets.includes(secret)) return;
    this.secrets.push(secret);
    this.redactor = new Redactor(this.secrets);
  }

  /** `text` as it would be stored: the secrets in use and token-shaped strings replaced. */
  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** A new session for `cwd`; its file appears with the first entry. */
  static create(options: NewSessionOptions): SessionWriter {
    const created = new Date();
    const header: SessionHeader = {
      type: "session",
      version: SESSION_VERSION,
      id: newSessionId(),
      timestamp: created.toISOString(),
      cwd: resolve(options.cwd),
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.parentSession === undefined ? {} : { parentSession: options.parentSession }),
    };
    const path = join(sessionDirFor(options.cwd, options), sessionFileName(created, header.id));
    return new SessionWriter(path, header, null, [], true, options.secrets);
  }

  /** Continues a loaded session: new entries hang below its current leaf. */
  static resume(session: LoadedSession, options: { secrets?: Iterable<string> } = {}): SessionWriter {
    return new SessionWriter(session.path, session.header, session.leafId, session.parents.keys(), false, options.secrets);
  }

  /**
   * Continues a loaded session as the one process writing it. When another live omp has it open,
   * two writers would interleave their turns in one file: the conversation so far is copied into a
   * new session (its header's parentSession names the original) and that one continues instead;
   * `openedBy` says who had the original.
   */
  static continue(session: LoadedSession, options: { secrets?: Iterable<string> } = {}): { writer: SessionWriter; openedBy?: number } {
    const lock = holdFileLock(lockPathBeside(session.path));
    if ("release" in lock) {
      const writer = SessionWriter.resume(session, options);
      writer.lock = lock;
      return { writer };
    }
    const writer = SessionWriter.fork(session, options);
    const forkLock = holdFileLock(lockPathBeside(writer.path));
    if ("release" in forkLock) writer.lock = forkLock;
    return { writer, openedBy: lock.holder };
  }

  /** A copy of `session` under a new id, in the same dir, whose new entries hang below the loaded leaf. */
  private static fork(session: LoadedSession, options: { secrets?: Iterable<string> }): SessionWriter {
    const created = new Date();
    const header: SessionHeader = { ...session.header, id: newSessionId(), timestamp: created.toISOString(), parentSession: session.path };
    const path = join(dirname(session.path), sessionFileName(created, header.id));
    const text = readFileSync(session.path, "utf8");
    // The entries as loaded (complete lines only): a line torn by the other writer mid-append stays behind.
    const head = text.split("\n", 3);
    const headerEnd = head.slice(0, headerLineIndex(head) + 1).reduce((length, line) => length + line.length + 1, 0);
    const body = text.slice(headerEnd, text.lastIndexOf("\n") + 1);
    const writer = new SessionWriter(path, header, session.leafId, session.parents.keys(), false, options.secrets);
    const fd = openSync(path, "ax", 0o600);
    try {
      writeAll(fd, Buffer.from(`${JSON.stringify(prepareForDisk(header, writer.redactor))}\n${body}`));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return writer;
  }

  /** The entry new entries attach to; null before the first one (or after {@link branch} to the root). */
  get leafId(): string | null {
    return this.leaf;
  }

  /** Records `entry` as a child of the leaf, writes it, and makes it the leaf. */
  append(entry: NewSessionEntry): SessionEntry {
    if (this.failure) throw this.failure;
    const id = newEntryId(this.ids);
    // `type` first: listing recognises message lines by their opening characters without parsing them.
    // Not validated against the zod schema here: the types fix the shape, and loading zod for
    // every write would put it on the start-up path; the loader validates and skips a bad line.
    const full = Object.assign({ type: entry.type, id, parentId: this.leaf, timestamp: new Date().toISOString() }, entry) as SessionEntry;

    this.write(`${JSON.stringify(prepareForDisk(full, this.redactor))}\n`);
    this.ids.add(id);
    this.leaf = id;
    const endsTurn = full.type === "compaction" || (full.type === "message" && full.message.role === "assistant" && full.message.stopReason !== "toolUse");
    if (endsTurn) this.sync();
    return full;
  }

  /** Moves the leaf to an earlier entry (or null: the next entry is a new root); the next append starts a branch there. */
  branch(entryId: string | null): void {
    if (entryId !== null && !this.ids.has(entryId)) throw new OmpError(`no entry ${entryId} in session ${this.header.id}`);
    this.leaf = entryId;
  }

  /** Flushes what was written to the disk. */
  sync(): void {
    if (this.fd === undefined) return;
    try {
      if (this.unsynced) fsyncSync(this.fd);
      this.unsynced = false;
      if (this.dirUnsynced) {
        // A new file's name lives in its directory; without this a power cut could lose the whole file.
        const dirFd = openSync(dirname(this.path), "r");
        try {
          fsyncSync(dirFd);
        } finally {
          closeSync(dirFd);
        }
        this.dirUnsynced = false;
      }
    } catch (error) {
      throw this.fail(error);
    }
  }

  close(): void {
    this.lock?.release();
    this.lock = undefined;
    if (this.fd === undefined) return;
    try {
      this.sync();
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private write(text: string): void {
    try {
      const fd = this.fd ?? this.open();
      writeAll(fd, Buffer.from(text));
      this.unsynced = true;
    } catch (error) {
      throw this.fail(error);
    }
  }

  private open(): number {
    if (this.unborn) {
      ensurePrivateDir(dirname(this.path));
      const fd = openSync(this.path, "ax", 0o600);
      this.fd = fd;
      // A new session is this process's from its first line: a concurrent -c forks it.
      const lock = holdFileLock(lockPathBeside(this.path));
      if ("release" in lock) this.lock = lock;
      writeAll(fd, Buffer.from(`${JSON.stringify(prepareForDisk(this.header, this.redactor))}\n`));
      this.unborn = false;
      this.dirUnsynced = true;
      return fd;
    }
    // No O_CREAT: if the file vanished since it was loaded, appending would make a file without a header.
    const fd = openSync(this.path, constants.O_WRONLY | constants.O_APPEND);
    this.fd = fd;
    chmodSync(this.path, 0o600);
    repairTail(this.path, fd);
    return fd;
  }

  /** Latches the first write failure: later entries would hang below one that is not in the file. */
  private fail(error: unknown): OmpError {
    this.failure ??= new OmpError(`cannot write the session file ${displayPath(this.path)}: ${describeError(error)}`, { cause: error });
    return this.failure;
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
}

/**
 * Before appending to an existing file, make sure it ends with a newline. A torn last line (omp
 * died mid-write) is cut off, since it cannot be parsed and the next line would otherwise be glued
 * onto it; a complete line that only lacks its newline gets one.
 */
function repairTail(path: string, fd: number): void {
  const bytes = readFileSync(path);
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return;
  const cut = bytes.lastIndexOf(0x0a) + 1;
  try {
    JSON.parse(bytes.subarray(cut).toString("utf8"));
    writeAll(fd, Buffer.from("\n"));
  } catch {
    ftruncateSync(fd, cut);
  }
}
