//! The run's progress on standard error, as the lab's progress line words it (done, failed,
//! remaining, items per minute, time left): on a terminal a bar redrawn in place, elsewhere (a
//! log, CI) a quiet line every tenth of the run or every 30 s, whichever comes first.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub struct Progress {
    tty: bool,
    total: usize,
    /// Finished before this run started (resumed), not counted in the rate.
    before: usize,
    started: Instant,
    last_draw: Option<Instant>,
    last_logged: usize,
    drawn: bool,
}

/// "42s", "3m 05s", "1h 02m", as the lab's progress line says it.
pub fn duration(secs: f64) -> String {
    let s = secs.round().max(0.0) as u64;
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

impl Progress {
    pub fn new(total: usize, before: usize) -> Progress {
        Progress {
            tty: std::io::stderr().is_terminal() && std::env::var_os("HJ_NO_BAR").is_none(),
            total,
            before,
            started: Instant::now(),
            last_draw: None,
            last_logged: before,
            drawn: false,
        }
    }

    /// The progress line for `done` complete and `failed` other items (both counting those
    /// finished before this run).
    pub fn line(&self, done: usize, failed: usize) -> String {
        let finished = done + failed;
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = finished.saturating_sub(self.before) as f64 / (elapsed / 60.0);
        let left = self.total.saturating_sub(finished);
        let eta = if rate > 0.0 && left > 0 {
            format!(" · about {} left", duration(left as f64 / rate * 60.0))
        } else {
            String::new()
        };
        format!("{done} done · {failed} failed · {left} remaining · {rate:.1} items/min{eta}")
    }

    /// Says where the run is; `force` draws even when it drew a moment ago.
    pub fn update(&mut self, done: usize, failed: usize, force: bool) {
        let finished = done + failed;
        let now = Instant::now();
        if self.tty {
            if !force
                && self
                    .last_draw
                    .is_some_and(|t| now - t < Duration::from_millis(100))
            {
                return;
            }
            let width = 24;
            let filled = (finished * width)
                .checked_div(self.total)
                .unwrap_or(width)
                .min(width);
            let bar: String = "#".repeat(filled) + &".".repeat(width - filled);
            eprint!(
                "\r\x1b[2K[{bar}] {finished}/{} · {}",
                self.total,
                self.line(done, failed)
            );
            let _ = std::io::stderr().flush();
            self.drawn = true;
        } else {
            let step = (self.total / 10).max(1);
            let due = finished >= self.last_logged + step
                || finished == self.total
                || self
                    .last_draw
                    .is_some_and(|t| now - t >= Duration::from_secs(30));
            if !force && (!due || finished == self.last_logged) {
                return;
            }
            self.last_logged = finished;
            eprintln!(
                "{finished}/{} items: {}",
                self.total,
                self.line(done, failed)
            );
        }
        self.last_draw = Some(now);
    }

    /// A sentence between progress lines (a retry's wait, a warning).
    pub fn say(&mut self, sentence: &str) {
        if self.tty && self.drawn {
            eprint!("\r\x1b[2K");
            self.drawn = false;
        }
        eprintln!("{sentence}");
    }

    /// Ends the bar's line.
    pub fn finish(&mut self) {
        if self.tty && self.drawn {
            eprintln!();
            self.drawn = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_the_labs() {
        assert_eq!(duration(42.4), "42s");
        assert_eq!(duration(185.0), "3m 05s");
        assert_eq!(duration(3720.0), "1h 02m");
    }

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
