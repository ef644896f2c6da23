//! omp's file search: ripgrep's engine (grep + ignore crates) over a file or tree, glob listing and
//! fuzzy path matching. See `types.rs` for the contract.

mod types;

pub use types::*;

/// Searches `opts.paths` for `opts.pattern`. Blocking; call it off the JS thread.
pub fn grep(opts: &GrepOptions, cancel: &CancelToken) -> Result<GrepResult, SearchError> {
    let _ = (opts, cancel);
    Err(SearchError::InvalidOptions { message: "grep is not implemented yet".into() })
}

/// Lists entries under `opts.root` that match `opts.patterns`. Blocking.
pub fn glob(opts: &GlobOptions, cancel: &CancelToken) -> Result<GlobResult, SearchError> {
    let _ = (opts, cancel);
    Err(SearchError::InvalidOptions { message: "glob is not implemented yet".into() })
}

/// Scores every path under `opts.root` against `query`. Blocking.
pub fn fuzzy_find(query: &str, opts: &FuzzyOptions, cancel: &CancelToken) -> Result<FuzzyResult, SearchError> {
    let _ = (query, opts, cancel);
    Err(SearchError::InvalidOptions { message: "fuzzy_find is not implemented yet".into() })
}
