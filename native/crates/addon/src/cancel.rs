//! Cancellation: the `signal` and `timeoutMs` options become an omp-search `CancelToken`, and a
//! search runs off the JS thread under it.

use std::time::{Duration, Instant};

use omp_napi::{AbortListener, AbortSignal, Env, Fields, Result, Value};
use omp_search::{CancelToken, SearchError};

use crate::errors;

/// The options `from_options` reads.
pub const CANCEL_OPTIONS: &[&str] = &["signal", "timeoutMs"];

pub enum Cancellation {
    /// The signal was aborted before the call: reject without starting.
    Aborted,
    Armed {
        token: CancelToken,
        timeout_ms: Option<u64>,
        /// Cancels `token` when the signal aborts; removed when the search settles.
        listener: Option<AbortListener>,
    },
}

impl Cancellation {
    pub fn none() -> Self {
        Self::Armed { token: CancelToken::new(), timeout_ms: None, listener: None }
    }

    /// Reads `signal` and `timeoutMs`. The timeout counts from this call, so time spent queued for
    /// a worker thread counts too.
    pub fn from_options(fields: &Fields<'_>) -> Result<Self> {
        let timeout_ms: Option<u64> = fields.optional("timeoutMs")?;
        let signal: Option<AbortSignal<'_>> = fields.optional("signal")?;
        if let Some(signal) = signal {
            if signal.aborted()? {
                return Ok(Self::Aborted);
            }
        }
        // A deadline too far away to represent is no deadline.
        let deadline = timeout_ms.and_then(|ms| Instant::now().checked_add(Duration::from_millis(ms)));
        let token = deadline.map_or_else(CancelToken::new, CancelToken::with_deadline);
        let listener = match signal {
            Some(signal) => {
                let token = token.clone();
                Some(signal.on_abort(move || token.cancel())?)
            }
            None => None,
        };
        Ok(Self::Armed { token, timeout_ms, listener })
    }

    /// Runs `search` on a worker thread and returns the promise of `to_js` of its result.
    pub fn spawn<'e, T, S, C>(self, env: &'e Env, search: S, to_js: C) -> Result<Value<'e>>
    where
        T: Send + 'static,
        S: FnOnce(&CancelToken) -> std::result::Result<T, SearchError> + Send + 'static,
        C: for<'a> FnOnce(&'a Env, T) -> Result<Value<'a>> + 'static,
    {
        let (token, timeout_ms, listener) = match self {
            Self::Aborted => return env.rejected_promise(errors::cancelled(None)),
            Self::Armed { token, timeout_ms, listener } => (token, timeout_ms, listener),
        };
        let work = move || {
            // An expired deadline (`timeoutMs: 0`) must not depend on how soon the engine polls.
            let outcome = if token.is_cancelled() { Err(SearchError::Cancelled) } else { search(&token) };
            // Once cancelled, the promise rejects even if the engine finished anyway: a result
            // the caller gave up on may be partial.
            let outcome =
                outcome.and_then(|value| if token.is_cancelled() { Err(SearchError::Cancelled) } else { Ok(value) });
            outcome.map_err(|err| errors::search_error(err, timeout_ms.filter(|_| token.timed_out())))
        };
        env.spawn_promise(work, move |env, value| {
            // Dropped here, or with this closure if the search failed: either way on the JS thread
            // once the search is over, which unregisters it from the signal.
            drop(listener);
            to_js(env, value)
        })
    }
}
