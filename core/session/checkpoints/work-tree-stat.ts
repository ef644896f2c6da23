import { type Stats, existsSync, lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { type IndexStat, indexStats } from "./index-file.ts";
import { natives } from "../../natives/index.ts";

/**
 * The work tree as a command found it, held in memory so that what the next command changed is
 * found without starting git: every file the private index knows (tracked, and untracked but not
 * ignored) with the stat data it had and where its content is (a blob, or bytes read after a
 * change), and every folder git would look into with its own stat data.
 *
 * - A file whose stat data (times to the nanosecond, size, inode, mode) moved is read and compared;
 *   so is one changed so recently that a same-size rewrite may have kept the same times ("racy",
 *   as git calls it: see {@link RACY_MS}), until a look a safe while later finds it unchanged.
 * - A new file changes its folder's times: only folders whose stat data moved are listed again,
 *   and only names never seen before are put to git (`check-ignore`, one call for them all) —
 *   so a command that changes files but creates none starts no git at all.
 */

/** What a path held: a blob in the object store, bytes read after a change, or nothing. */
export type Source = { oid: string } | { content: Buffer } | "absent";

/** One path the command changed, with what it held before. */
export interface Change {
  path: string;
  before: Source;
}

/** Times in milliseconds (the doubles stat gives, to a quarter of a microsecond): {@link SAME_TIME_MS} apart at most is the same time. */
interface Seen {
  ctimeMs: number;
  mtimeMs: number;
  ino: number;
  mode: number;
  size: number;
  /** Changed too close to the look that took this stat data for a same-size rewrite to show in it. */
  racy: boolean;
}

interface Entry {
  /** The path on disk (kept: a scan looks at every entry). */
  absolute: string;
  /** Undefined: the path held nothing when last looked at. */
  seen?: Seen;
  source: Source;
}

/**
 * How close to a look a change may be and still hide from stat data: two writes within one tick of
 * the file clock leave the same times and size. On a file system with fine times that tick is at
 * most 10 ms (and the look's own clock read may be a tick apart); one that keeps whole seconds
 * (nanoseconds all zero: FAT, ext3, some network file systems) ticks every second, or two.
 */
const RACY_MS = 50;
const RACY_COARSE_MS = 2000;
/**
 * Times this close are one (a double's rounding of the nanoseconds): a change after a look moves
 * the change time by at least the time since a change no longer racy, {@link RACY_MS} less a tick.
 */
const SAME_TIME_MS = 0.001;
/** What one command's new names may add; past it git lists the changes instead. */
const MAX_NEW_PATHS = 200_000;
/** What one command's changes may read into memory, per file and in all (git-snapshot.ts keeps the same limits). */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
export const MAX_BYTES = 200 * 1024 * 1024;
/** Read bytes kept in memory before the index should take them over ({@link WorkTreeStat.heavy}). */
const MAX_HELD_PATHS = 200;
const MAX_HELD_BYTES = 4 * 1024 * 1024;

/** Which of `paths` (relative to the root) git ignores; undefined when it could not say. */
export type IgnoredOf = (paths: readonly string[]) => Set<string> | undefined;

/** git keeps sizes and inode numbers cut to 32 bits. */
const u32 = (value: number) => value % 0x100000000;

/** git's mode for stat data: a regular file is 644 or 755 by its owner's execute bit. */
function gitMode(mode: number): number {
  const type = mode & 0o170000;
  if (type === 0o100000) return mode & 0o100 ? 0o100755 : 0o100644;
  return type;
}

function seenOf(stat: Stats, lookMs: number): Seen {
  const { ctimeMs, mtimeMs } = stat;
  return { ctimeMs, mtimeMs, ino: u32(stat.ino), mode: gitMode(stat.mode), size: u32(stat.size), racy: racyAt(ctimeMs, mtimeMs, lookMs) };
}

function racyAt(ctimeMs: number, mtimeMs: number, lookMs: number): boolean {
  const changed = Math.max(ctimeMs, mtimeMs);
  return changed >= lookMs - (changed % 1000 === 0 ? RACY_COARSE_MS : RACY_MS);
}
const sameTime = (a: number, b: number) => Math.abs(a - b) <= SAME_TIME_MS;

/** Whether stat data says a file is as `seen` found it. */
const unchanged = (seen: Seen | undefined, stat: Stats) =>
  seen !== undefined && !seen.racy && sameTime(stat.mtimeMs, seen.mtimeMs) && sameTime(stat.ctimeMs, seen.ctimeMs) && u32(stat.size) === seen.size && u32(stat.ino) === seen.ino && gitMode(stat.mode) === seen.mode;

const sameStat = (a: Seen, b: Seen) => sameTime(a.ctimeMs, b.ctimeMs) && sameTime(a.mtimeMs, b.mtimeMs) && a.ino === b.ino && a.mode === b.mode && a.size === b.size;

/** A git object id of `content` as a blob (sha1, or sha256 in a repository of that format). */
function blobOid(content: Buffer, hashBytes: number): string {
  return new Bun.CryptoHasher(hashBytes === 32 ? "sha256" : "sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/**
 * Every file's and folder's stat data as the picture holds it, laid out for the native addon's
 * changedPaths and changedPathsSync (core/natives/api.ts): kept while only known paths change,
 * made again when one comes or goes.
 */
interface Laid {
  /** The files, then the folders. */
  paths: string[];
  files: number;
  index: Map<string, number>;
  folders: Map<string, number>;
  joined: string;
  expected: Float64Array;
}

/** Which files' stat data moved, being looked at on a worker thread for the next {@link WorkTreeStat.scan}. */
export interface Prefetch {
  /** Taken before the first stat. */
  lookMs: number;
  /** The layout and the picture's change count it was made for: a picture changed since cannot use it. */
  laid: Laid;
  version: number;
  /** Settles when the answer arrived ({@link changed} set) or could not be had (left unset). */
  ready: Promise<void>;
  changed?: Uint32Array;
}

/** `seen` as changedPaths compares it; a racy or absent file (mode -1) is always looked at. */
function layOut(expected: Float64Array, at: number, seen: Seen | undefined): void {
  const base = at * 5;
  if (!seen || seen.racy) {
    expected[base] = -1;
    return;
  }
  expected[base] = seen.mode;
  expected[base + 1] = seen.ino;
  expected[base + 2] = seen.size;
  expected[base + 3] = seen.ctimeMs;
  expected[base + 4] = seen.mtimeMs;
}

const bytesOf = (expected: Float64Array) => Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
const indexesOf = (bytes: Buffer) => new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));

const parentOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
const childOf = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);

