//! Errors that end up as JS `Error`s: a message plus the `code` property the TS side switches on.

use std::fmt;

/// A Rust panic caught at the N-API boundary.
pub const PANIC: &str = "OMP_PANIC";
/// An argument or option of the wrong type, range or name.
pub const INVALID_ARGUMENT: &str = "OMP_INVALID_OPTIONS";
/// A failed N-API call that is not a JS exception. It means a broken invariant in this layer, and
/// the addon's error contract has no closer code than the one for panics.
pub(crate) const INTERNAL: &str = PANIC;

pub type Result<T, E = NapiError> = std::result::Result<T, E>;

/// Plain data, so it can be produced on a worker thread and turned into a JS `Error` (with `code`)
/// on the JS thread. If a JS exception is already pending when it is thrown or rejected, that
/// exception wins: it is what a throwing getter or callback raised, and it says more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NapiError {
    code: &'static str,
    message: String,
}

impl NapiError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(INVALID_ARGUMENT, message)
    }

    pub fn code(&self) -> &'static str {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for NapiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for NapiError {}
