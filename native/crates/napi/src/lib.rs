//! omp's N-API layer: the C declarations (`sys`, private) and the safe API every addon function
//! goes through. Values borrow the `Env` of the callback that made them, so handles cannot outlive
//! it; errors carry the `code` the TS side switches on; panics never cross into JS.

mod abort;
mod array;
mod env;
mod error;
mod function;
mod object;
mod panic;
mod promise;
mod reference;
mod register;
mod sys;
mod value;
mod work;

pub use abort::{AbortListener, AbortSignal};
pub use array::Array;
pub use env::Env;
pub use error::{NapiError, Result, INVALID_ARGUMENT, PANIC};
pub use function::CallArgs;
pub use object::{Fields, Object};
pub use register::ExportFn;
pub use value::{FromJs, IntoJs, Value, ValueType};

/// For `module_exports!` only.
#[doc(hidden)]
pub mod __private {
    pub use crate::register::register;
    pub use crate::sys::{napi_env as RawEnv, napi_value as RawValue};
}
