/**
 * The addon's JavaScript surface: what `omp_natives.*.node` exports. The Rust glue in
 * native/crates/addon must accept and return exactly these shapes.
 */

/** Every Error thrown or rejected by the addon carries one of these in `code`. */
export type NativeErrorCode =
  | "OMP_BAD_PATTERN"
  | "OMP_BAD_GLOB"
  | "OMP_UNKNOWN_TYPE"
  | "OMP_NOT_FOUND"
  | "OMP_PERMISSION_DENIED"
  | "OMP_IO"
  | "OMP_CANCELLED"
  | "OMP_INVALID_OPTIONS"
  | "OMP_PANIC";

export interface Cancellable {
  /** Aborting rejects the promise with code OMP_CANCELLED and stops the native work promptly. */
  signal?: AbortSignal;
  /** Same as an abort after this many milliseconds. */
  timeoutMs?: number;
}

export type GrepMode = "content" | "files_with_matches" | "count";

export interface GrepOptions extends Cancellable {
  pattern: string;
  /** Files or directories; none means the current directory (printed paths then have no `./`). */
  paths?: string[];
  /** ripgrep-style globs; `!` negates. */
  globs?: string[];
  /** ripgrep type names such as `rust`, `ts`. */
  types?: string[];
  ignoreCase?: boolean;
  smartCase?: boolean;
  fixedStrings?: boolean;
  multiline?: boolean;
  hidden?: boolean;
  /** Honour .gitignore/.ignore/git excludes. Default true. */
  respectIgnore?: boolean;
  contextBefore?: number;
  contextAfter?: number;
  /** Per-file limit of matching lines. */
  maxCount?: number;
  offset?: number;
  limit?: number;
  maxColumns?: number;
  mode?: GrepMode;
  /** Walker threads; 0 or absent = one per core. */
  threads?: number;
}

export interface GrepLine {
  lineNumber: number;
  text: string;
  kind: "match" | "context";
  truncated: boolean;
}

export interface GrepFile {
  path: string;
  lines: GrepLine[];
  matchCount: number;
}

export interface GrepResult {
  files: GrepFile[];
  totalMatches: number;
  filesWithMatches: number;
  filesSearched: number;
  binarySkipped: number;
  limitReached: boolean;
}

export type EntryKind = "file" | "dir" | "symlink";

export interface GlobOptions extends Cancellable {
  patterns: string[];
  /** Default: the current directory. */
  root?: string;
  kinds?: EntryKind[];
  hidden?: boolean;
  respectIgnore?: boolean;
  maxResults?: number;
  newestFirst?: boolean;
  threads?: number;
}

export interface GlobEntry {
  path: string;
  kind: EntryKind;
  size: number;
  mtimeMs: number;
}

export interface GlobResult {
  entries: GlobEntry[];
  totalMatches: number;
  limitReached: boolean;
}

export interface FuzzyOptions extends Cancellable {
  root?: string;
  hidden?: boolean;
  respectIgnore?: boolean;
  /** Default 100. */
  maxResults?: number;
  threads?: number;
}

export interface FuzzyMatch {
  path: string;
  isDir: boolean;
  score: number;
}

export interface FuzzyResult {
  matches: FuzzyMatch[];
  totalMatches: number;
}

/** `path`: as `rg --sort path` (the default); `none`: as the parallel walk finishes, like plain `rg`. */
export type SortOrder = "path" | "none";

/** A streaming grep prints as `rg -n --no-heading`; paging does not apply. */
export interface GrepStreamOptions extends Omit<GrepOptions, "offset" | "limit" | "signal" | "timeoutMs"> {
  /** Prefix lines and counts with the file's path. */
  withFilename?: boolean;
  sort?: SortOrder;
  /** One JSON object per line (content) or per file (files, count), as `omp grep --json` prints them. */
  json?: boolean;
}

/**
 * A streaming glob prints one entry per line, `prefix` + the path relative to `root`: the path
 * alone (plain), `omp find -L`'s size, time and path (long), or a JSON object (json). With
 * `newestFirst` the whole listing is sorted by time before the first line.
 */
export interface GlobStreamOptions extends Omit<GlobOptions, "signal" | "timeoutMs"> {
  prefix?: string;
  sort?: SortOrder;
  format?: "plain" | "long" | "json";
}

export interface StreamSummary {
  /** Matching lines (grep) or printed paths (glob). */
  totalMatches: number;
  filesWithMatches: number;
  filesSearched: number;
  binarySkipped: number;
}

/**
 * A search running on native threads. Its output, already formatted, arrives one Buffer per
 * chunk (about 256 KiB, less when the reader is waiting) or goes straight to a file descriptor;
 * the search blocks while a few chunks are unread, so memory stays bounded however large the result.
 */
export interface SearchStream {
  /** The next chunk; null at the end or after close(). Rejects with the search's error. */
  next(): Promise<Buffer | null>;
  /**
   * Writes the rest of the output to `fd` from native threads as it comes (waiting on a
   * non-blocking one). True once all of it was written; false when the reader went away (a closed
   * pipe), noticed as it happens, which stops the search. Rejects with the search's error, or
   * OMP_IO when writing fails otherwise (a full disk).
   */
  pipeTo(fd: number): Promise<boolean>;
  /** Stops the search at once (a closed pipe, enough results). */
  close(): void;
  /** Totals once next() returned null after a complete search; null before or after close(). */
  summary(): StreamSummary | null;
}

export interface NativeAddon {
  grep(options: GrepOptions): Promise<GrepResult>;
  glob(options: GlobOptions): Promise<GlobResult>;
  grepStream(options: GrepStreamOptions): SearchStream;
  globStream(options: GlobStreamOptions): SearchStream;
  fuzzyFind(query: string, options?: FuzzyOptions): Promise<FuzzyResult>;
  /** The omp version this addon was built for. */
  buildStamp(): string;
  /**
   * Which of `paths` (joined by NUL) have stat data other than `expected`'s, looked at on a worker
   * thread: per path five little-endian f64s — git's mode (negative: always report it), inode and
   * size cut to 32 bits, ctime and mtime in ms. Answers the indexes as little-endian u32s.
   */
  changedPaths(paths: string, expected: Buffer): Promise<Buffer>;
  /** {@link changedPaths} on the calling thread, for a look that cannot wait for a worker. */
  changedPathsSync(paths: string, expected: Buffer): Buffer;
  /** Panics inside Rust on purpose, synchronously or on a worker thread, to prove panics become JS Errors. */
  debugPanic(where: "sync" | "async"): Promise<never> | never;
}
