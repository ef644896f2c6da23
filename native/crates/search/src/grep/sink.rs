//! Sinks that turn the searcher's callbacks into per-file results, reproducing the decisions
//! ripgrep's printers make: its standard printer for content mode, its summary printer for counts
//! and file lists.

use std::cmp;
use std::io;

use grep::matcher::Matcher;
use grep::regex::RegexMatcher;
use grep::searcher::{Searcher, Sink, SinkContext, SinkContextKind, SinkMatch};

use crate::types::{CancelToken, GrepLine, LineKind};

/// How far past a multi-line match the summary printer lets the regex look when re-finding the
/// individual matches in it (grep-printer's `MAX_LOOK_AHEAD`).
const MAX_LOOK_AHEAD: usize = 128;

/// One emitted line and, for match lines, the counted match it belongs to. Paging selects counted
/// matches; context lines are kept or dropped by distance.
pub(super) struct Hit {
    pub line: GrepLine,
    pub group: Option<u64>,
}

#[derive(Default)]
pub(super) struct FileHits {
    pub hits: Vec<Hit>,
    /// What `rg -c` reports for the file.
    pub match_count: u64,
    /// Counted sink matches: the unit of paging in content mode.
    pub groups: u64,
    pub binary: bool,
    pub cancelled: bool,
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

/// Content mode: matching lines with context, like rg's standard printer.
pub(super) struct LineSink<'a, 'm> {
    pub out: &'a mut FileHits,
    pub counter: &'a Counter<'m>,
    pub cancel: &'a CancelToken,
    pub max_count: Option<u64>,
    pub max_columns: Option<usize>,
    /// Every `matched` call, including ones past `max_count` (rg's `match_count`).
    pub calls: u64,
    pub after_remaining: u64,
}

impl<'a, 'm> LineSink<'a, 'm> {
    /// rg keeps going past the max-th match only to print its after-context.
    fn should_quit(&self) -> bool {
        match self.max_count {
            Some(limit) => self.calls >= limit && self.after_remaining == 0,
            None => false,
        }
    }

    fn push(&mut self, bytes: &[u8], line_number: u64, kind: LineKind, group: Option<u64>) {
        let line = make_line(bytes, line_number, kind, self.max_columns);
        self.out.hits.push(Hit { line, group });
    }
}

impl<'a, 'm> Sink for LineSink<'a, 'm> {
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
            self.out.match_count += self.counter.count(mat)?;
        }
        let group = self.out.groups - 1;
        let first = mat.line_number().unwrap_or(1);
        for (i, line) in mat.lines().enumerate() {
            self.push(line, first + i as u64, LineKind::Match, Some(group));
        }
        Ok(!self.should_quit())
    }

    fn context(&mut self, _searcher: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.cancel.is_cancelled() {
            self.out.cancelled = true;
            return Ok(false);
        }
        if *ctx.kind() == SinkContextKind::After {
            self.after_remaining = self.after_remaining.saturating_sub(1);
        }
        self.push(ctx.bytes(), ctx.line_number().unwrap_or(1), LineKind::Context, None);
        Ok(!self.should_quit())
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

/// `bytes` is one line with its terminator. rg's `-M` compares the length including the `\n`
/// (so `-M 3` omits `foo\n`), and without colour or `--column` it does not count the matches in
/// an omitted line, hence these placeholders.
fn make_line(bytes: &[u8], line_number: u64, kind: LineKind, max_columns: Option<usize>) -> GrepLine {
    if max_columns.map_or(false, |max| bytes.len() > max) {
        let text = match kind {
            LineKind::Match => "[Omitted long matching line]",
            LineKind::Context => "[Omitted long context line]",
        };
        return GrepLine { line_number, text: text.to_string(), kind, truncated: true };
    }
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    GrepLine { line_number, text: String::from_utf8_lossy(bytes).into_owned(), kind, truncated: false }
}
