//! Streaming grep: each file's lines are formatted on the worker that searched it, exactly as
//! `rg -n --no-heading` prints them, and leave through the `Outbox` in path order (a reorder
//! window) or as they finish.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::{DirEntry, WalkState};

use super::sink::{truncated_placeholder, FileHits};
use super::{ordered, prepare, Prepared, Searched, Stats};
use crate::sort::by_path_bytes;
use crate::stream::{json, Outbox};
use crate::types::{CancelToken, GrepMode, GrepOptions, GrepPrint, LineKind, SearchError, SortOrder, StreamSummary};
use crate::walk;

/// Between context groups, as rg prints it.
const GROUP_SEPARATOR: &[u8] = b"--\n";

pub(crate) fn run_stream(
    opts: &GrepOptions,
    print: GrepPrint,
    outbox: &Outbox,
    cancel: &CancelToken,
) -> Result<StreamSummary, SearchError> {
    let prepared = prepare(opts, cancel)?;
    let format = Format {
        mode: opts.mode,
        with_filename: print.with_filename,
        context: opts.mode == GrepMode::Content && (opts.context_before > 0 || opts.context_after > 0),
        default_root: prepared.default_root.as_deref(),
        json: print.json,
    };
    let separator = if format.context && !format.json { Some(GROUP_SEPARATOR) } else { None };
    let stats = Stats::default();
    let totals = Totals::default();
    let finished = match print.order {
        SortOrder::Path if opts.mode != GrepMode::Content && prepared.walk.roots.len() == 1 => {
            // -l and -c print a line per file: gathered as the parallel walk finds them and
            // sorted at the end, which costs less than keeping the walk's order while searching.
            // Memory follows the files with matches, not their lines.
            let gathered = search_unordered(&prepared, opts, cancel, &stats, &format, &totals, &|path, block, out| {
                out.push((path.to_path_buf(), block));
                true
            });
            match gathered {
                Ok(mut blocks) => {
                    blocks.sort_unstable_by(|a, b| by_path_bytes(&path_bytes(&a.0), &path_bytes(&b.0)));
                    blocks.iter().all(|(_, block)| outbox.write(None, block))
                }
                Err(_) => false,
            }
        }
        SortOrder::Path => prepared.walk.sorted(prepared.threads, |walk| {
            ordered::run(
                walk,
                prepared.threads,
                cancel,
                super::searchable,
                || {
                    let mut worker = prepared.worker(opts, cancel, &stats);
                    let (format, totals) = (&format, &totals);
                    move |dent: DirEntry| match worker.search_entry(&dent, false) {
                        Searched::Hits(hits) => {
                            let block = format.file(dent.path(), &hits, totals);
                            worker.recycle(hits);
                            Some(block)
                        }
                        Searched::Nothing | Searched::Cancelled => None,
                    }
                },
                |block| outbox.write(separator, &block),
            )
        }),
        SortOrder::None => search_unordered::<()>(&prepared, opts, cancel, &stats, &format, &totals, &|_, block, _| {
            outbox.write(separator, &block)
        })
        .is_ok(),
    };
    if !finished || cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }
    Ok(StreamSummary {
        total_matches: totals.matches.load(Ordering::Relaxed),
        files_with_matches: totals.files.load(Ordering::Relaxed),
        files_searched: stats.searched.load(Ordering::Relaxed),
        binary_skipped: stats.binary.load(Ordering::Relaxed),
    })
}

/// Searches with the parallel walk, handing each file's output to `emit` (false stops), on
/// whichever thread searched it, in no particular order.
fn search_unordered<T: Send>(
    prepared: &Prepared,
    opts: &GrepOptions,
    cancel: &CancelToken,
    stats: &Stats,
    format: &Format<'_>,
    totals: &Totals,
    emit: &(dyn Fn(&Path, Vec<u8>, &mut Vec<T>) -> bool + Sync),
) -> Result<Vec<T>, SearchError> {
    walk::collect(prepared.walk.parallel(), cancel, || {
        let mut worker = prepared.worker(opts, cancel, stats);
        move |dent: DirEntry, out: &mut Vec<T>| match worker.search_entry(&dent, false) {
            Searched::Hits(hits) => {
                let block = format.file(dent.path(), &hits, totals);
                worker.recycle(hits);
                if emit(dent.path(), block, out) {
                    WalkState::Continue
                } else {
                    WalkState::Quit
                }
            }
            Searched::Nothing => WalkState::Continue,
            Searched::Cancelled => WalkState::Quit,
        }
    })
}

