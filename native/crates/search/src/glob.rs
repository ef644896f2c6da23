//! `glob`: entries under a root whose paths match a set of globs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::{DirEntry, WalkBuilder, WalkState};

use crate::error::check_root;
use crate::sort::by_path;
use crate::stream::Outbox;
use crate::types::{
    CancelToken, EntryKind, GlobEntry, GlobOptions, GlobPrint, GlobResult, SearchError, SortOrder, StreamSummary,
};
use crate::walk::{self, relative_slash, WalkOptions};

/// The compiled patterns and a walk builder for `opts.root`, once the root proved readable.
fn prepare(opts: &GlobOptions, cancel: &CancelToken) -> Result<(Patterns, WalkBuilder), SearchError> {
    if cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }
    let patterns = Patterns::compile(&opts.patterns)?;
    check_root(&opts.root)?;
    let walk_opts = WalkOptions {
        hidden: opts.hidden,
        respect_ignore: opts.respect_ignore,
        threads: opts.threads,
        skip_git_dir: true,
    };
    Ok((patterns, walk::builder(std::slice::from_ref(&opts.root), &walk_opts)))
}

pub(crate) fn run(opts: &GlobOptions, cancel: &CancelToken) -> Result<GlobResult, SearchError> {
    let (patterns, builder) = prepare(opts, cancel)?;
    let walker = builder.build_parallel();
    let order = |a: &GlobEntry, b: &GlobEntry| {
        if opts.newest_first {
            b.mtime_ms.total_cmp(&a.mtime_ms).then_with(|| by_path(&a.path, &b.path))
        } else {
            by_path(&a.path, &b.path)
        }
    };
    // With a cap, each thread keeps only its best `max` entries (pruned whenever it holds twice
    // that), so memory follows the cap, not the tree; the total is counted on the side.
    let total = AtomicU64::new(0);
    let mut entries = walk::collect(walker, cancel, || {
        let (patterns, total) = (&patterns, &total);
        move |dent: DirEntry, out: &mut Vec<GlobEntry>| {
            let before = out.len();
            let state = visit(dent, out, patterns, opts);
            if out.len() > before {
                total.fetch_add(1, Ordering::Relaxed);
                if let Some(max) = opts.max_results {
                    if out.len() >= 2 * max.max(1) {
                        out.sort_by(order);
                        out.truncate(max);
                    }
                }
            }
            state
        }
    })?;

    entries.sort_by(order);
    let total = total.into_inner();
    let limit_reached = opts.max_results.map_or(false, |max| total > max as u64);
    if let Some(max) = opts.max_results {
        entries.truncate(max);
    }
    Ok(GlobResult { entries, total_matches: total, limit_reached })
}

fn visit(dent: DirEntry, out: &mut Vec<GlobEntry>, patterns: &Patterns, opts: &GlobOptions) -> WalkState {
    if dent.depth() == 0 {
        return WalkState::Continue;
    }
    let kind = match dent.file_type() {
        Some(t) if t.is_symlink() => EntryKind::Symlink,
        Some(t) if t.is_dir() => EntryKind::Dir,
        Some(_) => EntryKind::File,
        None => return WalkState::Continue,
    };
    let path = relative_slash(&opts.root, dent.path()).into_owned();
    let name = dent.file_name().to_string_lossy();
    if patterns.excludes(&path, &name) {
        // An excluded directory takes its contents with it, as in a .gitignore.
        return if kind == EntryKind::Dir { WalkState::Skip } else { WalkState::Continue };
    }
    if !patterns.includes(&path, &name) || !(opts.kinds.is_empty() || opts.kinds.contains(&kind)) {
        return WalkState::Continue;
    }
    let meta = match dent.metadata() {
        Ok(meta) => meta,
        Err(_) => return WalkState::Continue,
    };
    let mtime_ms = meta.modified().map_or(0.0, |t| match t.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs_f64() * 1000.0,
        Err(before) => -before.duration().as_secs_f64() * 1000.0,
    });
    out.push(GlobEntry { path, kind, size: meta.len(), mtime_ms });
    WalkState::Continue
}

/// A pattern without `/` is matched against the file name at any depth; one with `/` against the
/// whole relative path, where `*` stays within a component and `**` crosses them.
#[derive(Clone)]
struct Patterns {
    include_names: GlobSet,
    include_paths: GlobSet,
    exclude_names: GlobSet,
    exclude_paths: GlobSet,
    include_all: bool,
}

