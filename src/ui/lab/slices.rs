//! Long computations (bootstraps, permutation tests) run a draw at a time, yielding to the page
//! whenever a slice of main-thread time is spent, so no task grows past the 50 ms a long task
//! starts at. A newer request makes an older run give up at its next draw.

/// At most this long between yields (ms); one draw at 10,000 items takes a few ms.
const SLICE_MS: f64 = 30.0;

/// Calls `step` (one draw; true once done) until it is done, yielding between slices. Returns
/// false, without finishing, as soon as `stale()` says a newer request replaced this one.
pub(crate) async fn in_slices(mut step: impl FnMut() -> bool, stale: impl Fn() -> bool) -> bool {
    let now = js_sys::Date::now;
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
