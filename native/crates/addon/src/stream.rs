//! `grepStream(options)` and `globStream(options)`: a search running on its own threads while JS
//! pulls its output, already formatted, one Buffer per chunk, or has it written to a descriptor:
//! `{ next(): Promise<Buffer | null>, pipeTo(fd): Promise<boolean>, close(): void,
//! summary(): StreamSummary | null }`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use omp_napi::{CallArgs, Env, Fields, NapiError, Result, Value, PANIC};
use omp_search::{CancelToken, GlobPrint, GrepPrint, Outbox, SearchError, StreamSummary};

use crate::errors;
use crate::fd_output::{self, ReaderWatch};
use crate::options::Word;

/// The shared search options but paging, which a stream does not do, plus how to print.
fn grep_options() -> Vec<&'static str> {
    let paging = ["offset", "limit"];
    crate::grep::SEARCH_OPTIONS.iter().copied().filter(|name| !paging.contains(name)).chain(PRINT_OPTIONS.iter().copied()).collect()
}

const PRINT_OPTIONS: &[&str] = &["withFilename", "sort", "json"];

pub fn grep_stream<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    let fields = Fields::from_value(args.arg(0)?, "options")?;
    fields.reject_unknown(&grep_options())?;
    let options = crate::grep::parse(&fields)?;
    let mut print = GrepPrint::default();
    fields.read_into("withFilename", &mut print.with_filename)?;
    fields.read_into("json", &mut print.json)?;
    if let Some(Word(order)) = fields.optional("sort")? {
        print.order = order;
    }
    start(args.env(), move |outbox, token| omp_search::grep_stream(&options, print, outbox, token))
}

pub fn glob_stream<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    let fields = Fields::from_value(args.arg(0)?, "options")?;
    fields.reject_unknown(&[crate::glob::LIST_OPTIONS, &["newestFirst", "prefix", "sort", "format"]].concat())?;
    let options = crate::glob::parse(&fields)?;
    let mut print = GlobPrint::default();
    fields.read_into("prefix", &mut print.prefix)?;
    if let Some(Word(order)) = fields.optional("sort")? {
        print.order = order;
    }
    if let Some(Word(format)) = fields.optional("format")? {
        print.format = format;
    }
    start(args.env(), move |outbox, token| omp_search::glob_stream(&options, &print, outbox, token))
}

/// The search's side of a stream, shared by its JS methods. When JS lets go of the stream without
/// closing it, the last method's finalizer drops this and the search stops.
struct Stream {
    outbox: Outbox,
    token: CancelToken,
    panic: Mutex<Option<String>>,
}

impl Stream {
    fn stop(&self) {
        self.token.cancel();
        self.outbox.close();
    }

    /// Once no chunk is left: whether the search ran to its end (false after `close()`), else
    /// the error it ended with.
    fn end(&self) -> Result<bool> {
        if let Some(message) = self.panic.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(NapiError::new(PANIC, message));
        }
        if self.outbox.is_closed() {
            return Ok(false);
        }
        match self.outbox.outcome() {
            Some(Err(err)) => Err(errors::search_error(err, None)),
            _ => Ok(true),
        }
    }

    /// Writes every chunk to `fd` as it comes; false when the reader went away, which stops the
    /// search (the watch sees it go even while the search has nothing to write).
    fn pipe_to(self: &Arc<Self>, fd: i32) -> Result<bool> {
        let stream = Arc::clone(self);
        let _watch = ReaderWatch::start(fd, move || stream.stop()).map_err(|err| write_error(&err))?;
        while let Some(chunk) = self.outbox.next_chunk() {
            let written = fd_output::write_all(fd, &chunk).map_err(|err| write_error(&err))?;
            self.outbox.recycle(chunk);
            if !written {
                self.stop();
                return Ok(false);
            }
        }
        self.end()
    }
}

fn write_error(err: &std::io::Error) -> NapiError {
    NapiError::new("OMP_IO", format!("cannot write the output: {err}"))
}

struct Handle(Arc<Stream>);

impl Drop for Handle {
    fn drop(&mut self) {
        self.0.stop();
    }
}

fn start<'e, S>(env: &'e Env, search: S) -> Result<Value<'e>>
where
    S: FnOnce(&Outbox, &CancelToken) -> std::result::Result<StreamSummary, SearchError> + Send + 'static,
{
    let stream = Arc::new(Stream { outbox: Outbox::default(), token: CancelToken::new(), panic: Mutex::new(None) });
    let worker = Arc::clone(&stream);
    std::thread::Builder::new()
        .name("omp-search".into())
        .spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| search(&worker.outbox, &worker.token)));
            let outcome = outcome.unwrap_or_else(|payload| {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "the search panicked".to_string());
                *worker.panic.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("Rust panic: {message}"));
                Err(SearchError::Cancelled)
            });
            worker.outbox.finish(outcome);
        })
        .map_err(|err| NapiError::new(PANIC, format!("cannot start a search thread: {err}")))?;

    let handle = Arc::new(Handle(stream));
    let out = env.object()?;
    let next_handle = Arc::clone(&handle);
    out.set(
        "next",
        env.function("next", move |args| {
            let (stream, owner) = (Arc::clone(&next_handle.0), Arc::clone(&next_handle.0));
            args.env().spawn_promise(
                move || match stream.outbox.next_chunk() {
                    Some(chunk) => Ok(Some(chunk)),
                    None => stream.end().map(|_| None),
                },
                move |env, chunk: Option<Vec<u8>>| match chunk {
                    Some(chunk) => {
                        let buffer = env.buffer(&chunk);
                        owner.outbox.recycle(chunk);
                        buffer
                    }
                    None => env.null(),
                },
            )
        })?,
    )?;
    let pipe_handle = Arc::clone(&handle);
    out.set(
        "pipeTo",
        env.function("pipeTo", move |args| {
            let fd: u32 = args.arg(0)?.convert("fd")?;
            let fd = i32::try_from(fd).map_err(|_| NapiError::invalid_argument(format!("fd: {fd} is not a file descriptor")))?;
            let stream = Arc::clone(&pipe_handle.0);
            args.env().spawn_promise(move || stream.pipe_to(fd), |env, finished| env.boolean(finished))
        })?,
    )?;
    let close_handle = Arc::clone(&handle);
    out.set(
        "close",
        env.function("close", move |args| {
            close_handle.0.stop();
            args.env().undefined()
        })?,
    )?;
    out.set(
        "summary",
        env.function("summary", move |args| {
            let env = args.env();
            match handle.0.outbox.outcome() {
                Some(Ok(summary)) => summary_to_js(env, &summary),
                _ => env.null(),
            }
        })?,
    )?;
    Ok(out.value())
}

fn summary_to_js<'e>(env: &'e Env, summary: &StreamSummary) -> Result<Value<'e>> {
    let out = env.object()?;
    out.set("totalMatches", summary.total_matches)?;
    out.set("filesWithMatches", summary.files_with_matches)?;
    out.set("filesSearched", summary.files_searched)?;
    out.set("binarySkipped", summary.binary_skipped)?;
    Ok(out.value())
}