export class WorkTreeStat {
  private readonly entries = new Map<string, Entry>();
  private readonly dirs = new Map<string, Seen>();
  /** Paths git is not asked about again: ignored ones, nested repositories, submodules, skip-worktree entries. */
  private readonly opaque = new Set<string>();
  /** Paths whose content here is not the private index's (changed since it was written). */
  readonly dirty = new Set<string>();
  /** Counts the changes to {@link entries}: a prefetch made before one is not used. */
  private version = 0;
  private laid: Laid | undefined;

  private constructor(
    readonly root: string,
    private readonly hashBytes: number,
  ) {}

  /**
   * The work tree as the private index at `indexPath` has it (just brought up to date by git);
   * undefined when the index cannot be read here or git cannot say what is ignored.
   */
  static load(root: string, indexPath: string, hashBytes: number, ignoredOf: IgnoredOf): WorkTreeStat | undefined {
    const picture = new WorkTreeStat(root, hashBytes);
    if (!picture.seed(indexPath)) return undefined;
    const lookMs = Date.now();
    const unknown: string[] = [];
    const dirs = new Set<string>([""]);
    for (const path of [...picture.entries.keys(), ...picture.opaque]) for (let dir = parentOf(path); !dirs.has(dir); dir = parentOf(dir)) dirs.add(dir);
    for (const dir of dirs) {
      const listed = picture.list(dir, lookMs);
      if (!listed) continue;
      for (const name of listed) if (!picture.known(name) && !dirs.has(name)) unknown.push(name);
    }
    // Anything here the index does not hold is ignored, or was made after git looked: the next scan takes the latter for new.
    const found = picture.explore(unknown, ignoredOf, lookMs);
    if (!found) return undefined;
    for (const path of found) if (!path.endsWith("/")) picture.dirs.get(parentOf(path))!.racy = true;
    return picture;
  }

