//! Signals made by one out-of-line function per value type. `RwSignal::new` inlined at each of
//! the ~70 signals of the pages' state cost about 200 bytes of wasm apiece; called through
//! [`new_signal`], the state's constructors are a list of short calls.

use leptos::prelude::*;

/// A new signal holding `value`.
#[inline(never)]
pub fn new_signal<T: Send + Sync + 'static>(value: T) -> RwSignal<T> {
    RwSignal::new(value)
}

/// A new stored value holding `value`.
#[inline(never)]
pub fn new_stored<T: Send + Sync + 'static>(value: T) -> StoredValue<T> {
    StoredValue::new(value)
}
