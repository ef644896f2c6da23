//! `fuzzy_find`: ranks the files and directories under a root against a typed query.

mod score;

use ignore::{DirEntry, WalkState};

use self::score::{Query, Scorer};
use crate::error::check_root;
use crate::sort::by_path;
use crate::types::{CancelToken, FuzzyMatch, FuzzyOptions, FuzzyResult, SearchError};
use crate::walk::{self, relative_slash, WalkOptions};

pub(crate) fn run(query: &str, opts: &FuzzyOptions, cancel: &CancelToken) -> Result<FuzzyResult, SearchError> {
    if cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }
    check_root(&opts.root)?;
    let query = Query::parse(query);
    let walk_opts = WalkOptions {
        hidden: opts.hidden,
        respect_ignore: opts.respect_ignore,
        threads: opts.threads,
        skip_git_dir: true,
    };
    let walker = walk::builder(std::slice::from_ref(&opts.root), &walk_opts).build_parallel();
    let mut matches = walk::collect(walker, cancel, || {
        let mut scorer = Scorer::default();
        let query = &query;
        move |dent: DirEntry, out: &mut Vec<FuzzyMatch>| {
            let is_dir = match dent.file_type() {
                Some(t) if t.is_dir() => true,
                Some(t) if t.is_file() => false,
                _ => return WalkState::Continue,
            };
            if dent.depth() == 0 {
                return WalkState::Continue;
            }
            let path = relative_slash(&opts.root, dent.path());
            if let Some(score) = scorer.score(query, &path) {
                out.push(FuzzyMatch { path: path.into_owned(), is_dir, score });
            }
            WalkState::Continue
        }
    })?;

    matches.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.len().cmp(&b.path.len()))
            .then_with(|| by_path(&a.path, &b.path))
    });
    let total = matches.len() as u64;
    matches.truncate(opts.max_results);
    Ok(FuzzyResult { matches, total_matches: total })
}
