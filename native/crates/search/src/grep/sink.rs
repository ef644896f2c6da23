//! Sinks that turn the searcher's callbacks into per-file results, reproducing the decisions
//! ripgrep's printers make: its standard printer for content mode, its summary printer for counts
//! and file lists.

use std::cmp;
use std::io;
use std::sync::Mutex;

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkContextKind, SinkMatch};

use crate::types::{CancelToken, GrepLine, LineKind};

/// How far past a multi-line match the summary printer lets the regex look when re-finding the
/// individual matches in it (grep-printer's `MAX_LOOK_AHEAD`).
const MAX_LOOK_AHEAD: usize = 128;

/// One emitted line. Its text lives in `FileHits::bytes`, ending at `end`: workers copy bytes
/// into one buffer per file and only the lines that survive paging become `String`s, which keeps
/// allocation out of the parallel part for dense results.
pub(super) struct RawLine {
    pub number: u64,
    pub end: usize,
    pub kind: LineKind,
    /// Longer than `max_columns`: no bytes stored, the placeholder is printed instead.
    pub truncated: bool,
}

#[derive(Default)]
pub(super) struct FileHits {
    pub bytes: Vec<u8>,
    pub lines: Vec<RawLine>,
    /// Index in `lines` of the first line of each counted match; match lines up to the next
    /// entry (including matches rg prints past `max_count`) belong to it. Content mode only.
    pub group_starts: Vec<usize>,
    /// Counted matches (`matched` calls within `max_count`): the unit of paging in content mode.
    pub groups: u64,
    /// What `rg -c` reports for the file.
    pub match_count: u64,
    pub binary: bool,
    pub cancelled: bool,
    /// The number of the last line already printed while the file was still being searched
    /// (see `LineSink::spill`), whose lines are no longer here.
    pub spilled_last: Option<u64>,
}

impl FileHits {
    /// Empties it for the next file, keeping its buffers.
    pub fn reset(&mut self) {
        self.bytes.clear();
        self.lines.clear();
        self.group_starts.clear();
        self.groups = 0;
        self.match_count = 0;
        self.binary = false;
        self.cancelled = false;
        self.spilled_last = None;
    }

    /// The lines so far were printed: only their count and the last number stay.
    fn spilled(&mut self) {
        self.spilled_last = self.last_number();
        self.bytes.clear();
        self.lines.clear();
        self.group_starts.clear();
    }

    fn last_number(&self) -> Option<u64> {
        self.lines.last().map(|line| line.number).or(self.spilled_last)
    }

    /// Roughly what its lines hold in memory.
    fn held(&self) -> usize {
        self.bytes.len() + self.lines.len() * std::mem::size_of::<RawLine>()
    }

    /// Line `i` as the public type.
    pub fn line(&self, i: usize) -> GrepLine {
        let raw = &self.lines[i];
        let text = if raw.truncated {
            truncated_placeholder(raw.kind).to_string()
        } else {
            let start = if i == 0 { 0 } else { self.lines[i - 1].end };
            String::from_utf8_lossy(&self.bytes[start..raw.end]).into_owned()
        };
        GrepLine { line_number: raw.number, text, kind: raw.kind, truncated: raw.truncated }
    }

    /// `bytes` is one line with its terminator. rg's `-M` compares the length including the `\n`
    /// (so `-M 3` omits `foo\n`), and without colour or `--column` it does not count the matches
    /// in an omitted line, hence a fixed placeholder (see `line`). Only the `\n` is dropped: rg
    /// prints the `\r` of CRLF lines.
    fn push(&mut self, bytes: &[u8], number: u64, kind: LineKind, max_columns: Option<usize>) {
        let truncated = max_columns.map_or(false, |max| bytes.len() > max);
        if !truncated {
            self.bytes.extend_from_slice(bytes.strip_suffix(b"\n").unwrap_or(bytes));
        }
        self.lines.push(RawLine { number, end: self.bytes.len(), kind, truncated });
    }
}

/// `FileHits` handed back by whoever printed them (in path order, the thread whose result
/// completed the window, not the one that searched), for any worker to reuse. Holds a few: each
/// worker keeps one of its own besides.
pub(super) struct Spares {
    pool: Mutex<Vec<FileHits>>,
    max: usize,
}

impl Spares {
    pub fn new(max: usize) -> Self {
        Self { pool: Mutex::new(Vec::new()), max }
    }

    pub fn put(&self, hits: FileHits) {
        let mut pool = crate::walk::lock(&self.pool);
        if pool.len() < self.max {
            pool.push(hits);
        }
    }

    pub fn take(&self) -> Option<FileHits> {
        crate::walk::lock(&self.pool).pop()
    }
}

/// Counts matches the way `rg -c` does: one per reported match, except that in a true multi-line
/// search every match inside the reported lines counts.
pub(super) struct Counter<'m> {
    pub matcher: &'m RegexMatcher,
    pub multi_line: bool,
}

impl<'m> Counter<'m> {
    fn count(&self, mat: &SinkMatch<'_>) -> Result<u64, io::Error> {
        if !self.multi_line {
            return Ok(1);
        }
        let buf = mat.buffer();
        let range = mat.bytes_range_in_buffer();
        let haystack = &buf[..cmp::min(buf.len(), range.end + MAX_LOOK_AHEAD)];
        let mut count = 0;
        self.matcher
            .find_iter_at(haystack, range.start, |m| {
                if m.start() >= range.end {
                    return false;
                }
                count += 1;
                true
            })
            .map_err(|_| io::Error::new(io::ErrorKind::Other, "regex search failed"))?;
        Ok(count)
    }
}

