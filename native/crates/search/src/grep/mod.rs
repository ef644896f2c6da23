//! `grep`: ripgrep's engine over files and trees, with results ordered as `rg --sort path`.

mod config;
mod page;
mod sink;
mod stream;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use grep_regex::RegexMatcher;
use grep_searcher::Searcher;
use ignore::overrides::Override;
use ignore::types::Types;
use ignore::{DirEntry, WalkBuilder, WalkParallel};

use self::page::{Pager, Paging};
use self::sink::{CountSink, Counter, FileHits, LineSink, Spares, Spill};
use crate::error::check_root;
use crate::stream::ordered;
use crate::types::{CancelToken, GrepMode, GrepOptions, GrepResult, SearchError};
use crate::walk::sorted::SortedWalk;
use crate::walk::{self, WalkOptions};

pub(crate) use self::stream::run_stream;

/// What every grep needs before it walks: the compiled matcher and searcher, and the roots with
/// rg's filters.
struct Prepared {
    pub matcher: RegexMatcher,
    pub searcher: Searcher,
    pub multi_line: bool,
    /// No path was given: rg searches `./` and prints paths without that prefix; this is the
    /// root walked instead, whose prefix the printed paths lose.
    pub default_root: Option<PathBuf>,
    pub walk: WalkSpec,
    pub threads: usize,
    /// Buffers of files already printed, for the workers' next files.
    pub spares: Spares,
}

/// The roots and the walk's options: what a walk builder needs, for the whole walk or a subtree.
struct WalkSpec {
    roots: Vec<PathBuf>,
    opts: WalkOptions,
    types: Types,
    overrides: Override,
}

impl WalkSpec {
    fn builder(&self, roots: &[PathBuf]) -> WalkBuilder {
        let mut builder = walk::builder(roots, &self.opts);
        builder.types(self.types.clone()).overrides(self.overrides.clone());
        builder
    }

    pub fn parallel(&self) -> WalkParallel {
        self.builder(&self.roots).build_parallel()
    }

    /// Runs `body` with the walk in `rg --sort path` order.
    pub fn sorted<R>(&self, threads: usize, body: impl FnOnce(&SortedWalk<'_>) -> R) -> R {
        let make = |roots: &[PathBuf]| self.builder(roots);
        let walk = SortedWalk::new(self.roots.clone(), &make, self.opts.respect_ignore).helpers(walk::sorted_helpers(threads));
        body(&walk)
    }
}

fn prepare(opts: &GrepOptions, cancel: &CancelToken) -> Result<Prepared, SearchError> {
    if cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }
    let matcher = config::matcher(opts)?;
    let types = config::types(&opts.types)?;
    let overrides = config::overrides(&opts.globs)?;
    let default_root = opts.paths.is_empty().then(|| walk::as_walked(Path::new("./"), opts.respect_ignore));
    let roots = match &default_root {
        Some(root) => vec![root.clone()],
        None => opts.paths.clone(),
    };
    for root in &roots {
        check_root(root)?;
    }
    // Resolved once: each resolution of "one per core" reads the cgroup's CPU quota.
    let threads = walk::thread_count(opts.threads);
    let walk_opts = WalkOptions { hidden: opts.hidden, respect_ignore: opts.respect_ignore, threads, skip_git_dir: false };
    let walk = WalkSpec { roots, opts: walk_opts, types, overrides };
    let searcher = config::searcher(opts);
    let multi_line = searcher.multi_line_with_matcher(&matcher);
    Ok(Prepared { matcher, searcher, multi_line, default_root, walk, threads, spares: Spares::new(threads) })
}

impl Prepared {
    pub fn worker<'a>(&'a self, opts: &'a GrepOptions, cancel: &'a CancelToken, stats: &'a Stats) -> Worker<'a> {
        Worker {
            opts,
            cancel,
            stats,
            matcher: self.matcher.clone(),
            searcher: self.searcher.clone(),
            multi_line: self.multi_line,
            spare: None,
            spares: &self.spares,
        }
    }
}

/// Like rg: roots are searched whatever they are (a symlink, a FIFO) unless they are directories;
/// below a root only regular files are, so symlinks are not followed.
fn searchable(dent: &DirEntry) -> bool {
    let kind = dent.file_type();
    (dent.depth() == 0 && !kind.map_or(false, |t| t.is_dir())) || kind.map_or(false, |t| t.is_file())
}

