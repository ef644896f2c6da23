//! The N-API environment handle: status checking, primitive constructors and the conversion of
//! `NapiError`s into thrown or rejected JS values.

use std::ffi::CStr;
use std::ptr;

use crate::error::{NapiError, Result, INTERNAL};
use crate::sys;
use crate::value::Value;

/// The host's environment for the current JS thread. It only exists inside callbacks the host
/// makes on that thread; the raw pointer keeps it `!Send`, and every `Value` borrows it, so no
/// handle outlives the callback that created it.
pub struct Env {
    raw: sys::napi_env,
}

impl Env {
    /// # Safety
    /// `raw` must be the env the host passed to the callback that is running now, on the JS thread.
    pub(crate) unsafe fn from_raw(raw: sys::napi_env) -> Self {
        Self { raw }
    }

    pub(crate) fn raw(&self) -> sys::napi_env {
        self.raw
    }

    /// `call` names the N-API function for the message of a failure.
    pub(crate) fn check(&self, status: sys::napi_status, call: &str) -> Result<()> {
        if status == sys::napi_ok {
            return Ok(());
        }
        let mut info: *const sys::napi_extended_error_info = ptr::null();
        // SAFETY: the env is live on this thread, and nothing ran since the failed call, so the
        // host's last-error record still describes it. The message is a NUL-terminated string the
        // host owns until its next N-API call; it is copied out before that.
        let detail = unsafe {
            if sys::napi_get_last_error_info(self.raw, &mut info) == sys::napi_ok
                && !info.is_null()
                && !(*info).error_message.is_null()
            {
                format!(": {}", CStr::from_ptr((*info).error_message).to_string_lossy())
            } else {
                String::new()
            }
        };
        Err(NapiError::new(INTERNAL, format!("{call} failed with status {status}{detail}")))
    }

    /// Runs an N-API call that writes one value into its out-parameter.
    pub(crate) fn make(
        &self,
        call: &str,
        f: impl FnOnce(*mut sys::napi_value) -> sys::napi_status,
    ) -> Result<Value<'_>> {
        let mut raw = ptr::null_mut();
        self.check(f(&mut raw), call)?;
        Ok(Value::from_raw(self, raw))
    }

    pub fn undefined(&self) -> Result<Value<'_>> {
        // SAFETY: live env on the JS thread; `out` is a valid out-pointer.
        self.make("napi_get_undefined", |out| unsafe { sys::napi_get_undefined(self.raw, out) })
    }

    pub fn null(&self) -> Result<Value<'_>> {
        // SAFETY: live env on the JS thread; `out` is a valid out-pointer.
        self.make("napi_get_null", |out| unsafe { sys::napi_get_null(self.raw, out) })
    }

    pub fn boolean(&self, value: bool) -> Result<Value<'_>> {
        // SAFETY: live env on the JS thread; `out` is a valid out-pointer.
        self.make("napi_get_boolean", |out| unsafe { sys::napi_get_boolean(self.raw, value, out) })
    }

    /// JS numbers are doubles: integers above 2^53 lose precision.
    pub fn number(&self, value: f64) -> Result<Value<'_>> {
        // SAFETY: live env on the JS thread; `out` is a valid out-pointer.
        self.make("napi_create_double", |out| unsafe { sys::napi_create_double(self.raw, value, out) })
    }

    pub fn string(&self, value: &str) -> Result<Value<'_>> {
        // SAFETY: pointer and length describe `value`'s UTF-8 bytes, which the host copies.
        self.make("napi_create_string_utf8", |out| unsafe {
            sys::napi_create_string_utf8(self.raw, value.as_ptr().cast(), value.len(), out)
        })
    }

    /// A Node `Buffer` holding a copy of `bytes`: one crossing for a whole chunk of output,
    /// however many lines it holds.
    pub fn buffer(&self, bytes: &[u8]) -> Result<Value<'_>> {
        // SAFETY: pointer and length describe `bytes`, which the host copies before returning;
        // the pointer to the copy is not wanted (null out-parameter).
        self.make("napi_create_buffer_copy", |out| unsafe {
            sys::napi_create_buffer_copy(self.raw, bytes.len(), bytes.as_ptr().cast(), ptr::null_mut(), out)
        })
    }

    /// A JS `Error` with `message` and a `code` property.
    pub fn create_error(&self, err: &NapiError) -> Result<Value<'_>> {
        let code = self.string(err.code())?;
        let message = self.string(err.message())?;
        // SAFETY: both arguments are string values of this env; `out` is a valid out-pointer.
        self.make("napi_create_error", |out| unsafe {
            sys::napi_create_error(self.raw, code.raw(), message.raw(), out)
        })
    }

    /// What to throw or reject with for `err`: the pending JS exception if a getter or callback
    /// threw (it is the real cause, and N-API refuses most calls while it is pending), else a new
    /// `Error` carrying `err`'s code.
    pub(crate) fn error_value(&self, err: &NapiError) -> Result<Value<'_>> {
        match self.take_exception() {
            Some(exception) => Ok(exception),
            None => self.create_error(err),
        }
    }

    /// Leaves `err` as the pending exception of the current callback. If even the error object
    /// cannot be built, the call returns `undefined` rather than crash the host.
    pub(crate) fn throw(&self, err: &NapiError) {
        if let Ok(value) = self.error_value(err) {
            self.throw_value(value);
        }
    }

    /// Takes the pending JS exception, if any, so that cleanup can make N-API calls (most refuse
    /// to run while one is pending); `throw_value` puts it back afterwards.
    pub(crate) fn take_exception(&self) -> Option<Value<'_>> {
        let mut pending = false;
        // SAFETY: live env on the JS thread; `pending` is a valid out-pointer.
        let status = unsafe { sys::napi_is_exception_pending(self.raw, &mut pending) };
        if status != sys::napi_ok || !pending {
            return None;
        }
        // SAFETY: live env on the JS thread; `out` is a valid out-pointer.
        self.make("napi_get_and_clear_last_exception", |out| unsafe {
            sys::napi_get_and_clear_last_exception(self.raw, out)
        })
        .ok()
    }

    pub(crate) fn throw_value(&self, exception: Value<'_>) {
        // SAFETY: `exception` is a live handle of this env, on the JS thread.
        unsafe { sys::napi_throw(self.raw, exception.raw()) };
    }

    /// Handles created until the scope drops are released then. Callbacks the host makes from its
    /// event loop (async completion, cleanup) may have no scope of their own.
    pub(crate) fn open_scope(&self) -> Result<HandleScope<'_>> {
        let mut raw = ptr::null_mut();
        // SAFETY: live env on the JS thread; `raw` is a valid out-pointer.
        self.check(unsafe { sys::napi_open_handle_scope(self.raw, &mut raw) }, "napi_open_handle_scope")?;
        Ok(HandleScope { env: self, raw })
    }
}

pub(crate) struct HandleScope<'e> {
    env: &'e Env,
    raw: sys::napi_handle_scope,
}

impl Drop for HandleScope<'_> {
    fn drop(&mut self) {
        // SAFETY: the scope was opened on this env, and each scope lives within one function body,
        // so scopes close in the reverse order of opening, as N-API requires.
        unsafe { sys::napi_close_handle_scope(self.env.raw, self.raw) };
    }
}
