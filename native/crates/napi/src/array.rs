//! JS arrays: building them from Rust and reading them into `Vec`s.

use crate::env::Env;
use crate::error::{NapiError, Result, INTERNAL};
use crate::sys;
use crate::value::{FromJs, IntoJs, Value};

/// An array being filled from Rust.
pub struct Array<'e> {
    value: Value<'e>,
    len: u32,
}

impl Env {
    pub fn array(&self) -> Result<Array<'_>> {
        // SAFETY: live env on the JS thread; `out` is a valid out-pointer.
        let value = self.make("napi_create_array_with_length", |out| unsafe {
            sys::napi_create_array_with_length(self.raw(), 0, out)
        })?;
        Ok(Array { value, len: 0 })
    }
}

impl<'e> Array<'e> {
    pub fn set(&mut self, index: u32, item: impl IntoJs<'e>) -> Result<()> {
        let env = self.value.env();
        let item = item.into_js(env)?;
        // SAFETY: live handles of this env.
        let status = unsafe { sys::napi_set_element(env.raw(), self.value.raw(), index, item.raw()) };
        env.check(status, "napi_set_element")?;
        self.len = self.len.max(index.saturating_add(1));
        Ok(())
    }

    pub fn push(&mut self, item: impl IntoJs<'e>) -> Result<()> {
        if self.len == u32::MAX {
            return Err(NapiError::new(INTERNAL, "array is at the JS maximum length"));
        }
        self.set(self.len, item)
    }
}

impl<'e> IntoJs<'e> for Array<'e> {
    fn into_js(self, _env: &'e Env) -> Result<Value<'e>> {
        Ok(self.value)
    }
}

/// Items are checked one by one; an error names the item, e.g. `options.paths[2]`.
impl<'e, T: FromJs<'e>> FromJs<'e> for Vec<T> {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        if !value.is_array()? {
            return Err(value.type_error(name, "an array"));
        }
        let env = value.env();
        let mut len = 0u32;
        // SAFETY: `value` is a live array handle; `len` is a valid out-pointer.
        env.check(unsafe { sys::napi_get_array_length(env.raw(), value.raw(), &mut len) }, "napi_get_array_length")?;
        (0..len)
            .map(|index| {
                // SAFETY: live array handle; `out` is a valid out-pointer.
                let item = env.make("napi_get_element", |out| unsafe {
                    sys::napi_get_element(env.raw(), value.raw(), index, out)
                })?;
                T::from_js(item, &format!("{name}[{index}]"))
            })
            .collect()
    }
}
