//! The `omp_natives` addon: the JS surface declared in core/natives/api.ts, over omp-search.

mod cancel;
mod debug_panic;
mod errors;
mod fd_output;
mod fuzzy;
mod glob;
mod grep;
mod options;
mod stamp;
mod stat;
mod stream;

omp_napi::module_exports! {
    "grep" => grep::grep,
    "glob" => glob::glob,
    "grepStream" => stream::grep_stream,
    "globStream" => stream::glob_stream,
    "fuzzyFind" => fuzzy::fuzzy_find,
    "buildStamp" => stamp::build_stamp,
    "changedPaths" => stat::changed_paths,
    "changedPathsSync" => stat::changed_paths_sync,
    "debugPanic" => debug_panic::debug_panic,
}
