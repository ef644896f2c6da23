//! `debugPanic(where)`: panics on purpose, so tests can prove a panic reaches JS as an `OMP_PANIC`
//! error and the process lives on.

use omp_napi::{CallArgs, Result, Value};

use crate::options::{Keyword, Word};

#[derive(Clone, Copy)]
enum Where {
    /// On the JS thread, inside the call: it throws.
    Sync,
    /// Inside async work on a worker thread: the promise rejects.
    Async,
}

impl Keyword for Where {
    const ALL: &'static [Self] = &[Where::Sync, Where::Async];

    fn word(self) -> &'static str {
        match self {
            Where::Sync => "sync",
            Where::Async => "async",
        }
    }
}

pub fn debug_panic<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    let Word(place) = args.arg(0)?.convert("where")?;
    match place {
        Where::Sync => panic!("debugPanic(\"sync\") panicked on the JS thread as asked"),
        Where::Async => args.env().spawn_promise(
            || -> Result<()> { panic!("debugPanic(\"async\") panicked on a worker thread as asked") },
            |env, ()| env.undefined(),
        ),
    }
}
