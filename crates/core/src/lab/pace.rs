//! When a running batch shows its new results. Every result shown re-sorts the table and
//! recomputes τ, the sweep and the scatter over everything stored: work that grows with the
//! number stored. Showing each result at once made the per-result cost grow with the run
//! (0.2 s of main thread per item at 10k stored, 2.2 s at 100k: issue 17.5). Results are
//! therefore shown in batches whose size is a fixed share of what is stored, so each result
//! carries a constant share of one recomputation, plus a time limit so that a slow run still
//! shows its results within seconds. Small runs show every result at once.

/// Below this many stored results, every result is shown at once.
pub const IMMEDIATE_BELOW: usize = 256;
/// Results are shown once the waiting ones are at least 1/`SHARE` of those stored.
pub const SHARE: usize = 50;
/// Bounds of the longest wait: ten times the last recomputation, within these.
pub const MIN_WAIT_MS: f64 = 250.0;
pub const MAX_WAIT_MS: f64 = 5000.0;

/// Decides when the waiting results are shown; told how long each showing took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pacer {
    last_flush_ms: f64,
    last_cost_ms: f64,
}

impl Pacer {
    pub fn new(now_ms: f64) -> Pacer {
        Pacer {
            last_flush_ms: now_ms,
            last_cost_ms: 0.0,
        }
    }

    /// The longest a result waits: long enough that recomputing takes at most about a tenth
    /// of the main thread's time.
    pub fn max_wait_ms(&self) -> f64 {
        (10.0 * self.last_cost_ms).clamp(MIN_WAIT_MS, MAX_WAIT_MS)
    }

    /// Whether `pending` waiting results should be shown now, with `stored` shown already.
    pub fn due(&self, pending: usize, stored: usize, now_ms: f64) -> bool {
        if pending == 0 {
            return false;
        }
        stored < IMMEDIATE_BELOW
            || pending.saturating_mul(SHARE) >= stored
            || now_ms - self.last_flush_ms >= self.max_wait_ms()
    }

    /// Records a showing at `now_ms` that took `cost_ms` (non-finite or negative: 0).
    pub fn flushed(&mut self, now_ms: f64, cost_ms: f64) {
        self.last_flush_ms = now_ms;
        self.last_cost_ms = if cost_ms.is_finite() && cost_ms > 0.0 {
            cost_ms
        } else {
            0.0
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Simulates results arriving every `gap_ms` while `stored` grows from `from` to `to`,
    /// each showing costing `cost(stored)`; returns the mean cost per result.
    fn per_result(from: usize, to: usize, gap_ms: f64, cost: impl Fn(usize) -> f64) -> f64 {
        let mut p = Pacer::new(0.0);
        let (mut stored, mut pending, mut now, mut total) = (from, 0usize, 0.0, 0.0);
        while stored + pending < to {
            now += gap_ms;
            pending += 1;
            if p.due(pending, stored, now) {
                stored += pending;
                pending = 0;
                let c = cost(stored);
                total += c;
                now += c;
                p.flushed(now, c);
            }
        }
        total / (to - from) as f64
    }

    #[test]
    fn small_runs_show_every_result_at_once() {
        let p = Pacer::new(0.0);
        assert!(p.due(1, 0, 0.0));
        assert!(p.due(1, IMMEDIATE_BELOW - 1, 0.0));
        assert!(!p.due(0, 10, 1e9), "nothing waiting, nothing to show");
    }

    #[test]
    fn large_runs_show_a_share_at_a_time_or_after_the_longest_wait() {
        let mut p = Pacer::new(0.0);
        assert!(!p.due(1, 100_000, 10.0));
        assert!(!p.due(1_999, 100_000, 10.0));
        assert!(p.due(2_000, 100_000, 10.0));
        assert!(
            p.due(1, 100_000, MIN_WAIT_MS),
            "a slow run still shows its results"
        );
        p.flushed(1000.0, 300.0);
        assert_eq!(p.max_wait_ms(), 3000.0);
        assert!(!p.due(1, 100_000, 3999.0));
        assert!(p.due(1, 100_000, 4000.0));
        p.flushed(0.0, 1e9);
        assert_eq!(p.max_wait_ms(), MAX_WAIT_MS);
        p.flushed(0.0, f64::NAN);
        assert_eq!(p.max_wait_ms(), MIN_WAIT_MS);
    }

    #[test]
    fn per_result_cost_stays_flat_from_1k_to_100k_stored() {
        // A showing that costs what the probe measured: linear-logarithmic in the stored
        // results, 2.2 s at 100k; results arriving every 2 ms (a fake that answers at once).
        let cost = |n: usize| 2200.0 * (n as f64 * (n as f64).ln()) / (1e5 * 1e5f64.ln());
        let at_1k = per_result(1_000, 2_000, 2.0, cost);
        let at_10k = per_result(10_000, 12_000, 2.0, cost);
        let at_100k = per_result(100_000, 104_000, 2.0, cost);
        assert!(
            at_100k <= 2.0 * at_1k,
            "1k {at_1k:.3} ms, 100k {at_100k:.3} ms"
        );
        assert!(
            at_10k <= 2.0 * at_1k,
            "1k {at_1k:.3} ms, 10k {at_10k:.3} ms"
        );
        // Shown one by one, the same run would cost 100 times more per result at 100k.
        assert!(cost(100_000) / cost(1_000) > 100.0);
    }
}
