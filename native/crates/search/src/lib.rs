//! omp's file search: ripgrep's engine (grep + ignore crates) over a file or tree, glob listing and
//! fuzzy path matching. See `types.rs` for the contract.
//!
//! Every entry point blocks the calling thread until done and walks with its own scoped threads
//! (`threads`, 0 = one per core), all joined before it returns: call it from a worker thread,
//! never the JS thread. No global state, so concurrent calls are fine. A `CancelToken` clone can
//! be tripped from any thread; the walk stops at the next entry and the call returns `Cancelled`.
//! Relative paths and `-g` globs are resolved against the process's working directory, as rg
//! resolves them against its own.

mod entry_format;
mod error;
mod fuzzy;
mod glob;
mod grep;
mod sort;
mod stream;
mod types;
mod walk;

pub use stream::Outbox;
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

/// Streams `opts.paths`' matches into `outbox`, formatted as `rg -n --no-heading` prints them, in
/// `print.order`. Paging options (`offset`, `limit`) do not apply. Blocking; the outbox's
/// consumer reads from another thread, and closing it stops the search.
pub fn grep_stream(
    opts: &GrepOptions,
    print: GrepPrint,
    outbox: &Outbox,
    cancel: &CancelToken,
) -> Result<StreamSummary, SearchError> {
    grep::run_stream(opts, print, outbox, cancel)
}

/// Streams the entries under `opts.root` matching `opts.patterns` into `outbox`, one per line as
/// `print.format` says; `newest_first` sorts the whole listing by time first. Blocking.
pub fn glob_stream(
    opts: &GlobOptions,
    print: &GlobPrint,
    outbox: &Outbox,
    cancel: &CancelToken,
) -> Result<StreamSummary, SearchError> {
    glob::run_stream(opts, print, outbox, cancel)
}
