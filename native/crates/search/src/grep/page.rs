//! Applies `offset`/`limit` to the sorted per-file results and builds the public `GrepResult`.

use super::sink::FileHits;
use crate::types::{GrepFile, GrepLine, GrepMode, GrepResult, LineKind};

pub(super) struct Paging {
    pub mode: GrepMode,
    pub offset: usize,
    pub limit: Option<usize>,
    pub context_before: u64,
    pub context_after: u64,
}

/// Builds the result from files fed in output order, each as (display path, hits). Content mode
/// pages over counted matches (a multi-line match is one unit and is never split); the other
/// modes page over files. Totals count every file; only files on the page keep their lines, so
/// memory is bounded by the page.
pub(super) struct Pager<'p> {
    paging: &'p Paging,
    result: GrepResult,
    units_before: u64,
}

impl<'p> Pager<'p> {
    pub fn new(paging: &'p Paging) -> Self {
        Self { paging, result: GrepResult::default(), units_before: 0 }
    }

    fn end(&self) -> u64 {
        let start = self.paging.offset as u64;
        self.paging.limit.map_or(u64::MAX, |limit| start.saturating_add(limit as u64))
    }

    /// Whether the page is complete and known not to be the last: later files only add to the
    /// totals, so they need no lines.
    pub fn past_page(&self) -> bool {
        self.units_before > self.end()
    }

    pub fn push(&mut self, path: String, file: FileHits) {
        let paging = self.paging;
        let (start, end) = (paging.offset as u64, self.end());
        self.result.total_matches += file.match_count;
        self.result.files_with_matches += 1;
        let units = if paging.mode == GrepMode::Content { file.groups } else { 1 };
        let before = self.units_before;
        let lo = start.clamp(before, before + units) - before;
        let hi = end.clamp(before, before + units) - before;
        self.units_before += units;
        if lo == hi {
            return;
        }
        let lines =
            if paging.mode == GrepMode::Content { select(&file, lo as usize, hi as usize, paging) } else { Vec::new() };
        self.result.files.push(GrepFile { path, lines, match_count: file.match_count });
    }

    pub fn finish(mut self) -> GrepResult {
        self.result.limit_reached = self.past_page();
        self.result
    }
}

/// The match lines of groups `lo..hi` and the context lines rg would print around them. Every
/// context line the searcher emitted lies within `B` lines before or `A` lines after some match,
/// so the window from the first selected match back `B` lines to the last selected match forward
/// `A` lines holds exactly the selected matches' context.
fn select(file: &FileHits, lo: usize, hi: usize, paging: &Paging) -> Vec<GrepLine> {
    let first_idx = file.group_starts[lo];
    let end_idx = file.group_starts.get(hi).copied().unwrap_or(file.lines.len());
    let is_selected_match = |i: usize| i >= first_idx && i < end_idx && file.lines[i].kind == LineKind::Match;
    let whole_file = lo == 0 && hi == file.group_starts.len();
    if whole_file {
        return (0..file.lines.len()).map(|i| file.line(i)).collect();
    }
    let last_idx = (first_idx..end_idx).rev().find(|&i| is_selected_match(i)).unwrap_or(first_idx);
    let from = file.lines[first_idx].number.saturating_sub(paging.context_before);
    let to = file.lines[last_idx].number.saturating_add(paging.context_after);
    (0..file.lines.len())
        .filter(|&i| match file.lines[i].kind {
            LineKind::Match => is_selected_match(i),
            LineKind::Context => (from..=to).contains(&file.lines[i].number),
        })
        .map(|i| file.line(i))
        .collect()
}
