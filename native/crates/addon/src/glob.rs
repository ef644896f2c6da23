//! `glob(options): Promise<GlobResult>`.

use omp_napi::{CallArgs, Env, Fields, Result, Value};
use omp_search::{GlobEntry, GlobOptions, GlobResult};

use crate::cancel::{Cancellation, CANCEL_OPTIONS};
use crate::options::{read_path, Word};

/// What `parse` reads: the options `glob` and `globStream` share.
pub const LIST_OPTIONS: &[&str] = &["patterns", "root", "kinds", "hidden", "respectIgnore", "maxResults", "threads"];

pub fn glob<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    let fields = Fields::from_value(args.arg(0)?, "options")?;
    fields.reject_unknown(&[LIST_OPTIONS, &["newestFirst"], CANCEL_OPTIONS].concat())?;
    let options = parse(&fields)?;
    let cancellation = Cancellation::from_options(&fields)?;
    cancellation.spawn(args.env(), move |token| omp_search::glob(&options, token), result_to_js)
}

pub fn parse(fields: &Fields<'_>) -> Result<GlobOptions> {
    let mut options = GlobOptions { patterns: fields.required("patterns")?, ..GlobOptions::default() };
    read_path(fields, "root", &mut options.root)?;
    if let Some(kinds) = fields.optional::<Vec<Word<_>>>("kinds")? {
        options.kinds = kinds.into_iter().map(|Word(kind)| kind).collect();
    }
    fields.read_into("hidden", &mut options.hidden)?;
    fields.read_into("respectIgnore", &mut options.respect_ignore)?;
    options.max_results = fields.optional("maxResults")?;
    fields.read_into("newestFirst", &mut options.newest_first)?;
    fields.read_into("threads", &mut options.threads)?;
    Ok(options)
}

fn result_to_js(env: &Env, result: GlobResult) -> Result<Value<'_>> {
    let mut entries = env.array()?;
    for entry in result.entries {
        entries.push(entry_to_js(env, entry)?)?;
    }
    let out = env.object()?;
    out.set("entries", entries)?;
    out.set("totalMatches", result.total_matches)?;
    out.set("limitReached", result.limit_reached)?;
    Ok(out.value())
}

fn entry_to_js(env: &Env, entry: GlobEntry) -> Result<Value<'_>> {
    let out = env.object()?;
    out.set("path", entry.path)?;
    out.set("kind", entry.kind.word())?;
    out.set("size", entry.size)?;
    out.set("mtimeMs", entry.mtime_ms)?;
    Ok(out.value())
}
