//! A JS value handle, conversions between JS values and Rust types, and the short descriptions
//! of values that type errors quote.

use std::ptr;

use crate::env::Env;
use crate::error::{NapiError, Result, INTERNAL};
use crate::sys;

/// A handle to a JS value, valid while the callback that produced its `Env` runs.
#[derive(Clone, Copy)]
pub struct Value<'e> {
    env: &'e Env,
    raw: sys::napi_value,
}

/// `typeof`, with `null` split out as N-API does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    Undefined,
    Null,
    Boolean,
    Number,
    String,
    Symbol,
    Object,
    Function,
    External,
    BigInt,
}

/// Largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
/// How much of a string a type error quotes.
const QUOTE_CHARS: usize = 60;

impl<'e> Value<'e> {
    pub(crate) fn from_raw(env: &'e Env, raw: sys::napi_value) -> Self {
        Self { env, raw }
    }

    pub(crate) fn raw(self) -> sys::napi_value {
        self.raw
    }

    pub fn env(self) -> &'e Env {
        self.env
    }

    pub fn value_type(self) -> Result<ValueType> {
        let mut kind = sys::napi_undefined;
        // SAFETY: live handle of this env; `kind` is a valid out-pointer.
        self.env.check(unsafe { sys::napi_typeof(self.env.raw(), self.raw, &mut kind) }, "napi_typeof")?;
        Ok(match kind {
            sys::napi_undefined => ValueType::Undefined,
            sys::napi_null => ValueType::Null,
            sys::napi_boolean => ValueType::Boolean,
            sys::napi_number => ValueType::Number,
            sys::napi_string => ValueType::String,
            sys::napi_symbol => ValueType::Symbol,
            sys::napi_object => ValueType::Object,
            sys::napi_function => ValueType::Function,
            sys::napi_external => ValueType::External,
            sys::napi_bigint => ValueType::BigInt,
            other => return Err(NapiError::new(INTERNAL, format!("napi_typeof returned unknown type {other}"))),
        })
    }

    /// `undefined` or `null`: what optional arguments and fields treat as absent.
    pub fn is_nullish(self) -> Result<bool> {
        Ok(matches!(self.value_type()?, ValueType::Undefined | ValueType::Null))
    }

    pub fn is_array(self) -> Result<bool> {
        let mut result = false;
        // SAFETY: live handle of this env; `result` is a valid out-pointer.
        self.env.check(unsafe { sys::napi_is_array(self.env.raw(), self.raw, &mut result) }, "napi_is_array")?;
        Ok(result)
    }

    /// A copy of a Node `Buffer`'s bytes (worker threads must not touch JS memory); an error when it is none.
    pub fn buffer_bytes(self, name: &str) -> Result<Vec<u8>> {
        let mut is_buffer = false;
        // SAFETY: live handle of this env; `is_buffer` is a valid out-pointer.
        self.env.check(unsafe { sys::napi_is_buffer(self.env.raw(), self.raw, &mut is_buffer) }, "napi_is_buffer")?;
        if !is_buffer {
            return Err(self.type_error(name, "a Buffer"));
        }
        let mut data = ptr::null_mut();
        let mut length = 0;
        // SAFETY: a Buffer of this env; both out-pointers are valid.
        self.env.check(unsafe { sys::napi_get_buffer_info(self.env.raw(), self.raw, &mut data, &mut length) }, "napi_get_buffer_info")?;
        if length == 0 {
            return Ok(Vec::new());
        }
        // SAFETY: the host says `data` holds `length` bytes, alive while this callback runs.
        Ok(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), length) }.to_vec())
    }

    /// Converts to `T`; `name` is how a type error refers to this value, e.g. `options.maxCount`.
    pub fn convert<T: FromJs<'e>>(self, name: &str) -> Result<T> {
        T::from_js(self, name)
    }

    /// The error for a value of the wrong type or range: `{name} must be {expected}, got {value}`.
    pub fn type_error(self, name: &str, expected: &str) -> NapiError {
        NapiError::invalid_argument(format!("{name} must be {expected}, got {}", self.describe()))
    }

    /// Calls this value as a function. A JS exception it throws comes back as an `Err` and stays
    /// pending, so it reaches JS unchanged when the error propagates.
    pub fn call(self, this: Value<'e>, args: &[Value<'e>]) -> Result<Value<'e>> {
        let raw_args: Vec<sys::napi_value> = args.iter().map(|arg| arg.raw).collect();
        // SAFETY: all handles belong to this env; `raw_args` outlives the call.
        self.env.make("napi_call_function", |out| unsafe {
            sys::napi_call_function(self.env.raw(), this.raw, self.raw, raw_args.len(), raw_args.as_ptr(), out)
        })
    }

    /// A short rendering for error messages: `"abc"`, `42`, `null`, `an array`, ...
    pub fn describe(self) -> String {
        let described = match self.value_type() {
            Ok(ValueType::Undefined) => Ok("undefined".to_string()),
            Ok(ValueType::Null) => Ok("null".to_string()),
            Ok(ValueType::Boolean) => self.read_bool().map(|b| b.to_string()),
            Ok(ValueType::Number) => self.read_number().map(format_number),
            Ok(ValueType::String) => self.read_string().map(|s| quote(&s)),
            Ok(ValueType::Symbol) => Ok("a symbol".to_string()),
            Ok(ValueType::Function) => Ok("a function".to_string()),
            Ok(ValueType::External) => Ok("an external value".to_string()),
            Ok(ValueType::BigInt) => Ok("a bigint".to_string()),
            Ok(ValueType::Object) => {
                self.is_array().map(|array| if array { "an array" } else { "an object" }.to_string())
            }
            Err(err) => Err(err),
        };
        described.unwrap_or_else(|_| "an unreadable value".to_string())
    }

    fn read_number(self) -> Result<f64> {
        let mut result = 0.0;
        // SAFETY: live handle of this env; `result` is a valid out-pointer.
        let status = unsafe { sys::napi_get_value_double(self.env.raw(), self.raw, &mut result) };
        self.env.check(status, "napi_get_value_double")?;
        Ok(result)
    }

    fn read_bool(self) -> Result<bool> {
        let mut result = false;
        // SAFETY: live handle of this env; `result` is a valid out-pointer.
        let status = unsafe { sys::napi_get_value_bool(self.env.raw(), self.raw, &mut result) };
        self.env.check(status, "napi_get_value_bool")?;
        Ok(result)
    }

    fn read_string(self) -> Result<String> {
        let mut len = 0;
        // SAFETY: a null buffer asks only for the UTF-8 length, written to `len`.
        let status = unsafe { sys::napi_get_value_string_utf8(self.env.raw(), self.raw, ptr::null_mut(), 0, &mut len) };
        self.env.check(status, "napi_get_value_string_utf8")?;
        // One more byte: the host always NUL-terminates and truncates to fit.
        let mut buf = vec![0u8; len + 1];
        let mut written = 0;
        // SAFETY: `buf` is writable for `buf.len()` bytes; `written` is a valid out-pointer.
        let status = unsafe {
            sys::napi_get_value_string_utf8(self.env.raw(), self.raw, buf.as_mut_ptr().cast(), buf.len(), &mut written)
        };
        self.env.check(status, "napi_get_value_string_utf8")?;
        buf.truncate(written);
        // Engines encode lone surrogates as U+FFFD, so this is valid UTF-8 in practice.
        Ok(String::from_utf8(buf).unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned()))
    }

    /// A number that must be an integer in `min..=max`.
    fn integer(self, name: &str, expected: &str, min: f64, max: f64) -> Result<f64> {
        if self.value_type()? == ValueType::Number {
            let n = self.read_number()?;
            if n.is_finite() && n.fract() == 0.0 && (min..=max).contains(&n) {
                return Ok(n);
            }
        }
        Err(self.type_error(name, expected))
    }
}

