//! `glob`: entries under a root whose paths match a set of globs.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::{DirEntry, WalkState};

use crate::error::check_root;
use crate::sort::by_path;
use crate::stream::Outbox;
use crate::entry_format;
use crate::types::{
    CancelToken, EntryKind, GlobEntry, GlobFormat, GlobOptions, GlobPrint, GlobResult, SearchError, SortOrder, StreamSummary,
};
use crate::walk::sorted::{Keep, SortedWalk};
use crate::walk::{self, relative_slash, WalkOptions};

/// The compiled patterns and the walk's options, once the root proved readable.
fn prepare(opts: &GlobOptions, cancel: &CancelToken) -> Result<(Patterns, WalkOptions), SearchError> {
    if cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }
    let patterns = Patterns::compile(&opts.patterns)?;
    check_root(&opts.root)?;
    let walk_opts = WalkOptions {
        hidden: opts.hidden,
        respect_ignore: opts.respect_ignore,
        threads: walk::thread_count(opts.threads),
        skip_git_dir: true,
    };
    Ok((patterns, walk_opts))
}

pub(crate) fn run(opts: &GlobOptions, cancel: &CancelToken) -> Result<GlobResult, SearchError> {
    let (patterns, walk_opts) = prepare(opts, cancel)?;
    let walker = walk::builder(std::slice::from_ref(&opts.root), &walk_opts).build_parallel();
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
    let (path_ref, name_ref) = (Path::new(&path), Path::new(name.as_ref()));
    if patterns.excludes(path_ref, name_ref) {
        // An excluded directory takes its contents with it, as in a .gitignore.
        return if kind == EntryKind::Dir { WalkState::Skip } else { WalkState::Continue };
    }
    if !patterns.includes(path_ref, name_ref) || !(opts.kinds.is_empty() || opts.kinds.contains(&kind)) {
        return WalkState::Continue;
    }
    let Some((size, mtime_ms)) = size_and_mtime(&dent) else {
        return WalkState::Continue;
    };
    out.push(GlobEntry { path, kind, size, mtime_ms });
    WalkState::Continue
}

/// The entry's own size and modification time (ms since the epoch), not its link target's.
fn size_and_mtime(dent: &DirEntry) -> Option<(u64, f64)> {
    let meta = dent.metadata().ok()?;
    let mtime_ms = meta.modified().map_or(0.0, |t| match t.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs_f64() * 1000.0,
        Err(before) => -before.duration().as_secs_f64() * 1000.0,
    });
    Some((meta.len(), mtime_ms))
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

    fn includes(&self, path: &Path, name: &Path) -> bool {
        self.include_all
            || (!self.include_names.is_empty() && self.include_names.is_match(name))
            || (!self.include_paths.is_empty() && self.include_paths.is_match(path))
    }

    /// Checks emptiness first: a glob set builds a candidate (an allocation) before it looks.
    fn excludes(&self, path: &Path, name: &Path) -> bool {
        (!self.exclude_names.is_empty() && self.exclude_names.is_match(name))
            || (!self.exclude_paths.is_empty() && self.exclude_paths.is_match(path))
    }

    fn has_excludes(&self) -> bool {
        !(self.exclude_names.is_empty() && self.exclude_paths.is_empty())
    }
}

/// Streams the matching paths, one per line after `print.prefix`, without a stat per entry: the
/// listing `omp find` prints. Paths print as the bytes they are, as `rg --files` prints them.
/// Stops after `opts.max_results` paths.
pub(crate) fn run_stream(
    opts: &GlobOptions,
    print: &GlobPrint,
    outbox: &Outbox,
    cancel: &CancelToken,
) -> Result<StreamSummary, SearchError> {
    if opts.newest_first {
        return stream_collected(opts, print, outbox, cancel);
    }
    let (patterns, walk_opts) = prepare(opts, cancel)?;
    let patterns = Arc::new(patterns);
    let walked = walk::as_walked(&opts.root, opts.respect_ignore);
    let root = RootPrefix::new(&walked);
    // An excluded directory takes its contents with it, as in a .gitignore; pruned in the walk
    // itself so that no walker descends into it.
    let keep: Keep = {
        let (patterns, root) = (Arc::clone(&patterns), root.clone());
        Arc::new(move |dent: &DirEntry| {
            dent.file_name() != ".git"
                && (dent.depth() == 0 || !patterns.has_excludes() || {
                    let path = root.strip(dent.path());
                    !patterns.excludes(path, last_name(path))
                })
        })
    };
    let printed = AtomicU64::new(0);
    let limit = opts.max_results.map_or(u64::MAX, |max| max as u64);
    let listing = Listing { opts, patterns: &patterns, root, prefix: print.prefix.as_bytes(), limit, printed: &printed, outbox, format: print.format };
    let finished = match print.order {
        SortOrder::Path => {
            let make = |roots: &[std::path::PathBuf]| walk::builder(roots, &walk_opts);
            let walk = SortedWalk::new(vec![walked.clone()], &make, opts.respect_ignore)
                .keep(keep)
                .helpers(walk::sorted_helpers(walk_opts.threads));
            let mut line = Vec::new();
            walk.each(cancel, |dent| listing.entry(&dent, &mut line))
        }
        SortOrder::None => {
            let mut builder = walk::builder(std::slice::from_ref(&walked), &walk_opts);
            builder.filter_entry(move |dent| keep(dent));
            walk::collect::<(), _, _>(builder.build_parallel(), cancel, || {
                let (listing, mut line) = (&listing, Vec::new());
                move |dent: DirEntry, _: &mut Vec<()>| {
                    if listing.entry(&dent, &mut line) {
                        WalkState::Continue
                    } else {
                        WalkState::Quit
                    }
                }
            })
            .is_ok()
        }
    };
    let total = printed.load(Ordering::Relaxed).min(limit);
    // Stopping at the limit is a finished listing, not a cancelled one.
    if (!finished && total < limit) || cancel.is_cancelled() || outbox.is_closed() {
        return Err(SearchError::Cancelled);
    }
    Ok(StreamSummary { total_matches: total, files_with_matches: total, ..StreamSummary::default() })
}

