//! The run's progress on standard error, as the lab's progress line words it (done, failed,
//! remaining, items per minute, time left): on a terminal an `indicatif` bar redrawn in place,
//! elsewhere (a log, CI, `HJ_NO_BAR` set) a quiet line every tenth of the run or every 30 s,
//! whichever comes first.

use std::time::{Duration, Instant};

use harmonic_judge_core::lab::progress::RunProgress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    /// The bar, on a terminal; `None` writes lines.
    bar: Option<ProgressBar>,
    total: usize,
    /// Finished before this run started (resumed), not counted in the rate.
    before: usize,
    started: Instant,
    last_logged: usize,
    last_line: Option<Instant>,
    /// Whether the bar redraws by itself (from the first update on).
    ticking: bool,
}

/// A bar on standard error, or `None` where it is not a terminal or `HJ_NO_BAR` is set.
fn bar(total: usize) -> Option<ProgressBar> {
    let target = ProgressDrawTarget::stderr();
    if target.is_hidden() || std::env::var_os("HJ_NO_BAR").is_some() {
        return None;
    }
    let style = ProgressStyle::with_template("[{bar:24}] {pos}/{len} · {msg}")
        .expect("a valid template")
        .progress_chars("#>.");
    // Drawn from the first update, which says where the run is.
    Some(ProgressBar::with_draw_target(Some(total as u64), target).with_style(style))
}

impl Progress {
    pub fn new(total: usize, before: usize) -> Progress {
        Progress {
            bar: bar(total),
            total,
            before,
            started: Instant::now(),
            last_logged: before,
            last_line: None,
            ticking: false,
        }
    }

    /// The progress line for `done` complete and `failed` other items (both counting those
    /// finished before this run), worded as the lab page's.
    pub fn line(&self, done: usize, failed: usize) -> String {
        RunProgress {
            total: self.total,
            done,
            failed,
            partial: 0,
            before: self.before,
            elapsed_secs: self.started.elapsed().as_secs_f64(),
        }
        .line(true)
    }

    /// Says where the run is; `force` writes a line even when one was written a moment ago
    /// (the bar draws at most 20 times a second whatever it is told, and redraws by itself).
    pub fn update(&mut self, done: usize, failed: usize, force: bool) {
        let finished = done + failed;
        if let Some(bar) = &self.bar {
            // The position first: the message's draw shows both.
            bar.set_position(finished as u64);
            bar.set_message(self.line(done, failed));
            if !self.ticking {
                // Redrawn four times a second from now on, so the last word is always shown
                // (a draw within 50 ms of the one before is skipped).
                bar.enable_steady_tick(Duration::from_millis(250));
                self.ticking = true;
            }
            return;
        }
        let now = Instant::now();
        let step = (self.total / 10).max(1);
        let due = finished >= self.last_logged + step
            || finished == self.total
            || self
                .last_line
                .is_some_and(|t| now - t >= Duration::from_secs(30));
        if !force && (!due || finished == self.last_logged) {
            return;
        }
        self.last_logged = finished;
        self.last_line = Some(now);
        eprintln!(
            "{finished}/{} items: {}",
            self.total,
            self.line(done, failed)
        );
    }

    /// A sentence between progress lines (a retry's wait, a warning), above the bar.
    pub fn say(&mut self, sentence: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{sentence}")),
            None => eprintln!("{sentence}"),
        }
    }

    /// Leaves the bar as the run ends (where it stopped, not filled), on its own line.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.abandon();
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_what_is_left() {
        let p = Progress::new(50, 10);
        let line = p.line(20, 2);
        assert!(
            line.starts_with("20 done · 2 failed · 28 remaining · "),
            "{line}"
        );
        assert!(line.contains("left"), "{line}");
        assert!(!Progress::new(5, 0).line(0, 0).contains("left"));
    }
}