fn format_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_string()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        n.to_string()
    }
}

fn quote(s: &str) -> String {
    let shown: String = s.chars().take(QUOTE_CHARS).collect();
    if shown.len() < s.len() {
        format!("{shown:?}…")
    } else {
        format!("{shown:?}")
    }
}

/// Rust values readable from JS. `name` is how a type error refers to the value.
pub trait FromJs<'e>: Sized {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self>;
}

/// Rust values that become JS values.
pub trait IntoJs<'e> {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>>;
}

impl<'e> FromJs<'e> for bool {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        if value.value_type()? != ValueType::Boolean {
            return Err(value.type_error(name, "a boolean"));
        }
        value.read_bool()
    }
}

impl<'e> FromJs<'e> for f64 {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        if value.value_type()? != ValueType::Number {
            return Err(value.type_error(name, "a number"));
        }
        value.read_number()
    }
}

impl<'e> FromJs<'e> for String {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        if value.value_type()? != ValueType::String {
            return Err(value.type_error(name, "a string"));
        }
        value.read_string()
    }
}

// The range checks make the `as` casts below exact.

impl<'e> FromJs<'e> for u32 {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        let n = value.integer(name, "an integer from 0 to 4294967295", 0.0, f64::from(u32::MAX))?;
        Ok(n as u32)
    }
}

impl<'e> FromJs<'e> for u64 {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        Ok(value.integer(name, "a non-negative integer", 0.0, MAX_SAFE_INTEGER)? as u64)
    }
}

impl<'e> FromJs<'e> for usize {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        let max = MAX_SAFE_INTEGER.min(usize::MAX as f64);
        Ok(value.integer(name, "a non-negative integer", 0.0, max)? as usize)
    }
}

impl<'e> FromJs<'e> for i64 {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        Ok(value.integer(name, "an integer", -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)? as i64)
    }
}

impl<'e> IntoJs<'e> for Value<'e> {
    fn into_js(self, _env: &'e Env) -> Result<Value<'e>> {
        Ok(self)
    }
}

impl<'e> IntoJs<'e> for bool {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>> {
        env.boolean(self)
    }
}

impl<'e> IntoJs<'e> for f64 {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>> {
        env.number(self)
    }
}

impl<'e> IntoJs<'e> for u32 {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>> {
        env.number(f64::from(self))
    }
}

/// Above 2^53 the JS number is the nearest double.
impl<'e> IntoJs<'e> for u64 {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>> {
        env.number(self as f64)
    }
}

/// Above 2^53 the JS number is the nearest double.
impl<'e> IntoJs<'e> for usize {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>> {
        env.number(self as f64)
    }
}

/// Beyond ±2^53 the JS number is the nearest double.
impl<'e> IntoJs<'e> for i64 {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>> {
        env.number(self as f64)
    }
}

impl<'e> IntoJs<'e> for &str {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>> {
        env.string(self)
    }
}

impl<'e> IntoJs<'e> for String {
    fn into_js(self, env: &'e Env) -> Result<Value<'e>> {
        env.string(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::{format_number, quote};

    #[test]
    fn numbers_print_as_js_does() {
        assert_eq!(format_number(42.0), "42");
        assert_eq!(format_number(-1.5), "-1.5");
        assert_eq!(format_number(f64::NAN), "NaN");
        assert_eq!(format_number(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn long_strings_are_cut() {
        assert_eq!(quote("abc"), "\"abc\"");
        assert_eq!(quote(&"x".repeat(61)), format!("{:?}…", "x".repeat(60)));
        assert_eq!(quote("é\n"), "\"é\\n\"");
    }
}
