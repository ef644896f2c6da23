//! Translates `GrepOptions` into the matcher, searcher and walk filters ripgrep 13 would build for
//! the equivalent flags.

use std::path::PathBuf;

use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};

use crate::error::from_ignore;
use crate::types::{GrepMode, GrepOptions, SearchError};

pub(super) fn matcher(opts: &GrepOptions) -> Result<RegexMatcher, SearchError> {
    let pattern = if opts.fixed_strings { regex::escape(&opts.pattern) } else { opts.pattern.clone() };
    let mut builder = RegexMatcherBuilder::new();
    builder
        .case_smart(opts.smart_case && !opts.ignore_case)
        .case_insensitive(opts.ignore_case)
        .multi_line(true)
        .unicode(true)
        .octal(false)
        .dot_matches_new_line(false);
    // Without -U the matcher is told about the line terminator, which is what makes a literal
    // `\n` in the pattern an error and lets `\s` skip newlines; with -U it may cross lines.
    if !opts.multiline {
        builder.line_terminator(Some(b'\n'));
    }
    builder
        .build(&pattern)
        .map_err(|err| SearchError::BadPattern { pattern: opts.pattern.clone(), message: err.to_string() })
}

pub(super) fn searcher(opts: &GrepOptions) -> Searcher {
    let (before, after) =
        if opts.mode == GrepMode::Content { (opts.context_before, opts.context_after) } else { (0, 0) };
    SearcherBuilder::new()
        .line_terminator(LineTerminator::byte(b'\n'))
        .line_number(true)
        .multi_line(opts.multiline)
        .before_context(before)
        .after_context(after)
        .memory_map(mmap_choice(&opts.paths))
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .build()
}

/// rg's heuristic: memory maps only pay off for a few explicitly named files. It is not just
/// speed: a mapped file is searched as one slice, where binary `convert` cannot rewrite NUL bytes
/// into line breaks, so `rg -c` on a named binary file counts differently with and without it.
fn mmap_choice(paths: &[PathBuf]) -> MmapChoice {
    if !paths.is_empty() && paths.len() <= 10 && paths.iter().all(|p| p.is_file()) {
        // SAFETY: as in ripgrep, a file truncated while mapped may fault the process; that is
        // the accepted cost of the memory map for explicitly named files.
        unsafe { MmapChoice::auto() }
    } else {
        MmapChoice::never()
    }
}

/// ripgrep searches files it finds with `quit` (skip the rest of a file at its first NUL) and
/// files named on the command line with `convert`, which still counts their matches. In content
/// mode rg then prints "binary file matches" instead of lines, which `GrepFile` cannot express, so
/// there explicit files get `quit` as well and show up in `binary_skipped`.
pub(super) fn binary_detection(explicit: bool, mode: GrepMode) -> BinaryDetection {
    if explicit && mode != GrepMode::Content {
        BinaryDetection::convert(b'\x00')
    } else {
        BinaryDetection::quit(b'\x00')
    }
}

pub(super) fn types(names: &[String]) -> Result<Types, SearchError> {
    // Without a selection the definitions filter nothing, and adding them compiles a regex.
    if names.is_empty() {
        return Ok(Types::empty());
    }
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    for name in names {
        builder.select(name);
    }
    builder.build().map_err(|err| from_ignore(err, ""))
}

/// Globs are rooted at the process's working directory, as rg roots them, so `-g 'src/*.rs'`
/// means the same thing to both.
pub(super) fn overrides(globs: &[String]) -> Result<Override, SearchError> {
    if globs.is_empty() {
        return Ok(Override::empty());
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut builder = OverrideBuilder::new(cwd);
    for glob in globs {
        builder.add(glob).map_err(|err| from_ignore(err, glob))?;
    }
    builder.build().map_err(|err| from_ignore(err, ""))
}
