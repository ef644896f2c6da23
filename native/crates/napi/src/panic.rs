//! Panics stop at the N-API boundary and become `OMP_PANIC` errors. Unwinding into the host would
//! abort the whole agent.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use crate::error::{NapiError, Result, PANIC};

thread_local! {
    /// Where the last panic on this thread happened, recorded by the hook for `catch` to report:
    /// the payload alone has no location.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the default hook, which prints to stderr and would scribble over the agent's terminal
/// UI; the location it would print goes into the JS error instead. Each addon carries its own copy
/// of std, so this affects no other Rust code in the process.
pub(crate) fn install_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        panic::set_hook(Box::new(|info| {
            let location = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
            let _ = LOCATION.try_with(|slot| *slot.borrow_mut() = location);
        }));
    });
}

/// Runs `f`, turning a panic into an `OMP_PANIC` error that carries the panic message.
pub(crate) fn catch<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(NapiError::new(PANIC, describe(payload))))
}

fn describe(payload: Box<dyn Any + Send>) -> String {
    let message = if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "panic with a non-string payload".to_string()
    };
    match LOCATION.try_with(|slot| slot.borrow_mut().take()).ok().flatten() {
        Some(location) => format!("native panic at {location}: {message}"),
        None => format!("native panic: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::catch;
    use crate::error::PANIC;

    #[test]
    fn panics_become_errors() {
        let err = catch::<()>(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(err.code(), PANIC);
        assert!(err.message().ends_with("boom 7"), "{}", err.message());
        assert_eq!(catch(|| Ok(5)), Ok(5));
    }
}