/// `--newest`: the whole listing, sorted by time, then printed; its memory follows the number of
/// entries, as any sort by time must.
fn stream_collected(opts: &GlobOptions, print: &GlobPrint, outbox: &Outbox, cancel: &CancelToken) -> Result<StreamSummary, SearchError> {
    let result = run(opts, cancel)?;
    let mut line = Vec::new();
    for entry in &result.entries {
        line.clear();
        format_entry(&mut line, print.format, print.prefix.as_bytes(), Path::new(&entry.path), entry.kind, entry.size, entry.mtime_ms);
        if !outbox.write(None, &line) {
            return Err(SearchError::Cancelled);
        }
    }
    let total = result.entries.len() as u64;
    Ok(StreamSummary { total_matches: total, files_with_matches: total, ..StreamSummary::default() })
}

/// One listed entry in `format`, `prefix` before its path.
fn format_entry(line: &mut Vec<u8>, format: GlobFormat, prefix: &[u8], path: &Path, kind: EntryKind, size: u64, mtime_ms: f64) {
    match format {
        GlobFormat::Plain => {
            line.extend_from_slice(prefix);
            line.extend_from_slice(&printed(path));
            line.push(b'\n');
        }
        GlobFormat::Long => entry_format::long_line(line, size, mtime_ms, prefix, &printed(path)),
        GlobFormat::Json => {
            let shown = format!("{}{}", String::from_utf8_lossy(prefix), String::from_utf8_lossy(&printed(path)));
            entry_format::json_record(line, &shown, kind, size, mtime_ms);
        }
    }
}

/// What `run_stream` prints for each entry.
struct Listing<'a> {
    opts: &'a GlobOptions,
    patterns: &'a Patterns,
    root: RootPrefix,
    prefix: &'a [u8],
    limit: u64,
    printed: &'a AtomicU64,
    outbox: &'a Outbox,
    format: GlobFormat,
}

impl<'a> Listing<'a> {
    /// Prints `dent` if it is listed; false once the listing should stop (limit reached or
    /// consumer gone). `line` is the caller's buffer, reused.
    fn entry(&self, dent: &DirEntry, line: &mut Vec<u8>) -> bool {
        if dent.depth() == 0 {
            return true;
        }
        let kind = match dent.file_type() {
            Some(t) if t.is_symlink() => EntryKind::Symlink,
            Some(t) if t.is_dir() => EntryKind::Dir,
            Some(_) => EntryKind::File,
            None => return true,
        };
        if !(self.opts.kinds.is_empty() || self.opts.kinds.contains(&kind)) {
            return true;
        }
        let path = self.root.strip(dent.path());
        if !self.patterns.includes(path, last_name(path)) {
            return true;
        }
        // A plain listing takes no stat, so it costs what `rg --files` does. An entry gone between
        // the listing and its stat is skipped, as the collected listing skips it.
        let (size, mtime_ms) = match self.format {
            GlobFormat::Plain => (0, 0.0),
            _ => match size_and_mtime(dent) {
                Some(stat) => stat,
                None => return true,
            },
        };
        if self.printed.fetch_add(1, Ordering::Relaxed) >= self.limit {
            return false;
        }
        line.clear();
        format_entry(line, self.format, self.prefix, path, kind, size, mtime_ms);
        self.outbox.write(None, line) && self.printed.load(Ordering::Relaxed) < self.limit
    }
}

/// Strips the root from the paths a walk yields by length alone: each is the root as spelled
/// joined with more names, and `Path::strip_prefix` would parse both into components per entry.
#[derive(Clone)]
struct RootPrefix {
    #[cfg(unix)]
    len: usize,
    #[cfg(not(unix))]
    root: std::path::PathBuf,
}

impl RootPrefix {
    #[cfg(unix)]
    fn new(root: &Path) -> Self {
        let spelled = as_bytes(root);
        Self { len: if spelled.ends_with(b"/") { spelled.len() } else { spelled.len() + 1 } }
    }

    #[cfg(unix)]
    fn strip<'p>(&self, path: &'p Path) -> &'p Path {
        as_bytes(path).get(self.len..).map_or(Path::new(""), from_bytes)
    }

    #[cfg(not(unix))]
    fn new(root: &Path) -> Self {
        Self { root: root.to_path_buf() }
    }

    #[cfg(not(unix))]
    fn strip<'p>(&self, path: &'p Path) -> &'p Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }
}

/// The last component of a relative path, without parsing the others.
#[cfg(unix)]
fn last_name(path: &Path) -> &Path {
    let bytes = as_bytes(path);
    bytes.iter().rposition(|&b| b == b'/').map_or(path, |at| from_bytes(&bytes[at + 1..]))
}

#[cfg(not(unix))]
fn last_name(path: &Path) -> &Path {
    path.file_name().map_or(path, Path::new)
}

#[cfg(unix)]
fn as_bytes(path: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes()
}

#[cfg(unix)]
fn from_bytes(bytes: &[u8]) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(std::ffi::OsStr::from_bytes(bytes))
}

/// As printed: the bytes on Unix, as rg prints them; `/`-separated text elsewhere.
#[cfg(unix)]
fn printed(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Borrowed(as_bytes(path))
}

#[cfg(not(unix))]
fn printed(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(path.to_string_lossy().replace('\\', "/").into_bytes())
}