/// Lines a sink holds before it offers them to its `Spill`, and again after each refusal.
const SPILL_BYTES: usize = 128 * 1024;

/// Prints a file's lines found so far while it is still being searched: `None` when that cannot
/// be done yet (an earlier file is not out), else whether the output still wants more.
pub(super) type Spill<'s> = dyn FnMut(&FileHits) -> Option<bool> + 's;

/// Content mode: matching lines with context, like rg's standard printer.
pub(super) struct LineSink<'a, 'm, 's> {
    pub out: &'a mut FileHits,
    pub counter: &'a Counter<'m>,
    pub cancel: &'a CancelToken,
    pub max_count: Option<u64>,
    pub max_columns: Option<usize>,
    /// Every `matched` call, including ones past `max_count` (rg's `match_count`).
    pub calls: u64,
    pub after_remaining: u64,
    /// A file with a lot of output is not held whole when its lines can go out as they come.
    pub spill: Option<&'a mut Spill<'s>>,
    pub spill_at: usize,
}

impl<'a, 'm, 's> LineSink<'a, 'm, 's> {
    pub fn new(out: &'a mut FileHits, counter: &'a Counter<'m>, cancel: &'a CancelToken, spill: Option<&'a mut Spill<'s>>) -> Self {
        Self { out, counter, cancel, max_count: None, max_columns: None, calls: 0, after_remaining: 0, spill, spill_at: SPILL_BYTES }
    }

    /// False when the output is gone: stop.
    fn offer(&mut self) -> bool {
        if self.out.held() < self.spill_at {
            return true;
        }
        let spill = match self.spill.as_mut() {
            Some(spill) => spill,
            None => return true,
        };
        match spill(self.out) {
            None => {
                self.spill_at = self.out.held() + SPILL_BYTES;
                true
            }
            Some(wanted) => {
                self.out.spilled();
                self.spill_at = SPILL_BYTES;
                if !wanted {
                    self.out.cancelled = true;
                }
                wanted
            }
        }
    }

    /// rg keeps going past the max-th match only to print its after-context.
    fn should_quit(&self) -> bool {
        match self.max_count {
            Some(limit) => self.calls >= limit && self.after_remaining == 0,
            None => false,
        }
    }
}

impl<'a, 'm, 's> Sink for LineSink<'a, 'm, 's> {
    type Error = io::Error;

    fn begin(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        Ok(self.max_count != Some(0))
    }

    fn matched(&mut self, searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        if self.cancel.is_cancelled() {
            self.out.cancelled = true;
            return Ok(false);
        }
        self.calls += 1;
        // A match inside the after-context of the max-th match is still printed as a match by rg,
        // but it only uses up context instead of starting a new countdown.
        let past_limit = self.max_count.map_or(false, |limit| self.calls > limit);
        if past_limit {
            self.after_remaining = self.after_remaining.saturating_sub(1);
        } else {
            self.after_remaining = searcher.after_context() as u64;
            self.out.groups += 1;
            self.out.group_starts.push(self.out.lines.len());
            self.out.match_count += self.counter.count(mat)?;
        }
        let first = mat.line_number().unwrap_or(1);
        for (i, line) in mat.lines().enumerate() {
            self.out.push(line, first + i as u64, LineKind::Match, self.max_columns);
        }
        Ok(self.offer() && !self.should_quit())
    }

    fn context(&mut self, _searcher: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.cancel.is_cancelled() {
            self.out.cancelled = true;
            return Ok(false);
        }
        if *ctx.kind() == SinkContextKind::After {
            self.after_remaining = self.after_remaining.saturating_sub(1);
        }
        let number = ctx.line_number().unwrap_or(1);
        // In multi-line mode with a max count the searcher can hand the same after-context line
        // over twice (rg 13 prints it twice); each line is reported once.
        if self.out.last_number().map_or(false, |last| last >= number) {
            return Ok(!self.should_quit());
        }
        self.out.push(ctx.bytes(), number, LineKind::Context, self.max_columns);
        Ok(self.offer() && !self.should_quit())
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        self.out.binary = true;
        Ok(true)
    }
}

/// Count and files-with-matches modes, like rg's summary printer.
pub(super) struct CountSink<'a, 'm> {
    pub out: &'a mut FileHits,
    pub counter: &'a Counter<'m>,
    pub cancel: &'a CancelToken,
    pub max_count: Option<u64>,
    /// `-l` stops at the first match.
    pub quit_early: bool,
}

impl<'a, 'm> Sink for CountSink<'a, 'm> {
    type Error = io::Error;

    fn begin(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        Ok(self.max_count != Some(0))
    }

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        if self.cancel.is_cancelled() {
            self.out.cancelled = true;
            return Ok(false);
        }
        self.out.groups += 1;
        self.out.match_count += self.counter.count(mat)?;
        if self.quit_early {
            return Ok(false);
        }
        Ok(self.max_count.map_or(true, |limit| self.out.match_count < limit))
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        self.out.binary = true;
        Ok(true)
    }
}

/// What rg prints instead of a line longer than `-M`.
pub(crate) fn truncated_placeholder(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Match => "[Omitted long matching line]",
        LineKind::Context => "[Omitted long context line]",
    }
}
