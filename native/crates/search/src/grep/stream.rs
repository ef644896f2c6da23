//! Streaming grep: each file's lines are formatted on the worker that searched it, exactly as
//! `rg -n --no-heading` prints them, and leave through the `Outbox` in path order (a reorder
//! window) or as they finish.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::{DirEntry, WalkState};

use super::sink::{truncated_placeholder, FileHits};
use super::{prepare, Prepared, Searched, Stats};
use crate::sort::by_path_bytes;
use crate::stream::{json, ordered, Outbox};
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
            let gathered = search_unordered(&prepared, opts, cancel, &stats, &|path, hits, out| {
                let mut block = Vec::new();
                format.file(&mut block, path, hits, &totals);
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
        // A file's hits wait in the window as the searcher left them and are formatted straight
        // into the outbox when their turn comes: no block per file to allocate and copy again.
        // A file with a lot of output prints it while it is searched once every earlier file is
        // out, so that it is never held whole, nor copied whole into the outbox.
        SortOrder::Path => prepared.walk.sorted(prepared.threads, |walk| {
            let separator = |hits: &FileHits| if hits.spilled_last.is_some() { None } else { separator };
            ordered::run(
                walk,
                prepared.threads,
                cancel,
                super::searchable,
                || {
                    let mut worker = prepared.worker(opts, cancel, &stats);
                    let (format, separator) = (&format, &separator);
                    move |dent: DirEntry, turn: &ordered::Turn<'_>| {
                        let mut spill = |hits: &FileHits| {
                            turn.is_next().then(|| outbox.write_with(separator(hits), |out| format.lines_of(out, dent.path(), hits)))
                        };
                        match worker.search_entry(&dent, false, Some(&mut spill)) {
                            Searched::Hits(hits) => Some((dent.into_path(), hits)),
                            Searched::Nothing | Searched::Cancelled => None,
                        }
                    }
                },
                |(path, hits)| {
                    let written = outbox.write_with(separator(&hits), |out| format.file(out, &path, &hits, &totals));
                    prepared.spares.put(hits);
                    written
                },
            )
        }),
        SortOrder::None => search_unordered::<()>(&prepared, opts, cancel, &stats, &|path, hits, _| {
            outbox.write_with(separator, |out| format.file(out, path, hits, &totals))
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

/// Searches with the parallel walk, handing each file's hits to `emit` (false stops), on
/// whichever thread searched it, in no particular order.
fn search_unordered<T: Send>(
    prepared: &Prepared,
    opts: &GrepOptions,
    cancel: &CancelToken,
    stats: &Stats,
    emit: &(dyn Fn(&Path, &FileHits, &mut Vec<T>) -> bool + Sync),
) -> Result<Vec<T>, SearchError> {
    walk::collect(prepared.walk.parallel(), cancel, || {
        let mut worker = prepared.worker(opts, cancel, stats);
        move |dent: DirEntry, out: &mut Vec<T>| match worker.search_entry(&dent, false, None) {
            Searched::Hits(hits) => {
                let go_on = emit(dent.path(), &hits, out);
                worker.recycle(hits);
                if go_on {
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
    /// Appends one file's output to `out`: what is left of it when some was spilled. Paths and
    /// lines are printed as the bytes they are, as rg prints them.
    fn file(&self, out: &mut Vec<u8>, path: &Path, hits: &FileHits, totals: &Totals) {
        totals.matches.fetch_add(hits.match_count, Ordering::Relaxed);
        totals.files.fetch_add(1, Ordering::Relaxed);
        if self.mode == GrepMode::Content {
            return self.lines_of(out, path, hits);
        }
        let shown = self.default_root.map_or(path, |root| path.strip_prefix(root).unwrap_or(path));
        if self.json {
            return self.json_records(out, &shown.to_string_lossy(), hits);
        }
        let path = path_bytes(shown);
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
            GrepMode::Content => unreachable!("content is printed by lines_of"),
        }
    }

    /// Content mode: the lines `hits` holds.
    fn lines_of(&self, out: &mut Vec<u8>, path: &Path, hits: &FileHits) {
        let shown = self.default_root.map_or(path, |root| path.strip_prefix(root).unwrap_or(path));
        if self.json {
            return self.json_records(out, &shown.to_string_lossy(), hits);
        }
        let path = path_bytes(shown);
        out.reserve(hits.bytes.len() + hits.lines.len() * (path.len() + 8) + 16);
        self.lines(out, &path, hits);
    }

    /// `--json`: a record per line (content) or per file, as `JSON.stringify` wrote them when the
    /// CLI formatted collected results: paths and lines as text, invalid UTF-8 replaced.
    fn json_records(&self, out: &mut Vec<u8>, path: &str, hits: &FileHits) {
        out.reserve(hits.bytes.len() + hits.lines.len() * (path.len() + 64) + 64);
        if self.mode != GrepMode::Content {
            out.extend_from_slice(br#"{"type":"file","path":"#);
            json::push_string(out, path);
            let _ = writeln!(out, r#","count":{}}}"#, hits.match_count);
            return;
        }
        let mut start = 0;
        for line in &hits.lines {
            let text = &hits.bytes[start..line.end];
            start = line.end;
            let _ = write!(out, r#"{{"type":"{}","path":"#, line.kind.word());
            json::push_string(out, path);
            let _ = write!(out, r#","line":{},"text":"#, line.number);
            let text = if line.truncated { Cow::Borrowed(truncated_placeholder(line.kind)) } else { String::from_utf8_lossy(text) };
            json::push_string(out, &text);
            out.extend_from_slice(if line.truncated { &b",\"truncated\":true}\n"[..] } else { &b",\"truncated\":false}\n"[..] });
        }
    }

    fn lines(&self, out: &mut Vec<u8>, path: &[u8], hits: &FileHits) {
        let mut start = 0;
        let mut previous = hits.spilled_last;
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