pub(crate) fn run(opts: &GrepOptions, cancel: &CancelToken) -> Result<GrepResult, SearchError> {
    let prepared = prepare(opts, cancel)?;
    let paging = Paging {
        mode: opts.mode,
        offset: opts.offset,
        limit: opts.limit,
        context_before: opts.context_before as u64,
        context_after: opts.context_after as u64,
    };
    let stats = Stats::default();
    let lines_unneeded = AtomicBool::new(false);
    let mut pager = Pager::new(&paging);
    let default_root = prepared.default_root.as_deref();
    let finished = prepared.walk.sorted(prepared.threads, |walk| ordered::run(
        walk,
        prepared.threads,
        cancel,
        searchable,
        || {
            let mut worker = prepared.worker(opts, cancel, &stats);
            let lines_unneeded = &lines_unneeded;
            move |dent: DirEntry, _: &ordered::Turn<'_>| match worker.search_entry(&dent, lines_unneeded.load(Ordering::Relaxed), None) {
                Searched::Hits(hits) => Some((display_path(dent.path(), default_root), hits)),
                Searched::Nothing | Searched::Cancelled => None,
            }
        },
        |(path, hits)| {
            pager.push(path, hits);
            if pager.past_page() {
                lines_unneeded.store(true, Ordering::Relaxed);
            }
            true
        },
    ));
    if !finished || cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }
    let mut result = pager.finish();
    result.files_searched = stats.searched.load(Ordering::Relaxed);
    result.binary_skipped = stats.binary.load(Ordering::Relaxed);
    Ok(result)
}

#[derive(Default)]
struct Stats {
    pub searched: AtomicU64,
    pub binary: AtomicU64,
}

enum Searched {
    /// Not searchable, unreadable or without a match.
    Nothing,
    Hits(FileHits),
    Cancelled,
}

/// Per-thread search state: the matcher and searcher are cloned once per thread, never per file.
struct Worker<'a> {
    opts: &'a GrepOptions,
    cancel: &'a CancelToken,
    stats: &'a Stats,
    matcher: RegexMatcher,
    searcher: Searcher,
    multi_line: bool,
    /// Buffers of a file already printed (or without a match), reused for the next: dense output
    /// otherwise allocates (and page-faults in) fresh buffers per file.
    spare: Option<FileHits>,
    /// Where files printed on another thread leave theirs.
    spares: &'a Spares,
}

impl<'a> Worker<'a> {
    /// Gives back a file's hits once they are formatted.
    pub fn recycle(&mut self, hits: FileHits) {
        match self.spare {
            None => self.spare = Some(hits),
            Some(_) => self.spares.put(hits),
        }
    }

    /// Searches one walk entry. `count_only` skips keeping lines (counts and groups still right),
    /// for files whose lines nobody will see; `spill` may print lines before the search ends.
    pub fn search_entry(&mut self, dent: &DirEntry, count_only: bool, spill: Option<&mut Spill<'_>>) -> Searched {
        if !searchable(dent) {
            return Searched::Nothing;
        }
        let explicit = dent.depth() == 0;
        let detection = config::binary_detection(explicit, self.opts.mode);
        let quits_on_binary = detection.quit_byte().is_some();
        self.searcher.set_binary_detection(detection);
        let hits = match self.search(dent.path(), count_only, spill) {
            Ok(hits) => hits,
            // Unreadable or vanished files are skipped; rg would print a warning and go on.
            Err(_) => return Searched::Nothing,
        };
        if hits.cancelled {
            return Searched::Cancelled;
        }
        self.stats.searched.fetch_add(1, Ordering::Relaxed);
        if hits.binary && quits_on_binary {
            self.stats.binary.fetch_add(1, Ordering::Relaxed);
        }
        if hits.groups > 0 {
            Searched::Hits(hits)
        } else {
            self.recycle(hits);
            Searched::Nothing
        }
    }

    fn search(&mut self, path: &Path, count_only: bool, spill: Option<&mut Spill<'_>>) -> std::io::Result<FileHits> {
        let mut hits = self.spare.take().or_else(|| self.spares.take()).unwrap_or_default();
        hits.reset();
        let counter = Counter { matcher: &self.matcher, multi_line: self.multi_line };
        if self.opts.mode == GrepMode::Content && !count_only {
            let mut sink = LineSink::new(&mut hits, &counter, self.cancel, spill);
            sink.max_count = self.opts.max_count;
            sink.max_columns = self.opts.max_columns;
            self.searcher.search_path(&self.matcher, path, sink)?;
        } else {
            let sink = CountSink {
                out: &mut hits,
                counter: &counter,
                cancel: self.cancel,
                max_count: self.opts.max_count,
                quit_early: self.opts.mode == GrepMode::FilesWithMatches,
            };
            self.searcher.search_path(&self.matcher, path, sink)?;
        }
        Ok(hits)
    }
}

fn display_path(path: &Path, default_root: Option<&Path>) -> String {
    let shown = default_root.map_or(path, |root| path.strip_prefix(root).unwrap_or(path));
    shown.to_string_lossy().into_owned()
}
