//! Applies `offset`/`limit` to the sorted per-file results and builds the public `GrepResult`.

use super::sink::{FileHits, Hit};
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
        let lo = start.max(units_before).min(units_before + units) - units_before;
        let hi = end.max(units_before).min(units_before + units) - units_before;
        units_before += units;
        if lo == hi {
            continue;
        }
        let lines = if paging.mode != GrepMode::Content {
            Vec::new()
        } else if lo == 0 && hi == units {
            file.hits.into_iter().map(|hit| hit.line).collect()
        } else {
            select(file.hits, lo, hi, paging)
        };
        result.files.push(GrepFile { path, lines, match_count: file.match_count });
    }
    result.limit_reached = units_before > end;
    result
}

/// Keeps the match lines of groups `lo..hi` and the context lines rg would print around them:
/// every context line the searcher emitted lies within the window of some match, so the window
/// from the first selected match back `B` lines to the last selected match forward `A` lines is
/// exactly the selected matches' context.
fn select(hits: Vec<Hit>, lo: u64, hi: u64, paging: &Paging) -> Vec<GrepLine> {
    let in_page = |group: Option<u64>| group.map_or(false, |g| g >= lo && g < hi);
    let first = hits.iter().find(|hit| in_page(hit.group)).map_or(0, |hit| hit.line.line_number);
    let last = hits.iter().rev().find(|hit| in_page(hit.group)).map_or(0, |hit| hit.line.line_number);
    let from = first.saturating_sub(paging.context_before);
    let to = last.saturating_add(paging.context_after);
    hits.into_iter()
        .filter(|hit| match hit.line.kind {
            LineKind::Match => in_page(hit.group),
            LineKind::Context => hit.line.line_number >= from && hit.line.line_number <= to,
        })
        .map(|hit| hit.line)
        .collect()
}
