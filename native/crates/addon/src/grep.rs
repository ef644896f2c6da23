//! `grep(options): Promise<GrepResult>`.

use omp_napi::{CallArgs, Env, Fields, Result, Value};
use omp_search::{GrepFile, GrepLine, GrepOptions, GrepResult};

use crate::cancel::{Cancellation, CANCEL_OPTIONS};
use crate::options::{read_paths, Word};

/// What `parse` reads: the options `grep` and `grepStream` share.
pub const SEARCH_OPTIONS: &[&str] = &[
    "pattern",
    "paths",
    "globs",
    "types",
    "ignoreCase",
    "smartCase",
    "fixedStrings",
    "multiline",
    "hidden",
    "respectIgnore",
    "contextBefore",
    "contextAfter",
    "maxCount",
    "offset",
    "limit",
    "maxColumns",
    "mode",
    "threads",
];

pub fn grep<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    let fields = Fields::from_value(args.arg(0)?, "options")?;
    fields.reject_unknown(&[SEARCH_OPTIONS, CANCEL_OPTIONS].concat())?;
    let options = parse(&fields)?;
    let cancellation = Cancellation::from_options(&fields)?;
    cancellation.spawn(args.env(), move |token| omp_search::grep(&options, token), result_to_js)
}

pub fn parse(fields: &Fields<'_>) -> Result<GrepOptions> {
    let mut options = GrepOptions { pattern: fields.required("pattern")?, ..GrepOptions::default() };
    read_paths(fields, "paths", &mut options.paths)?;
    fields.read_into("globs", &mut options.globs)?;
    fields.read_into("types", &mut options.types)?;
    fields.read_into("ignoreCase", &mut options.ignore_case)?;
    fields.read_into("smartCase", &mut options.smart_case)?;
    fields.read_into("fixedStrings", &mut options.fixed_strings)?;
    fields.read_into("multiline", &mut options.multiline)?;
    fields.read_into("hidden", &mut options.hidden)?;
    fields.read_into("respectIgnore", &mut options.respect_ignore)?;
    fields.read_into("contextBefore", &mut options.context_before)?;
    fields.read_into("contextAfter", &mut options.context_after)?;
    options.max_count = fields.optional("maxCount")?;
    fields.read_into("offset", &mut options.offset)?;
    options.limit = fields.optional("limit")?;
    options.max_columns = fields.optional("maxColumns")?;
    if let Some(Word(mode)) = fields.optional("mode")? {
        options.mode = mode;
    }
    fields.read_into("threads", &mut options.threads)?;
    Ok(options)
}

fn result_to_js(env: &Env, result: GrepResult) -> Result<Value<'_>> {
    let mut files = env.array()?;
    for file in result.files {
        files.push(file_to_js(env, file)?)?;
    }
    let out = env.object()?;
    out.set("files", files)?;
    out.set("totalMatches", result.total_matches)?;
    out.set("filesWithMatches", result.files_with_matches)?;
    out.set("filesSearched", result.files_searched)?;
    out.set("binarySkipped", result.binary_skipped)?;
    out.set("limitReached", result.limit_reached)?;
    Ok(out.value())
}

fn file_to_js(env: &Env, file: GrepFile) -> Result<Value<'_>> {
    let mut lines = env.array()?;
    for line in file.lines {
        lines.push(line_to_js(env, line)?)?;
    }
    let out = env.object()?;
    out.set("path", file.path)?;
    out.set("lines", lines)?;
    out.set("matchCount", file.match_count)?;
    Ok(out.value())
}

fn line_to_js(env: &Env, line: GrepLine) -> Result<Value<'_>> {
    let out = env.object()?;
    out.set("lineNumber", line.line_number)?;
    out.set("text", line.text)?;
    out.set("kind", line.kind.word())?;
    out.set("truncated", line.truncated)?;
    Ok(out.value())
}
