//! Module registration: the addon lists its exports once, in `module_exports!`.

use std::ptr;

use crate::env::Env;
use crate::error::Result;
use crate::function::CallArgs;
use crate::object::Object;
use crate::panic;
use crate::sys;
use crate::value::Value;

/// The shape of every exported function.
pub type ExportFn = for<'a> fn(&CallArgs<'a>) -> Result<Value<'a>>;

/// Sets each of `functions` on `exports`; what `module_exports!` expands to. Must not start
/// threads (nor anything that does, like a thread pool): bun hangs when module initialisation
/// does.
///
/// # Safety
/// `env` and `exports` must be the arguments the host passed to `napi_register_module_v1`.
pub unsafe fn register(
    env: sys::napi_env,
    exports: sys::napi_value,
    functions: &[(&str, ExportFn)],
) -> sys::napi_value {
    panic::install_hook();
    // SAFETY: the host calls module registration on the JS thread with its env.
    let env = unsafe { Env::from_raw(env) };
    let result = panic::catch(|| {
        let target = Object::from_value_unchecked(Value::from_raw(&env, exports));
        for &(name, function) in functions {
            target.set(name, env.function(name, function)?)?;
        }
        Ok(exports)
    });
    result.unwrap_or_else(|err| {
        env.throw(&err);
        ptr::null_mut()
    })
}

/// Defines `napi_register_module_v1`, the symbol node and bun look up after loading the library,
/// exporting each `"jsName" => rust_function` pair. Each function has the `ExportFn` shape; an
/// `Err` it returns is thrown, a panic becomes an `OMP_PANIC` error.
#[macro_export]
macro_rules! module_exports {
    ($($name:literal => $function:path),+ $(,)?) => {
        #[no_mangle]
        pub unsafe extern "C" fn napi_register_module_v1(
            env: $crate::__private::RawEnv,
            exports: $crate::__private::RawValue,
        ) -> $crate::__private::RawValue {
            // SAFETY: the host calls this once per environment, with that env and the module's
            // exports object.
            unsafe { $crate::__private::register(env, exports, &[$(($name, $function as $crate::ExportFn)),+]) }
        }
    };
}
