//! Native functions backed by Rust closures, and the arguments of a call.

use std::os::raw::c_void;
use std::panic::AssertUnwindSafe;
use std::ptr;

use crate::env::Env;
use crate::error::Result;
use crate::panic;
use crate::sys;
use crate::value::Value;

/// The arguments of one JS call into a native function.
pub struct CallArgs<'e> {
    env: &'e Env,
    args: Vec<sys::napi_value>,
}

impl<'e> CallArgs<'e> {
    pub fn env(&self) -> &'e Env {
        self.env
    }

    /// Arguments the caller left out read as `undefined`, as in JS.
    pub fn arg(&self, index: usize) -> Result<Value<'e>> {
        match self.args.get(index) {
            Some(&raw) => Ok(Value::from_raw(self.env, raw)),
            None => self.env.undefined(),
        }
    }
}

/// Reads the call's arguments and the function's data pointer.
///
/// # Safety
/// `info` must be the callback info the host passed along with `env` to the running callback.
unsafe fn read_call<'e>(env: &'e Env, info: sys::napi_callback_info) -> Result<(CallArgs<'e>, *mut c_void)> {
    // Enough for every function omp exports; more arguments take a second call.
    let mut args = vec![ptr::null_mut(); 4];
    let mut argc = args.len();
    let mut data = ptr::null_mut();
    // SAFETY: `args` has room for `argc` values; `data` is valid; `this` is optional (null).
    let status =
        unsafe { sys::napi_get_cb_info(env.raw(), info, &mut argc, args.as_mut_ptr(), ptr::null_mut(), &mut data) };
    env.check(status, "napi_get_cb_info")?;
    if argc > args.len() {
        args.resize(argc, ptr::null_mut());
        // SAFETY: as above, with room for every argument now.
        let status = unsafe {
            sys::napi_get_cb_info(env.raw(), info, &mut argc, args.as_mut_ptr(), ptr::null_mut(), ptr::null_mut())
        };
        env.check(status, "napi_get_cb_info")?;
    }
    args.truncate(argc);
    Ok((CallArgs { env, args }, data))
}

impl Env {
    /// A JS function that runs `f` on the JS thread. An `Err` from `f` is thrown, a panic is
    /// thrown as an `OMP_PANIC` error. The garbage collector drops `f` (through a finalizer, where
    /// JS cannot run), so `f`'s captures must not call into JS when dropped.
    pub fn function<F>(&self, name: &str, f: F) -> Result<Value<'_>>
    where
        F: for<'a> Fn(&CallArgs<'a>) -> Result<Value<'a>> + 'static,
    {
        let data = Box::into_raw(Box::new(f));
        // SAFETY: `name` is passed with its length; `data` stays valid until the finalizer below
        // frees it, which the host runs only once the function is unreachable.
        let created = self.make("napi_create_function", |out| unsafe {
            sys::napi_create_function(
                self.raw(),
                name.as_ptr().cast(),
                name.len(),
                Some(trampoline::<F>),
                data.cast(),
                out,
            )
        });
        let attached = created.and_then(|function| {
            // SAFETY: `function` is the live handle just created; `data` is the box it calls.
            let status = unsafe {
                sys::napi_add_finalizer(
                    self.raw(),
                    function.raw(),
                    data.cast(),
                    Some(finalize::<F>),
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            };
            self.check(status, "napi_add_finalizer").map(|()| function)
        });
        if attached.is_err() {
            // SAFETY: without a finalizer nothing else frees `data`, and the function handle is
            // dropped unused, so nothing can call into `data` any more.
            drop(unsafe { Box::from_raw(data) });
        }
        attached
    }
}

unsafe extern "C" fn trampoline<F>(raw_env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value
where
    F: for<'a> Fn(&CallArgs<'a>) -> Result<Value<'a>> + 'static,
{
    // SAFETY: the host calls this on the JS thread with the env of the call.
    let env = unsafe { Env::from_raw(raw_env) };
    let result = panic::catch(|| {
        // SAFETY: `info` came with `raw_env` from the host for this call.
        let (args, data) = unsafe { read_call(&env, info) }?;
        // SAFETY: `data` is the `Box<F>` that `Env::function` attached to this function; the
        // finalizer frees it only after the function can no longer be called.
        let f = unsafe { &*data.cast::<F>() };
        f(&args).map(Value::raw)
    });
    result.unwrap_or_else(|err| {
        env.throw(&err);
        ptr::null_mut()
    })
}

unsafe extern "C" fn finalize<F>(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // A panicking destructor must not unwind into the garbage collector.
    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `data` is the `Box<F>` from `Env::function`; the host finalizes once.
        drop(unsafe { Box::from_raw(data.cast::<F>()) });
    }));
}
