//! The search crate's public contract: option and result types shared with the N-API glue in
//! `omp-natives`. Plain Rust data, no N-API here, so the engine is testable on its own.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Set from another thread (JS abort signal) or by a deadline (`timeoutMs`) to stop a running search.
/// Engines poll `is_cancelled()` per file and per directory entry, so it must stay cheap.
#[derive(Clone, Default, Debug)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn with_deadline(deadline: Instant) -> Self {
        Self { flag: Arc::default(), deadline: Some(deadline) }
    }
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.timed_out()
    }
    pub fn timed_out(&self) -> bool {
        self.deadline.map_or(false, |d| Instant::now() >= d)
    }
}

/// Why a search failed. `Display` is the user-facing message: it says what and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// The pattern does not compile; `message` is the regex engine's explanation.
    BadPattern { pattern: String, message: String },
    /// A glob (`-g`) that does not parse.
    BadGlob { glob: String, message: String },
    /// An unknown file type name (`-t`).
    UnknownType { name: String },
    /// A root path given by the caller does not exist.
    NotFound { path: PathBuf },
    /// A root path given by the caller cannot be read.
    PermissionDenied { path: PathBuf },
    /// Any other I/O failure on a root path.
    Io { path: PathBuf, message: String },
    /// The caller's cancel token was set.
    Cancelled,
    /// Options that contradict each other or are out of range.
    InvalidOptions { message: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GrepMode {
    /// Matching lines with optional context.
    #[default]
    Content,
    /// Only the paths of files with at least one match.
    FilesWithMatches,
    /// Per file, the number of matching lines.
    Count,
}

#[derive(Clone, Debug)]
pub struct GrepOptions {
    pub pattern: String,
    /// Files or directories to search. Empty means the current directory, and then printed paths
    /// have no `./` prefix (as ripgrep prints them).
    pub paths: Vec<PathBuf>,
    /// ripgrep-style globs (`-g`): `!` negates; later globs win.
    pub globs: Vec<String>,
    /// ripgrep file type names (`-t rust`); empty means every type.
    pub types: Vec<String>,
    pub ignore_case: bool,
    /// Case-insensitive unless the pattern has an uppercase letter. `ignore_case` wins when both set.
    pub smart_case: bool,
    pub fixed_strings: bool,
    /// Matches may span lines (`-U`); `.` still does not match `\n` unless the pattern says `(?s)`.
    pub multiline: bool,
    /// Search hidden files and directories.
    pub hidden: bool,
    /// Respect .gitignore, .ignore, .git/info/exclude and global git excludes.
    pub respect_ignore: bool,
    pub context_before: usize,
    pub context_after: usize,
    /// Per-file limit of matching lines (ripgrep `-m`).
    pub max_count: Option<u64>,
    /// Skip this many results (lines in content mode, files otherwise) of the sorted output: paging.
    pub offset: usize,
    /// Return at most this many results after `offset`; `limit_reached` tells whether more exist.
    pub limit: Option<usize>,
    /// Lines longer than this (in bytes) are replaced by a placeholder, as ripgrep `-M`.
    pub max_columns: Option<usize>,
    pub mode: GrepMode,
    /// Worker threads for the walk; 0 = one per core.
    pub threads: usize,
}

impl Default for GrepOptions {
    fn default() -> Self {
        Self {
            pattern: String::new(),
            paths: Vec::new(),
            globs: Vec::new(),
            types: Vec::new(),
            ignore_case: false,
            smart_case: false,
            fixed_strings: false,
            multiline: false,
            hidden: false,
            respect_ignore: true,
            context_before: 0,
            context_after: 0,
            max_count: None,
            offset: 0,
            limit: None,
            max_columns: None,
            mode: GrepMode::Content,
            threads: 0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    Match,
    Context,
}

impl LineKind {
    /// How JS and `omp grep --json` spell it.
    pub fn word(self) -> &'static str {
        match self {
            LineKind::Match => "match",
            LineKind::Context => "context",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepLine {
    /// 1-based.
    pub line_number: u64,
    /// Text without the line terminator; lossy UTF-8. For a multiline match, one `GrepLine` per
    /// line the match touches, each of kind `Match`.
    pub text: String,
    pub kind: LineKind,
    /// True when `max_columns` replaced the text.
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepFile {
    /// As ripgrep would print it: the root as given joined with the relative path.
    pub path: String,
    /// Content mode: matching and context lines in line order. Empty in the other modes.
    pub lines: Vec<GrepLine>,
    /// Number of matching lines in this file (after `max_count`).
    pub match_count: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GrepResult {
    /// Files with at least one match, sorted by path component-wise (as `rg --sort path`), each
    /// file's lines by line number. Paging (`offset`/`limit`) is applied to match lines in content
    /// mode and to files in the other modes; context lines follow their match lines.
    pub files: Vec<GrepFile>,
    /// Matching lines over all files, before paging.
    pub total_matches: u64,
    /// Files with a match, before paging.
    pub files_with_matches: u64,
    pub files_searched: u64,
    /// Files skipped as binary (a NUL byte found).
    pub binary_skipped: u64,
    /// More results exist past `offset + limit`.
    pub limit_reached: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
}

impl EntryKind {
    /// How JS and `omp find --json` spell it.
    pub fn word(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Dir => "dir",
            EntryKind::Symlink => "symlink",
        }
    }
}

#[derive(Clone, Debug)]
pub struct GlobOptions {
    /// Globs matched against the path relative to `root` (`src/**/*.ts`). A pattern without `/`
    /// matches the file name at any depth (`*.rs`). `!` negates.
    pub patterns: Vec<String>,
    pub root: PathBuf,
    /// Keep only these kinds; empty keeps all.
    pub kinds: Vec<EntryKind>,
    pub hidden: bool,
    pub respect_ignore: bool,
    pub max_results: Option<usize>,
    /// Newest first by mtime (ties by path); otherwise by path component-wise.
    pub newest_first: bool,
    pub threads: usize,
}

impl Default for GlobOptions {
    fn default() -> Self {
        Self {
            patterns: Vec::new(),
            root: PathBuf::from("."),
            kinds: Vec::new(),
            hidden: false,
            respect_ignore: true,
            max_results: None,
            newest_first: false,
            threads: 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct GlobEntry {
    /// Relative to `root`, `/`-separated.
    pub path: String,
    pub kind: EntryKind,
    pub size: u64,
    /// Milliseconds since the Unix epoch.
    pub mtime_ms: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GlobResult {
    pub entries: Vec<GlobEntry>,
    /// Matches before `max_results`.
    pub total_matches: u64,
    pub limit_reached: bool,
}

#[derive(Clone, Debug)]
pub struct FuzzyOptions {
    pub root: PathBuf,
    pub hidden: bool,
    pub respect_ignore: bool,
    pub max_results: usize,
    pub threads: usize,
}

impl Default for FuzzyOptions {
    fn default() -> Self {
        Self { root: PathBuf::from("."), hidden: false, respect_ignore: true, max_results: 100, threads: 0 }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuzzyMatch {
    /// Relative to `root`, `/`-separated; directories end without a slash.
    pub path: String,
    pub is_dir: bool,
    /// Higher is better.
    pub score: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FuzzyResult {
    /// Best first; ties by shorter path, then path.
    pub matches: Vec<FuzzyMatch>,
    pub total_matches: u64,
}

/// Output order of a streaming search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SortOrder {
    /// As `rg --sort path`: roots in the order given, each tree depth-first by file name.
    #[default]
    Path,
    /// Whatever order the parallel walk finishes in, as plain `rg`: the fastest.
    None,
}

/// How a streaming grep prints, as `rg -n --no-heading` does when not on a terminal.
#[derive(Clone, Copy, Debug, Default)]
pub struct GrepPrint {
    /// Prefix lines (and counts) with the file's path.
    pub with_filename: bool,
    pub order: SortOrder,
    /// One JSON object per line (content) or per file (`-l`, `-c`) instead of rg's text.
    pub json: bool,
}

/// How a streaming glob prints: one entry per line.
#[derive(Clone, Debug, Default)]
pub struct GlobPrint {
    /// Put before every relative path: the directory as the user named it, with its `/`.
    pub prefix: String,
    pub order: SortOrder,
    pub format: GlobFormat,
}

/// What a streaming glob prints for each entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GlobFormat {
    /// The path alone, as `rg --files` prints it.
    #[default]
    Plain,
    /// Size, modification time and path (`omp find -L`).
    Long,
    /// A JSON object with the path, kind, size and modification time (`omp find --json`).
    Json,
}

/// Totals of a streaming search, known once it is over.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamSummary {
    /// Matching lines (grep) or printed paths (glob).
    pub total_matches: u64,
    pub files_with_matches: u64,
    pub files_searched: u64,
    pub binary_skipped: u64,
}