impl Patterns {
    fn compile(patterns: &[String]) -> Result<Self, SearchError> {
        let mut sets: [GlobSetBuilder; 4] =
            [GlobSetBuilder::new(), GlobSetBuilder::new(), GlobSetBuilder::new(), GlobSetBuilder::new()];
        let mut include_all = true;
        for original in patterns {
            let (negated, body) = match original.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, original.as_str()),
            };
            let body = body.trim_start_matches("./").trim_start_matches('/').trim_end_matches('/');
            if body.is_empty() {
                continue;
            }
            let glob = GlobBuilder::new(body)
                .literal_separator(true)
                .build()
                .map_err(|err| SearchError::BadGlob { glob: original.clone(), message: err.kind().to_string() })?;
            let by_path = body.contains('/');
            include_all &= negated;
            let slot = match (negated, by_path) {
                (false, false) => 0,
                (false, true) => 1,
                (true, false) => 2,
                (true, true) => 3,
            };
            sets[slot].add(glob);
        }
        let [include_names, include_paths, exclude_names, exclude_paths] = sets;
        let build = |set: GlobSetBuilder| {
            set.build().map_err(|err| SearchError::BadGlob {
                glob: err.glob().unwrap_or_default().to_string(),
                message: err.kind().to_string(),
            })
        };
        Ok(Patterns {
            include_names: build(include_names)?,
            include_paths: build(include_paths)?,
            exclude_names: build(exclude_names)?,
            exclude_paths: build(exclude_paths)?,
            include_all,
        })
    }

    fn includes(&self, path: &str, name: &str) -> bool {
        self.include_all
            || (!self.include_names.is_empty() && self.include_names.is_match(name))
            || (!self.include_paths.is_empty() && self.include_paths.is_match(path))
    }

    /// Checks emptiness first: a glob set builds a candidate (an allocation) before it looks.
    fn excludes(&self, path: &str, name: &str) -> bool {
        (!self.exclude_names.is_empty() && self.exclude_names.is_match(name))
            || (!self.exclude_paths.is_empty() && self.exclude_paths.is_match(path))
    }

    fn has_excludes(&self) -> bool {
        !(self.exclude_names.is_empty() && self.exclude_paths.is_empty())
    }
}

/// Streams the matching paths, one per line after `print.prefix`, without a stat per entry: the
/// listing `omp find` prints. Stops after `opts.max_results` paths.
pub(crate) fn run_stream(
    opts: &GlobOptions,
    print: &GlobPrint,
    outbox: &Outbox,
    cancel: &CancelToken,
) -> Result<StreamSummary, SearchError> {
    let (patterns, mut builder) = prepare(opts, cancel)?;
    if patterns.has_excludes() {
        // An excluded directory takes its contents with it, as in a .gitignore; pruned in the
        // walk itself so that neither walker descends into it.
        let (patterns, root) = (patterns.clone(), opts.root.clone());
        builder.filter_entry(move |dent| {
            dent.file_name() != ".git"
                && (dent.depth() == 0
                    || !patterns.excludes(&relative_slash(&root, dent.path()), &dent.file_name().to_string_lossy()))
        });
    }
    let printed = AtomicU64::new(0);
    let limit = opts.max_results.map_or(u64::MAX, |max| max as u64);
    // One entry: false once the listing should stop (limit reached or consumer gone).
    let emit = |dent: &DirEntry, line: &mut Vec<u8>| -> bool {
        if dent.depth() == 0 {
            return true;
        }
        let kind = match dent.file_type() {
            Some(t) if t.is_symlink() => EntryKind::Symlink,
            Some(t) if t.is_dir() => EntryKind::Dir,
            Some(_) => EntryKind::File,
            None => return true,
        };
        if !(opts.kinds.is_empty() || opts.kinds.contains(&kind)) {
            return true;
        }
        let path = relative_slash(&opts.root, dent.path());
        if !patterns.includes(&path, &dent.file_name().to_string_lossy()) {
            return true;
        }
        if printed.fetch_add(1, Ordering::Relaxed) >= limit {
            return false;
        }
        line.clear();
        line.extend_from_slice(print.prefix.as_bytes());
        line.extend_from_slice(path.as_bytes());
        line.push(b'\n');
        outbox.write(None, line) && printed.load(Ordering::Relaxed) < limit
    };
    match print.order {
        SortOrder::Path => {
            let mut line = Vec::new();
            for entry in builder.sort_by_file_name(|a, b| a.cmp(b)).build() {
                if cancel.is_cancelled() {
                    return Err(SearchError::Cancelled);
                }
                if let Ok(dent) = entry {
                    if !emit(&dent, &mut line) {
                        break;
                    }
                }
            }
        }
        SortOrder::None => {
            let walked = walk::collect::<(), _, _>(builder.build_parallel(), cancel, || {
                let mut line = Vec::new();
                let emit = &emit;
                move |dent: DirEntry, _: &mut Vec<()>| {
                    if emit(&dent, &mut line) {
                        WalkState::Continue
                    } else {
                        WalkState::Quit
                    }
                }
            });
            // Quitting at the limit is a finished listing, not a cancelled one.
            if walked.is_err() && printed.load(Ordering::Relaxed) < limit {
                return Err(SearchError::Cancelled);
            }
        }
    }
    if cancel.is_cancelled() || outbox.is_closed() {
        return Err(SearchError::Cancelled);
    }
    let total = printed.load(Ordering::Relaxed).min(limit);
    Ok(StreamSummary { total_matches: total, files_with_matches: total, ..StreamSummary::default() })
}
