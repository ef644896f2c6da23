//! omp's file search: ripgrep's engine (grep + ignore crates) over a file or tree, glob listing and
//! fuzzy path matching. See `types.rs` for the contract.

mod error;
mod fuzzy;
mod glob;
mod grep;
mod sort;
mod types;
mod walk;

pub use types::*;

/// Searches `opts.paths` for `opts.pattern`. Blocking; call it off the JS thread.
pub fn grep(opts: &GrepOptions, cancel: &CancelToken) -> Result<GrepResult, SearchError> {
    grep::run(opts, cancel)
}

/// Lists entries under `opts.root` that match `opts.patterns`. Blocking.
pub fn glob(opts: &GlobOptions, cancel: &CancelToken) -> Result<GlobResult, SearchError> {
    glob::run(opts, cancel)
}

/// Scores every path under `opts.root` against `query`. Blocking.
pub fn fuzzy_find(query: &str, opts: &FuzzyOptions, cancel: &CancelToken) -> Result<FuzzyResult, SearchError> {
    fuzzy::run(query, opts, cancel)
}
