//! A batch run's progress line ("20 done · 2 failed · 28 remaining · 4.0 items/min · about
//! 7m 00s left") and its durations: the lab page's batch panel and `hj run`'s progress both
//! call [`RunProgress::line`], so the two doors count and word it alike.

/// Where a batch run stands, as both doors count it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunProgress {
    /// Items in the run.
    pub total: usize,
    /// Complete items (counting those finished before this run started).
    pub done: usize,
    /// Failed items (likewise).
    pub failed: usize,
    /// Among `done`, the items scored on fewer than all criteria.
    pub partial: usize,
    /// Finished before this run started (a resumed run): not counted in the rate.
    pub before: usize,
    /// Seconds since this run started.
    pub elapsed_secs: f64,
}

impl RunProgress {
    /// Items neither done nor failed.
    pub fn remaining(&self) -> usize {
        self.total.saturating_sub(self.done + self.failed)
    }

    /// Items finished per minute in this run (0 before the first).
    pub fn rate_per_min(&self) -> f64 {
        let finished_now = (self.done + self.failed).saturating_sub(self.before);
        finished_now as f64 / (self.elapsed_secs.max(1e-3) / 60.0)
    }

    /// Seconds left at this run's rate, where there is a rate and something left.
    pub fn secs_left(&self) -> Option<f64> {
        let (rate, left) = (self.rate_per_min(), self.remaining());
        (rate > 0.0 && left > 0).then(|| left as f64 / rate * 60.0)
    }

    /// The line: counts, rate, and (while `running`) the time left.
    pub fn line(&self, running: bool) -> String {
        let partial = if self.partial > 0 {
            format!(" ({} scored on fewer than all criteria)", self.partial)
        } else {
            String::new()
        };
        let eta = match self.secs_left() {
            Some(s) if running => format!(" · about {} left", duration(s)),
            _ => String::new(),
        };
        format!(
            "{} done · {} failed{partial} · {} remaining · {:.1} items/min{eta}",
            self.done,
            self.failed,
            self.remaining(),
            self.rate_per_min()
        )
    }
}

/// `secs` as "42s", "3m 05s" or "1h 02m" (rounded to the second; a negative or non-finite
/// time reads as "0s").
pub fn duration(secs: f64) -> String {
    let s = if secs.is_finite() {
        secs.round().max(0.0) as u64
    } else {
        0
    };
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::{duration, RunProgress};

    fn at(done: usize, failed: usize, before: usize, elapsed_secs: f64) -> RunProgress {
        RunProgress {
            total: 50,
            done,
            failed,
            partial: 0,
            before,
            elapsed_secs,
        }
    }

    #[test]
    fn the_line_counts_what_is_left_at_this_runs_rate() {
        // 12 finished in this run (22 - 10 before) in 3 minutes: 4 per minute, 28 left: 7 minutes.
        let p = at(20, 2, 10, 180.0);
        assert_eq!(p.remaining(), 28);
        assert!((p.rate_per_min() - 4.0).abs() < 1e-9);
        assert_eq!(
            p.line(true),
            "20 done · 2 failed · 28 remaining · 4.0 items/min · about 7m 00s left"
        );
        // Paused or finished: no time left is promised.
        assert_eq!(
            p.line(false),
            "20 done · 2 failed · 28 remaining · 4.0 items/min"
        );
    }

    #[test]
    fn nothing_finished_yet_promises_no_time_and_partial_items_are_said() {
        let p = at(10, 0, 10, 60.0);
        assert_eq!(p.secs_left(), None);
        assert!(!p.line(true).contains("left"));
        let p = RunProgress {
            partial: 3,
            ..at(50, 0, 0, 600.0)
        };
        assert_eq!(p.secs_left(), None, "nothing remains");
        assert_eq!(
            p.line(true),
            "50 done · 0 failed (3 scored on fewer than all criteria) · 0 remaining · 5.0 items/min"
        );
    }

    #[test]
    fn seconds_minutes_and_hours() {
        assert_eq!(duration(0.0), "0s");
        assert_eq!(duration(42.4), "42s");
        assert_eq!(duration(59.6), "1m 00s");
        assert_eq!(duration(185.0), "3m 05s");
        assert_eq!(duration(3599.0), "59m 59s");
        assert_eq!(duration(3600.0), "1h 00m");
        assert_eq!(duration(3720.0), "1h 02m");
        assert_eq!(duration(90_061.0), "25h 01m");
    }

    #[test]
    fn nothing_negative_or_undefined() {
        assert_eq!(duration(-5.0), "0s");
        assert_eq!(duration(f64::NAN), "0s");
        assert_eq!(duration(f64::INFINITY), "0s");
    }
}
