//! Strong references that keep a JS value alive across callbacks.

use std::ptr;

use crate::env::Env;
use crate::error::Result;
use crate::sys;
use crate::value::Value;

/// Deleted on drop. `!Send` (raw pointers), so it is dropped on the JS thread it was made on.
pub(crate) struct Reference {
    env: sys::napi_env,
    raw: sys::napi_ref,
}

impl Reference {
    pub(crate) fn new(value: Value<'_>) -> Result<Self> {
        let env = value.env();
        let mut raw = ptr::null_mut();
        // SAFETY: live handle of this env; `raw` is a valid out-pointer.
        let status = unsafe { sys::napi_create_reference(env.raw(), value.raw(), 1, &mut raw) };
        env.check(status, "napi_create_reference")?;
        Ok(Self { env: env.raw(), raw })
    }

    pub(crate) fn get<'e>(&self, env: &'e Env) -> Result<Value<'e>> {
        // SAFETY: the reference is alive until drop; `out` is a valid out-pointer.
        env.make("napi_get_reference_value", |out| unsafe { sys::napi_get_reference_value(env.raw(), self.raw, out) })
    }

    /// The env this reference was made on, for cleanup that runs outside any callback's `Env`.
    pub(crate) fn env(&self) -> sys::napi_env {
        self.env
    }
}

impl Drop for Reference {
    fn drop(&mut self) {
        // SAFETY: made on `self.env`, on this (JS) thread, and deleted only here.
        unsafe { sys::napi_delete_reference(self.env, self.raw) };
    }
}
