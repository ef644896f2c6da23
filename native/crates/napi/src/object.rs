//! Objects: property access, and `Fields`, the reader for options objects whose errors name the
//! offending property.

use std::ffi::CString;
use std::os::raw::c_char;

use crate::env::Env;
use crate::error::{NapiError, Result, INTERNAL};
use crate::sys;
use crate::value::{FromJs, IntoJs, Value, ValueType};

/// A value known to be a JS object (not `null`, not a function).
#[derive(Clone, Copy)]
pub struct Object<'e> {
    value: Value<'e>,
}

/// Property names short enough for a stack buffer skip an allocation: result objects set a few
/// fixed keys on every one of possibly many thousands of entries.
const INLINE_KEY: usize = 64;

/// Calls `f` with `key` as a NUL-terminated C string.
fn with_c_key<R>(key: &str, f: impl FnOnce(*const c_char) -> R) -> Result<R> {
    if key.as_bytes().contains(&0) {
        return Err(NapiError::new(INTERNAL, format!("property name {key:?} contains a NUL byte")));
    }
    if key.len() < INLINE_KEY {
        let mut buf = [0u8; INLINE_KEY];
        buf[..key.len()].copy_from_slice(key.as_bytes());
        Ok(f(buf.as_ptr().cast()))
    } else {
        let owned = CString::new(key).map_err(|err| NapiError::new(INTERNAL, err.to_string()))?;
        Ok(f(owned.as_ptr()))
    }
}

impl Env {
    pub fn object(&self) -> Result<Object<'_>> {
        // SAFETY: live env on the JS thread; `out` is a valid out-pointer.
        let value = self.make("napi_create_object", |out| unsafe { sys::napi_create_object(self.raw(), out) })?;
        Ok(Object { value })
    }
}

impl<'e> Object<'e> {
    /// The caller vouches that `value` is an object.
    pub(crate) fn from_value_unchecked(value: Value<'e>) -> Self {
        Self { value }
    }

    pub fn value(self) -> Value<'e> {
        self.value
    }

    /// Like `object[key]`: inherited properties and getters included; missing is `undefined`.
    pub fn get(self, key: &str) -> Result<Value<'e>> {
        let env = self.value.env();
        let mut raw = std::ptr::null_mut();
        // SAFETY: live object handle; `name` is NUL-terminated for the duration of the call.
        let status = with_c_key(key, |name| unsafe {
            sys::napi_get_named_property(env.raw(), self.value.raw(), name, &mut raw)
        })?;
        env.check(status, "napi_get_named_property")?;
        Ok(Value::from_raw(env, raw))
    }

    pub fn set(self, key: &str, value: impl IntoJs<'e>) -> Result<()> {
        let env = self.value.env();
        let value = value.into_js(env)?;
        // SAFETY: live handles of this env; `name` is NUL-terminated for the duration of the call.
        let status = with_c_key(key, |name| unsafe {
            sys::napi_set_named_property(env.raw(), self.value.raw(), name, value.raw())
        })?;
        env.check(status, "napi_set_named_property")
    }

    /// Like `key in object`.
    pub fn has(self, key: &str) -> Result<bool> {
        let env = self.value.env();
        let mut result = false;
        // SAFETY: live object handle; `name` is NUL-terminated for the duration of the call.
        let status = with_c_key(key, |name| unsafe {
            sys::napi_has_named_property(env.raw(), self.value.raw(), name, &mut result)
        })?;
        env.check(status, "napi_has_named_property")?;
        Ok(result)
    }

    /// Own enumerable string keys, as `Object.keys` lists them.
    pub fn own_keys(self) -> Result<Vec<String>> {
        let env = self.value.env();
        // SAFETY: live object handle; the flags are values the header defines; `out` is valid.
        let names = env.make("napi_get_all_property_names", |out| unsafe {
            sys::napi_get_all_property_names(
                env.raw(),
                self.value.raw(),
                sys::napi_key_own_only,
                sys::napi_key_enumerable | sys::napi_key_skip_symbols,
                sys::napi_key_numbers_to_strings,
                out,
            )
        })?;
        names.convert("property names")
    }
}

/// Arrays are refused: where an object is expected, an array is a mistake.
impl<'e> FromJs<'e> for Object<'e> {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        if value.value_type()? != ValueType::Object || value.is_array()? {
            return Err(value.type_error(name, "an object"));
        }
        Ok(Object { value })
    }
}

impl<'e> IntoJs<'e> for Object<'e> {
    fn into_js(self, _env: &'e Env) -> Result<Value<'e>> {
        Ok(self.value)
    }
}

/// An options object read field by field. Errors name the field as `{name}.{key}`, so the caller
/// sees which of many options is wrong.
pub struct Fields<'e> {
    object: Object<'e>,
    name: String,
}

impl<'e> Fields<'e> {
    /// `value` must be an object; `name` is how errors refer to it, e.g. `options`.
    pub fn from_value(value: Value<'e>, name: &str) -> Result<Self> {
        Ok(Self { object: value.convert(name)?, name: name.to_string() })
    }

    /// A field that must be present; `undefined` gets the same type error as any other wrong value.
    pub fn required<T: FromJs<'e>>(&self, key: &str) -> Result<T> {
        self.object.get(key)?.convert(&self.path(key))
    }

    /// `undefined` and `null` both mean "not given".
    pub fn optional<T: FromJs<'e>>(&self, key: &str) -> Result<Option<T>> {
        let value = self.object.get(key)?;
        if value.is_nullish()? {
            return Ok(None);
        }
        value.convert(&self.path(key)).map(Some)
    }

    /// Overwrites `target` (normally holding the default) when the field is given.
    pub fn read_into<T: FromJs<'e>>(&self, key: &str, target: &mut T) -> Result<()> {
        if let Some(value) = self.optional(key)? {
            *target = value;
        }
        Ok(())
    }

    /// Rejects own keys outside `allowed`, so a misspelt option fails loudly instead of being
    /// ignored.
    pub fn reject_unknown(&self, allowed: &[&str]) -> Result<()> {
        for key in self.object.own_keys()? {
            if allowed.contains(&key.as_str()) {
                continue;
            }
            let hint = allowed
                .iter()
                .find(|name| name.eq_ignore_ascii_case(&key))
                .map(|name| format!(" (did you mean {name}?)"))
                .unwrap_or_default();
            return Err(NapiError::invalid_argument(format!(
                "unknown option {}{hint}; allowed options: {}",
                self.path(&key),
                allowed.join(", ")
            )));
        }
        Ok(())
    }

    fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.name)
    }
}
