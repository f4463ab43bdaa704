//! Long computations (bootstraps, permutation tests) run a draw at a time, yielding to the page
//! whenever a slice of main-thread time is spent, so no task grows past the 50 ms a long task
//! starts at. A newer request makes an older run give up at its next draw.

/// At most this long between yields (ms): a step (one draw, or building one figure) takes a
/// few ms at 10,000 items, so a task stays well under 50 ms, and a γ change waits at most this
/// long behind the work.
const SLICE_MS: f64 = 20.0;

/// Calls `step` (one draw; true once done) until it is done, yielding between slices, and
/// first of all, so that whatever the caller did before (building the figures) is a task of its
/// own. Returns false, without finishing, as soon as `stale()` says a newer request replaced
/// this one.
pub(crate) async fn in_slices(mut step: impl FnMut() -> bool, stale: impl Fn() -> bool) -> bool {
    let now = js_sys::Date::now;
    crate::web::fetch::sleep(0, None).await;
    let mut start = now();
    loop {
        if stale() {
            return false;
        }
        if step() {
            return true;
        }
        if now() - start >= SLICE_MS {
            crate::web::fetch::sleep(0, None).await;
            start = now();
        }
    }
}

/// `version` once it has stopped changing for `ms`: a batch run changes the results at every
/// showing of new ones, and a bootstrap restarted at each would keep the main thread busy for
/// the whole run; the figures update at once, their intervals once the results rest.
pub(crate) fn settled_version(
    version: leptos::prelude::Memo<u64>,
    ms: u64,
) -> leptos::prelude::RwSignal<u64> {
    use leptos::prelude::*;
    let settled = RwSignal::new(version.get_untracked());
    let pending = StoredValue::new(None::<leptos::leptos_dom::helpers::TimeoutHandle>);
    Effect::new(move |_| {
        let v = version.get();
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h =
            set_timeout_with_handle(move || settled.set(v), std::time::Duration::from_millis(ms))
                .ok();
        pending.set_value(h);
    });
    settled
}
