//! Promises settled from Rust.

use std::ptr;

use crate::env::Env;
use crate::error::{NapiError, Result};
use crate::sys;
use crate::value::Value;

/// The settle side of a promise. Consumed by `settle`, so a promise settles at most once.
pub(crate) struct Deferred {
    raw: sys::napi_deferred,
}

impl Env {
    pub(crate) fn promise(&self) -> Result<(Deferred, Value<'_>)> {
        let mut deferred = ptr::null_mut();
        // SAFETY: live env on the JS thread; both out-pointers are valid.
        let promise = self
            .make("napi_create_promise", |out| unsafe { sys::napi_create_promise(self.raw(), &mut deferred, out) })?;
        Ok((Deferred { raw: deferred }, promise))
    }

    /// A promise already rejected with `err`: for failures known before any work starts, which
    /// the caller still expects to see as a rejection.
    pub fn rejected_promise(&self, err: NapiError) -> Result<Value<'_>> {
        let (deferred, promise) = self.promise()?;
        deferred.settle(self, Err(err));
        Ok(promise)
    }
}

impl Deferred {
    /// Resolves with the value, or rejects with the error (or the pending JS exception). If not
    /// even an error object can be made, rejects with `undefined` rather than hang the caller.
    pub(crate) fn settle(self, env: &Env, outcome: Result<Value<'_>>) {
        match outcome {
            // SAFETY: `self.raw` came from napi_create_promise and is consumed here, once; `value`
            // is a live handle of this env.
            Ok(value) => unsafe {
                sys::napi_resolve_deferred(env.raw(), self.raw, value.raw());
            },
            Err(err) => {
                if let Ok(reason) = env.error_value(&err).or_else(|_| env.undefined()) {
                    // SAFETY: as for resolving.
                    unsafe { sys::napi_reject_deferred(env.raw(), self.raw, reason.raw()) };
                }
            }
        }
    }
}
