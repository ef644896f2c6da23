//! `grep`: ripgrep's engine over files and trees, with results ordered as `rg --sort path`.

mod config;
mod page;
mod sink;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use grep_regex::RegexMatcher;
use grep_searcher::Searcher;
use ignore::{DirEntry, WalkState};

use self::page::Paging;
use self::sink::{CountSink, Counter, FileHits, LineSink};
use crate::error::check_root;
use crate::sort::{by_path, RootOrder};
use crate::types::{CancelToken, GrepMode, GrepOptions, GrepResult, SearchError};
use crate::walk::{self, WalkOptions};

pub(crate) fn run(opts: &GrepOptions, cancel: &CancelToken) -> Result<GrepResult, SearchError> {
    if cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }
    let matcher = config::matcher(opts)?;
    let types = config::types(&opts.types)?;
    let overrides = config::overrides(&opts.globs)?;
    // rg's implicit root is `./`, and it strips that prefix from what it prints.
    let default_root = opts.paths.is_empty();
    let roots = if default_root { vec![PathBuf::from("./")] } else { opts.paths.clone() };
    for root in &roots {
        check_root(root)?;
    }
    let walk_opts = WalkOptions {
        hidden: opts.hidden,
        respect_ignore: opts.respect_ignore,
        threads: opts.threads,
        skip_git_dir: false,
    };
    let mut builder = walk::builder(&roots, &walk_opts);
    builder.types(types).overrides(overrides);

    let order = RootOrder::new(&roots);
    let searcher = config::searcher(opts);
    let multi_line = searcher.multi_line_with_matcher(&matcher);
    let stats = Stats::default();
    let found = walk::collect(builder.build_parallel(), cancel, || {
        let mut worker = Worker {
            opts,
            cancel,
            order: &order,
            stats: &stats,
            matcher: matcher.clone(),
            searcher: searcher.clone(),
            multi_line,
        };
        move |dent: DirEntry, out: &mut Vec<Found>| worker.visit(dent, out)
    })?;

    let files = sorted(found, default_root);
    let paging = Paging {
        mode: opts.mode,
        offset: opts.offset,
        limit: opts.limit,
        context_before: opts.context_before as u64,
        context_after: opts.context_after as u64,
    };
    let mut result = page::assemble(files, &paging);
    result.files_searched = stats.searched.load(Ordering::Relaxed);
    result.binary_skipped = stats.binary.load(Ordering::Relaxed);
    Ok(result)
}

#[derive(Default)]
struct Stats {
    searched: AtomicU64,
    binary: AtomicU64,
}

/// A file with at least one match, as collected by a worker thread.
struct Found {
    root: usize,
    path: PathBuf,
    hits: FileHits,
}

/// Per-thread search state: the matcher and searcher are cloned once per thread, never per file.
struct Worker<'a> {
    opts: &'a GrepOptions,
    cancel: &'a CancelToken,
    order: &'a RootOrder,
    stats: &'a Stats,
    matcher: RegexMatcher,
    searcher: Searcher,
    multi_line: bool,
}

impl<'a> Worker<'a> {
    fn visit(&mut self, dent: DirEntry, out: &mut Vec<Found>) -> WalkState {
        let is_dir = dent.file_type().map_or(false, |t| t.is_dir());
        let is_file = dent.file_type().map_or(false, |t| t.is_file());
        // Like rg: roots are searched whatever they are (a symlink, a FIFO) unless they are
        // directories; below a root only regular files are, so symlinks are not followed.
        let explicit = dent.depth() == 0 && !is_dir;
        if !(explicit || is_file) {
            return WalkState::Continue;
        }
        let detection = config::binary_detection(explicit, self.opts.mode);
        let quits_on_binary = detection.quit_byte().is_some();
        self.searcher.set_binary_detection(detection);
        let hits = match self.search(dent.path()) {
            Ok(hits) => hits,
            // Unreadable or vanished files are skipped; rg would print a warning and go on.
            Err(_) => return WalkState::Continue,
        };
        if hits.cancelled {
            return WalkState::Quit;
        }
        self.stats.searched.fetch_add(1, Ordering::Relaxed);
        if hits.binary && quits_on_binary {
            self.stats.binary.fetch_add(1, Ordering::Relaxed);
        }
        if hits.groups > 0 {
            let path = dent.into_path();
            out.push(Found { root: self.order.index(&path), path, hits });
        }
        WalkState::Continue
    }

    fn search(&mut self, path: &Path) -> std::io::Result<FileHits> {
        let mut hits = FileHits::default();
        let counter = Counter { matcher: &self.matcher, multi_line: self.multi_line };
        match self.opts.mode {
            GrepMode::Content => {
                let sink = LineSink {
                    out: &mut hits,
                    counter: &counter,
                    cancel: self.cancel,
                    max_count: self.opts.max_count,
                    max_columns: self.opts.max_columns,
                    calls: 0,
                    after_remaining: 0,
                };
                self.searcher.search_path(&self.matcher, path, sink)?;
            }
            GrepMode::Count | GrepMode::FilesWithMatches => {
                let sink = CountSink {
                    out: &mut hits,
                    counter: &counter,
                    cancel: self.cancel,
                    max_count: self.opts.max_count,
                    quit_early: self.opts.mode == GrepMode::FilesWithMatches,
                };
                self.searcher.search_path(&self.matcher, path, sink)?;
            }
        }
        Ok(hits)
    }
}

/// Orders by (root, path) as rg does; sorts small keys and then moves each result once.
fn sorted(found: Vec<Found>, default_root: bool) -> Vec<(String, FileHits)> {
    let mut keyed: Vec<(usize, String, usize)> =
        found.iter().enumerate().map(|(i, f)| (f.root, display_path(&f.path, default_root), i)).collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| by_path(&a.1, &b.1)));
    let mut hits: Vec<Option<FileHits>> = found.into_iter().map(|f| Some(f.hits)).collect();
    keyed.into_iter().filter_map(|(_, path, i)| hits[i].take().map(|h| (path, h))).collect()
}

fn display_path(path: &Path, default_root: bool) -> String {
    let shown = if default_root { path.strip_prefix("./").unwrap_or(path) } else { path };
    shown.to_string_lossy().into_owned()
}
