//! Promises whose work runs on the host's worker threads (napi async work), so the JS event loop
//! keeps running while Rust blocks.

use std::os::raw::c_void;
use std::panic::AssertUnwindSafe;
use std::ptr;

use crate::env::Env;
use crate::error::{NapiError, Result, INTERNAL};
use crate::panic;
use crate::promise::Deferred;
use crate::sys;
use crate::value::Value;

/// One spawned promise. `job` is the only part a worker thread touches; the rest belongs to the
/// JS thread and is used only in `complete`.
struct Task<T, W, C> {
    job: Job<T, W>,
    to_js: C,
    deferred: Deferred,
    handle: sys::napi_async_work,
}

struct Job<T, W> {
    work: Option<W>,
    output: Option<Result<T>>,
}

impl Env {
    /// Runs `work` on a worker thread and returns a promise. Back on the JS thread the promise
    /// resolves with `to_js` of the output, or rejects with `work`'s error. A panic in either
    /// rejects with an `OMP_PANIC` error. `to_js` and its captures are dropped on the JS thread
    /// once the promise settles, whichever way: captures that must be released there (such as an
    /// `AbortListener`) belong in it.
    pub fn spawn_promise<T, W, C>(&self, work: W, to_js: C) -> Result<Value<'_>>
    where
        T: Send + 'static,
        W: FnOnce() -> Result<T> + Send + 'static,
        C: for<'a> FnOnce(&'a Env, T) -> Result<Value<'a>> + 'static,
    {
        let name = self.string("omp-napi")?;
        let (deferred, promise) = self.promise()?;
        let task: *mut Task<T, W, C> = Box::into_raw(Box::new(Task {
            job: Job { work: Some(work), output: None },
            to_js,
            deferred,
            handle: ptr::null_mut(),
        }));
        let mut handle = ptr::null_mut();
        // SAFETY: `task` stays valid until `complete` frees it; the callbacks are instantiated
        // for exactly this task type.
        let status = unsafe {
            sys::napi_create_async_work(
                self.raw(),
                ptr::null_mut(),
                name.raw(),
                Some(execute::<T, W, C>),
                Some(complete::<T, W, C>),
                task.cast(),
                &mut handle,
            )
        };
        if let Err(err) = self.check(status, "napi_create_async_work") {
            // SAFETY: the host never saw `task`; this is its only owner.
            drop(unsafe { Box::from_raw(task) });
            return Err(err);
        }
        // SAFETY: no callback can run before the work is queued, so this thread owns `task`.
        unsafe { (*task).handle = handle };
        // SAFETY: `handle` was just created on this env.
        let status = unsafe { sys::napi_queue_async_work(self.raw(), handle) };
        if let Err(err) = self.check(status, "napi_queue_async_work") {
            // SAFETY: the work was not queued, so neither callback will run and `task` is ours.
            unsafe {
                sys::napi_delete_async_work(self.raw(), handle);
                drop(Box::from_raw(task));
            }
            return Err(err);
        }
        Ok(promise)
    }
}

unsafe extern "C" fn execute<T, W, C>(_env: sys::napi_env, data: *mut c_void)
where
    W: FnOnce() -> Result<T>,
{
    // SAFETY: `data` is the live task from `spawn_promise`. Between queueing and `complete`, the
    // JS thread leaves it alone and this worker is the only one touching `job`; the other fields
    // are not accessed here.
    let job = unsafe { &mut *ptr::addr_of_mut!((*data.cast::<Task<T, W, C>>()).job) };
    if let Some(work) = job.work.take() {
        job.output = Some(panic::catch(work));
    }
}

unsafe extern "C" fn complete<T, W, C>(raw_env: sys::napi_env, status: sys::napi_status, data: *mut c_void)
where
    C: for<'a> FnOnce(&'a Env, T) -> Result<Value<'a>>,
{
    // SAFETY: the host calls this once, on the JS thread, after `execute` returned (or instead of
    // it); the task is ours again and freed here.
    let (env, task) = unsafe { (Env::from_raw(raw_env), Box::from_raw(data.cast::<Task<T, W, C>>())) };
    // Nobody is left to report a failure to except the promise itself; a panic here must not
    // unwind into the host's event loop.
    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| settle(&env, status, *task)));
}

fn settle<T, W, C>(env: &Env, status: sys::napi_status, task: Task<T, W, C>)
where
    C: for<'a> FnOnce(&'a Env, T) -> Result<Value<'a>>,
{
    let Task { job, to_js, deferred, handle } = task;
    let scope = env.open_scope();
    let output = match (status, job.output) {
        (sys::napi_ok, Some(output)) => output,
        (sys::napi_ok, None) => Err(NapiError::new(INTERNAL, "async work completed without running")),
        (sys::napi_cancelled, _) => Err(NapiError::new(INTERNAL, "async work was cancelled by the host")),
        (status, _) => Err(NapiError::new(INTERNAL, format!("async work failed with status {status}"))),
    };
    // On an error `to_js` is dropped unused right here, before the promise settles.
    let outcome = output.and_then(|value| panic::catch(|| to_js(env, value)));
    deferred.settle(env, outcome);
    // SAFETY: `handle` is this task's work, which has finished; it is deleted once.
    unsafe { sys::napi_delete_async_work(env.raw(), handle) };
    drop(scope);
}
