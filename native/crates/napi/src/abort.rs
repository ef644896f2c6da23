//! `AbortSignal` support: a native callback runs when the signal aborts, for as long as the
//! returned listener guard lives.

use crate::env::Env;
use crate::error::Result;
use crate::object::Object;
use crate::reference::Reference;
use crate::value::{FromJs, Value, ValueType};

/// Anything shaped like a DOM `AbortSignal`: a boolean `aborted` plus `addEventListener` and
/// `removeEventListener`. Duck-typed, so signals from any realm or polyfill work.
#[derive(Clone, Copy)]
pub struct AbortSignal<'e> {
    object: Object<'e>,
}

impl<'e> FromJs<'e> for AbortSignal<'e> {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        let expected = || value.type_error(name, "an AbortSignal");
        let object: Object<'e> = value.convert(name).map_err(|_| expected())?;
        let shaped = object.get("aborted")?.value_type()? == ValueType::Boolean
            && object.get("addEventListener")?.value_type()? == ValueType::Function
            && object.get("removeEventListener")?.value_type()? == ValueType::Function;
        if shaped {
            Ok(Self { object })
        } else {
            Err(expected())
        }
    }
}

impl<'e> AbortSignal<'e> {
    pub fn aborted(self) -> Result<bool> {
        self.object.get("aborted")?.convert("signal.aborted")
    }

    /// Adds a once-only "abort" listener that calls `on_abort` on the JS thread. Dropping the
    /// returned guard removes the listener, so a finished operation neither reacts to a later
    /// abort nor stays reachable from a long-lived signal.
    pub fn on_abort(self, on_abort: impl Fn() + 'static) -> Result<AbortListener> {
        let env = self.object.value().env();
        let listener = env.function("onAbort", move |args| {
            on_abort();
            args.env().undefined()
        })?;
        // The guard exists before the listener is added: whatever fails from here on, dropping it
        // undoes the registration.
        let guard = AbortListener { signal: Reference::new(self.object.value())?, listener: Reference::new(listener)? };
        let options = env.object()?;
        options.set("once", true)?;
        let add = self.object.get("addEventListener")?;
        add.call(self.object.value(), &[env.string("abort")?, listener, options.value()])?;
        Ok(guard)
    }
}

/// Keeps an abort listener registered; dropping it (on the JS thread) unregisters it.
pub struct AbortListener {
    signal: Reference,
    listener: Reference,
}

impl AbortListener {
    fn unregister(&self, env: &Env) -> Result<()> {
        let _scope = env.open_scope()?;
        let signal = self.signal.get(env)?;
        let listener = self.listener.get(env)?;
        let remove = Object::from_value_unchecked(signal).get("removeEventListener")?;
        remove.call(signal, &[env.string("abort")?, listener])?;
        Ok(())
    }
}

impl Drop for AbortListener {
    fn drop(&mut self) {
        // SAFETY: the guard is `!Send`, so this runs on the JS thread of the env its references
        // were made on, which lives as long as the addon's JS objects.
        let env = unsafe { Env::from_raw(self.signal.env()) };
        // Dropped while an error propagates, e.g. when addEventListener threw: that exception is
        // the one to report, and it must not be pending while removeEventListener runs.
        let pending = env.take_exception();
        if self.unregister(&env).is_err() {
            // A throwing removeEventListener has nobody to report to.
            env.take_exception();
        }
        if let Some(exception) = pending {
            env.throw_value(exception);
        }
    }
}
