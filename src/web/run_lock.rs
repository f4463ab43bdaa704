//! One tab at a time runs a stored batch run, across the device's tabs: a Web Lock
//! (`navigator.locks`) named after the run's id, held for as long as a tab runs it. A second tab
//! that opens the same run while the first runs it watches it live (`live`) instead of
//! requesting the same items again; runs of other datasets have other locks and run freely.
//!
//! web-sys marks the Web Locks API unstable, so it is reached through `Reflect`, as
//! `DecompressionStream` is in `files.rs`. Where the API is missing (an insecure context) or
//! refuses the request (an opaque origin), the lock is granted without coordination, as before.

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

const PREFIX: &str = "harmonic-judge-batch-run:";

/// Held while alive; dropping it releases the lock.
pub struct RunLock {
    release: Option<Function>,
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if let Some(release) = self.release.take() {
            let _ = release.call0(&JsValue::NULL);
        }
    }
}

/// The lock of stored run `run`, if no other tab holds it now (never waits).
pub async fn try_acquire(run: &str) -> Option<RunLock> {
    let Some(locks) = web_sys::window()
        .and_then(|w| Reflect::get(&w.navigator(), &"locks".into()).ok())
        .filter(|l| !l.is_undefined() && !l.is_null())
    else {
        return Some(RunLock { release: None });
    };
    let Some(request) = Reflect::get(&locks, &"request".into())
        .ok()
        .and_then(|r| r.dyn_into::<Function>().ok())
    else {
        return Some(RunLock { release: None });
    };
    // Held until `release` is called: the callback returns this promise.
    let mut release = None;
    let hold = Promise::new(&mut |resolve, _| release = Some(resolve));
    let mut granted = None;
    let answer = Promise::new(&mut |resolve, _| granted = Some(resolve));
    let granted: Function = granted?;
    let said = granted.clone();
    let callback = Closure::once_into_js(move |lock: JsValue| -> JsValue {
        let got = !lock.is_null() && !lock.is_undefined();
        let _ = granted.call1(&JsValue::NULL, &JsValue::from_bool(got));
        if got {
            hold.into()
        } else {
            JsValue::UNDEFINED
        }
    });
    let options = Object::new();
    let _ = Reflect::set(&options, &"ifAvailable".into(), &JsValue::TRUE);
    let name = format!("{PREFIX}{run}");
    let args = js_sys::Array::of3(&name.into(), &options, &callback);
    let Ok(pending) = Reflect::apply(&request, &locks, &args) else {
        return Some(RunLock { release: None });
    };
    // A refused request (an opaque origin's SecurityError) rejects without ever calling the
    // callback: say so, or `answer` would never settle and the run would wait forever.
    if let Some(catch) = Reflect::get(&pending, &"catch".into())
        .ok()
        .and_then(|c| c.dyn_into::<Function>().ok())
    {
        let refused = Closure::once_into_js(move |_: JsValue| {
            let _ = said.call1(&JsValue::NULL, &JsValue::from_str(REFUSED));
        });
        let _ = catch.call1(&pending, &refused);
    }
    let answer = JsFuture::from(answer).await.ok()?;
    if answer.as_string().as_deref() == Some(REFUSED) {
        return Some(RunLock { release: None });
    }
    (answer.as_bool() == Some(true)).then_some(RunLock { release })
}

/// What `answer` settles with when the browser refuses the lock request itself: the run goes
/// on without coordination, as where the API is missing.
const REFUSED: &str = "refused";

/// What a tab that did not get the lock reads.
pub const BUSY: &str = "Another tab of this app is running this batch on this device: it is \
                        shown here live as its results arrive. Pause or cancel it there to run \
                        it here; running here too would send its items again.";