#[derive(Default)]
struct Totals {
    matches: AtomicU64,
    files: AtomicU64,
}

struct Format<'a> {
    mode: GrepMode,
    with_filename: bool,
    context: bool,
    default_root: Option<&'a Path>,
    json: bool,
}

impl<'a> Format<'a> {
    /// One file's output. Paths and lines are printed as the bytes they are, as rg prints them.
    fn file(&self, path: &Path, hits: &FileHits, totals: &Totals) -> Vec<u8> {
        totals.matches.fetch_add(hits.match_count, Ordering::Relaxed);
        totals.files.fetch_add(1, Ordering::Relaxed);
        let shown = self.default_root.map_or(path, |root| path.strip_prefix(root).unwrap_or(path));
        if self.json {
            return self.json_records(&shown.to_string_lossy(), hits);
        }
        let path = path_bytes(shown);
        let mut out = Vec::with_capacity(hits.bytes.len() + hits.lines.len() * (path.len() + 8) + 16);
        match self.mode {
            GrepMode::FilesWithMatches => {
                out.extend_from_slice(&path);
                out.push(b'\n');
            }
            GrepMode::Count => {
                if self.with_filename {
                    out.extend_from_slice(&path);
                    out.push(b':');
                }
                let _ = writeln!(out, "{}", hits.match_count);
            }
            GrepMode::Content => self.lines(&mut out, &path, hits),
        }
        out
    }

    /// `--json`: a record per line (content) or per file, as `JSON.stringify` wrote them when the
    /// CLI formatted collected results: paths and lines as text, invalid UTF-8 replaced.
    fn json_records(&self, path: &str, hits: &FileHits) -> Vec<u8> {
        let mut out = Vec::with_capacity(hits.bytes.len() + hits.lines.len() * (path.len() + 64) + 64);
        if self.mode != GrepMode::Content {
            out.extend_from_slice(br#"{"type":"file","path":"#);
            json::push_string(&mut out, path);
            let _ = writeln!(out, r#","count":{}}}"#, hits.match_count);
            return out;
        }
        let mut start = 0;
        for line in &hits.lines {
            let text = &hits.bytes[start..line.end];
            start = line.end;
            let _ = write!(out, r#"{{"type":"{}","path":"#, line.kind.word());
            json::push_string(&mut out, path);
            let _ = write!(out, r#","line":{},"text":"#, line.number);
            let text = if line.truncated { Cow::Borrowed(truncated_placeholder(line.kind)) } else { String::from_utf8_lossy(text) };
            json::push_string(&mut out, &text);
            out.extend_from_slice(if line.truncated { &b",\"truncated\":true}\n"[..] } else { &b",\"truncated\":false}\n"[..] });
        }
        out
    }

    fn lines(&self, out: &mut Vec<u8>, path: &[u8], hits: &FileHits) {
        let mut start = 0;
        let mut previous: Option<u64> = None;
        for line in &hits.lines {
            let text = &hits.bytes[start..line.end];
            start = line.end;
            if self.context && previous.map_or(false, |p| line.number != p + 1) {
                out.extend_from_slice(GROUP_SEPARATOR);
            }
            previous = Some(line.number);
            let sep = if line.kind == LineKind::Match { b':' } else { b'-' };
            if self.with_filename {
                out.extend_from_slice(path);
                out.push(sep);
            }
            let _ = write!(out, "{}", line.number);
            out.push(sep);
            if line.truncated {
                out.extend_from_slice(truncated_placeholder(line.kind).as_bytes());
            } else {
                out.extend_from_slice(text);
            }
            out.push(b'\n');
        }
    }
}

#[cfg(unix)]
pub(crate) fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
pub(crate) fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
}