  /** Takes every file's stat data and blob from the index at `indexPath`, forgetting what was read since; false when it cannot be read. */
  seed(indexPath: string): boolean {
    const index = indexStats(indexPath, this.hashBytes);
    if (!index) return false;
    this.entries.clear();
    this.laid = undefined;
    this.version++;
    this.dirty.clear();
    for (const [path, stat] of index.entries) this.entries.set(path, { absolute: join(this.root, path), seen: this.fromIndex(stat, Number(index.writtenNs) / 1e6), source: { oid: stat.oid } });
    for (const path of index.opaque) this.opaque.add(path);
    return true;
  }

  private fromIndex(stat: IndexStat, writtenMs: number): Seen {
    const ctimeMs = Number(stat.ctimeNs) / 1e6;
    const mtimeMs = Number(stat.mtimeNs) / 1e6;
    return { ctimeMs, mtimeMs, ino: stat.ino, mode: stat.mode, size: stat.size, racy: racyAt(ctimeMs, mtimeMs, writtenMs) };
  }

  private known(path: string): boolean {
    return this.entries.has(path) || this.dirs.has(path) || this.opaque.has(path);
  }

  private setDir(dir: string, seen: Seen): void {
    this.dirs.set(dir, seen);
    this.version++;
    const at = this.laid?.folders.get(dir);
    if (at === undefined) this.laid = undefined;
    else layOut(this.laid!.expected, at, seen);
  }

  /** Forgets the folder `dir`; false when it was not known. */
  private dropDir(dir: string): boolean {
    if (!this.dirs.delete(dir)) return false;
    this.version++;
    this.laid = undefined;
    return true;
  }

