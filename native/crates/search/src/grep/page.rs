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

/// `files` must already be in output order, each as (display path, hits). Content mode pages
/// over counted matches (a multi-line match is one unit and is never split); the other modes page
/// over files. Totals are taken before paging.
pub(super) fn assemble(files: Vec<(String, FileHits)>, paging: &Paging) -> GrepResult {
    let mut result = GrepResult::default();
    let start = paging.offset as u64;
    let end = paging.limit.map_or(u64::MAX, |limit| start.saturating_add(limit as u64));
    let mut units_before = 0u64;
    for (path, file) in files {
        result.total_matches += file.match_count;
        result.files_with_matches += 1;
        let units = if paging.mode == GrepMode::Content { file.groups } else { 1 };
        let lo = start.clamp(units_before, units_before + units) - units_before;
        let hi = end.clamp(units_before, units_before + units) - units_before;
        units_before += units;
        if lo == hi {
            continue;
        }
        let lines =
            if paging.mode == GrepMode::Content { select(&file, lo as usize, hi as usize, paging) } else { Vec::new() };
        result.files.push(GrepFile { path, lines, match_count: file.match_count });
    }
    result.limit_reached = units_before > end;
    result
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
