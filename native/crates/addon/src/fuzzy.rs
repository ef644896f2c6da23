//! `fuzzyFind(query, options?): Promise<FuzzyResult>`.

use omp_napi::{CallArgs, Env, Fields, Result, Value};
use omp_search::{FuzzyMatch, FuzzyOptions, FuzzyResult};

use crate::cancel::Cancellation;
use crate::options::read_path;

const OPTIONS: &[&str] = &["root", "hidden", "respectIgnore", "maxResults", "threads", "signal", "timeoutMs"];

pub fn fuzzy_find<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    let query: String = args.arg(0)?.convert("query")?;
    let given = args.arg(1)?;
    let (options, cancellation) = if given.is_nullish()? {
        (FuzzyOptions::default(), Cancellation::none())
    } else {
        let fields = Fields::from_value(given, "options")?;
        fields.reject_unknown(OPTIONS)?;
        let options = parse(&fields)?;
        (options, Cancellation::from_options(&fields)?)
    };
    cancellation.spawn(args.env(), move |token| omp_search::fuzzy_find(&query, &options, token), result_to_js)
}

fn parse(fields: &Fields<'_>) -> Result<FuzzyOptions> {
    let mut options = FuzzyOptions::default();
    read_path(fields, "root", &mut options.root)?;
    fields.read_into("hidden", &mut options.hidden)?;
    fields.read_into("respectIgnore", &mut options.respect_ignore)?;
    fields.read_into("maxResults", &mut options.max_results)?;
    fields.read_into("threads", &mut options.threads)?;
    Ok(options)
}

fn result_to_js(env: &Env, result: FuzzyResult) -> Result<Value<'_>> {
    let mut matches = env.array()?;
    for found in result.matches {
        matches.push(match_to_js(env, found)?)?;
    }
    let out = env.object()?;
    out.set("matches", matches)?;
    out.set("totalMatches", result.total_matches)?;
    Ok(out.value())
}

fn match_to_js(env: &Env, found: FuzzyMatch) -> Result<Value<'_>> {
    let out = env.object()?;
    out.set("path", found.path)?;
    out.set("isDir", found.is_dir)?;
    out.set("score", found.score)?;
    Ok(out.value())
}