  /** A folder's paths, its stat data recorded; undefined when it is no folder now. */
  private list(dir: string, lookMs: number): string[] | undefined {
    const path = join(this.root, dir);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) return undefined;
    this.setDir(dir, seenOf(stat, lookMs));
    try {
      return readdirSync(path).flatMap((name) => (name === ".git" ? [] : [childOf(dir, name)]));
    } catch {
      return [];
    }
  }

  /**
   * Sorts never-seen paths: ignored ones become opaque, new folders are listed to the bottom and
   * everything in them put to git in one more call; the files (and nested repositories, as `dir/`)
   * that count are returned.
   */
  private explore(paths: string[], ignoredOf: IgnoredOf, lookMs: number): string[] | undefined {
    const found: string[] = [];
    let pending = paths;
    for (let round = 0; pending.length > 0; round++) {
      const ignored = ignoredOf(pending);
      if (!ignored) return undefined;
      // Listed parents first: what lies in an ignored folder goes with it.
      const ignoredDirs = new Set<string>();
      const inIgnored = (path: string) => {
        for (let dir = parentOf(path); dir !== ""; dir = parentOf(dir)) if (ignoredDirs.has(dir)) return true;
        return false;
      };
      const next: string[] = [];
      for (const path of pending) {
        if (inIgnored(path)) {
          this.dropDir(path);
          continue;
        }
        if (ignored.has(path)) {
          this.opaque.add(path);
          if (this.dropDir(path)) ignoredDirs.add(path);
          continue;
        }
        const stat = lstatSync(join(this.root, path), { throwIfNoEntry: false });
        if (!stat) continue;
        if (!stat.isDirectory()) found.push(path);
        else if (existsSync(join(this.root, path, ".git"))) {
          this.opaque.add(path);
          this.dropDir(path);
          found.push(`${path}/`);
        } else if (round === 0 && !this.walk(path, next, lookMs)) return undefined;
      }
      pending = next;
    }
    return found;
  }

  /** Lists the folder `dir` and every folder in it (not nested repositories) into `into`; false past {@link MAX_NEW_PATHS}. */
  private walk(dir: string, into: string[], lookMs: number): boolean {
    for (const path of this.list(dir, lookMs) ?? []) {
      if (into.push(path) > MAX_NEW_PATHS) return false;
      const absolute = join(this.root, path);
      if (lstatSync(absolute, { throwIfNoEntry: false })?.isDirectory() && !existsSync(join(absolute, ".git")) && !this.walk(path, into, lookMs)) return false;
    }
    return true;
  }

  private put(path: string, entry: Entry): void {
    this.entries.set(path, entry);
    this.version++;
    const at = this.laid?.index.get(path);
    if (at === undefined) this.laid = undefined;
    else layOut(this.laid!.expected, at, entry.seen);
  }

  private drop(path: string): void {
    this.entries.delete(path);
    this.version++;
    this.laid = undefined;
  }

  private layOut(): Laid {
    const files = [...this.entries.keys()];
    const dirs = [...this.dirs.keys()];
    const expected = new Float64Array((files.length + dirs.length) * 5);
    const absolute: string[] = [];
    files.forEach((path, at) => {
      const entry = this.entries.get(path)!;
      absolute.push(entry.absolute);
      layOut(expected, at, entry.seen);
    });
    dirs.forEach((dir, at) => {
      absolute.push(join(this.root, dir));
      layOut(expected, files.length + at, this.dirs.get(dir));
    });
    return {
      paths: [...files, ...dirs],
      files: files.length,
      index: new Map(files.map((path, at) => [path, at])),
      folders: new Map(dirs.map((dir, at) => [dir, files.length + at])),
      joined: absolute.join("\0"),
      expected,
    };
  }

  /**
   * Starts looking at every file's and folder's stat data on a worker thread of the native addon,
   * for {@link scan}: the look then costs the JS thread only the paths that moved, and runs beside
   * the next request. Undefined when the addon cannot be loaded here (the scan stats the files itself).
   */
  prefetch(): Prefetch | undefined {
    // Before the first stat: a file changed after this may still be taken for racy, never missed.
    const lookMs = Date.now();
    const laid = (this.laid ??= this.layOut());
    let answer: Promise<Buffer>;
    try {
      answer = natives().changedPaths(laid.joined, bytesOf(laid.expected));
    } catch {
      return undefined;
    }
    const prefetch: Prefetch = {
      lookMs,
      laid,
      version: this.version,
      ready: answer.then(
        (bytes) => {
          prefetch.changed = indexesOf(bytes);
        },
        () => undefined,
      ),
    };
    return prefetch;
  }

  /** The same look as {@link prefetch}, on this thread: the indexes of the laid-out paths that moved; undefined without the addon. */
  private lookNow(laid: Laid): Uint32Array | undefined {
    try {
      return indexesOf(natives().changedPathsSync(laid.joined, bytesOf(laid.expected)));
    } catch {
      return undefined;
    }
  }

  /**
   * What changed since the last look, the picture brought up to date; undefined when that cannot be
   * known here (a file over the limits, git unable to say what is ignored, too many new paths).
   * `prefetched`: stat data taken since the command ended ({@link prefetch}), used where it arrived
   * and the entry is the one it was taken for; otherwise the addon looks now, on this thread.
   */
  scan(ignoredOf: IgnoredOf, prefetched?: Prefetch): Change[] | undefined {
    const fromWorker = prefetched && prefetched.laid === this.laid && prefetched.version === this.version ? prefetched.changed : undefined;
    // Before the first stat, as prefetch() takes it.
    const lookMs = fromWorker ? prefetched!.lookMs : Date.now();
    const laid = fromWorker ? prefetched!.laid : (this.laid ??= this.layOut());
    const moved = fromWorker ?? this.lookNow(laid);
    const changes: Change[] = [];
    const unknown: string[] = [];
    let bytes = 0;
    const read = (path: string, entry: Entry | undefined): boolean => {
      const absolute = entry?.absolute ?? join(this.root, path);
      const stat = lstatSync(absolute, { throwIfNoEntry: false });
      if (stat && unchanged(entry?.seen, stat)) return true;
      if (!stat || stat.isDirectory()) {
        if (entry?.seen) {
          changes.push({ path, before: entry.source });
          this.dirty.add(path);
        }
        // A folder in a file's place is explored as a new one.
        if (stat) {
          this.drop(path);
          unknown.push(path);
        } else if (entry?.seen) this.put(path, { absolute, source: "absent" });
        return true;
      }
      const seen = seenOf(stat, lookMs);
      if (stat.size > MAX_FILE_BYTES || (bytes += stat.size) > MAX_BYTES) return false;
      const content = stat.isSymbolicLink() ? Buffer.from(readlinkSync(absolute, { encoding: "buffer" })) : stat.isFile() ? readFileSync(absolute) : Buffer.alloc(0);
      const same = entry !== undefined && this.holds(entry.source, content);
      this.put(path, { absolute, seen, source: same ? entry.source : { content } });
      if (!same) {
        changes.push({ path, before: entry?.source ?? "absent" });
        this.dirty.add(path);
      }
      return true;
    };
    // Only what the addon found moved (read() changes the layout: the paths come first); without
    // the addon, every file and folder through lstat.
    const files = moved ? [...moved].flatMap((at) => (at < laid.files ? [laid.paths[at]!] : [])) : [...this.entries.keys()];
    const dirs = moved ? [...moved].flatMap((at) => (at >= laid.files ? [laid.paths[at]!] : [])) : [...this.dirs.keys()];
    for (const path of files) if (!read(path, this.entries.get(path))) return undefined;
    for (const dir of dirs) {
      const was = this.dirs.get(dir);
      if (!was) continue;
      const stat = lstatSync(join(this.root, dir), { throwIfNoEntry: false });
      if (!stat?.isDirectory()) {
        // Gone (its files are found gone above), or a file now: then that file is new.
        this.dropDir(dir);
        if (stat) unknown.push(dir);
        continue;
      }
      if (!was.racy && sameStat(was, seenOf(stat, lookMs))) continue;
      for (const path of this.list(dir, lookMs) ?? []) if (!this.known(path)) unknown.push(path);
    }
    const found = this.explore(unknown, ignoredOf, lookMs);
    if (!found) return undefined;
    for (const path of found) {
      if (path.endsWith("/")) changes.push({ path, before: "absent" });
      else if (!read(path, undefined)) return undefined;
    }
    return changes;
  }

  private holds(source: Source, content: Buffer): boolean {
    if (source === "absent") return false;
    return "oid" in source ? blobOid(content, this.hashBytes) === source.oid : source.content.equals(content);
  }

  /** Whether the bytes read since the index was written are too many to keep here: the index should take them over. */
  heavy(): boolean {
    if (this.dirty.size > MAX_HELD_PATHS) return true;
    let bytes = 0;
    for (const path of this.dirty) {
      const source = this.entries.get(path)?.source;
      if (source && source !== "absent" && "content" in source) bytes += source.content.length;
    }
    return bytes > MAX_HELD_BYTES;
  }

  /** Whether the changed files are on disk as this picture holds them (so the index can take them from disk). */
  dirtyOnDisk(): boolean {
    for (const path of this.dirty) {
      const source = this.entries.get(path)?.source ?? "absent";
      const absolute = join(this.root, path);
      const stat = lstatSync(absolute, { throwIfNoEntry: false });
      if (!stat) {
        if (source !== "absent") return false;
        continue;
      }
      if (!stat.isFile() || source === "absent" || !this.holds(source, readFileSync(absolute))) return false;
    }
    return true;
  }
}
