//! Numbers before and during the wait of the in-page judge: what a model will download and
//! about how much memory it needs, and while judging, how long each answer took and about how
//! long the rest will take. Pure: the transport records the times, the panel shows the words.

use super::images::{EngineProgress, ImageFigures, ImageTally};

/// The requests of one burst (from the first request sent while none was waiting, until none
/// is waiting again): when each was answered, and how many are still waiting.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meter {
    /// When the burst began (ms, any clock).
    start: f64,
    /// When each answer came, in order.
    answers: Vec<f64>,
    /// Requests sent to the engine and not yet answered (or failed).
    waiting: u32,
    /// What the engine last said of the request it is reading (our build only).
    live: Option<EngineProgress>,
    /// The images of this burst's answers, and this device's time per view (ms, 0: unknown).
    images: ImageTally,
    ms_per_view: f64,
}

/// The progress line with what the judge is on: "Judging correctness. Reading the image: …".
pub fn judging(on: &str, line: &str) -> String {
    format!("Judging {on}. {line}")
}

impl Meter {
    /// A request is sent to the engine at `now`.
    pub fn sent(&mut self, now: f64) {
        if self.waiting == 0 {
            *self = Meter {
                start: now,
                ms_per_view: self.ms_per_view,
                ..Meter::default()
            };
        }
        self.waiting += 1;
    }

    /// A request came back at `now` (answered or failed).
    pub fn answered(&mut self, now: f64) {
        self.waiting = self.waiting.saturating_sub(1);
        self.answers.push(now);
    }

    /// The engine's progress on the request it reads, as it last said.
    pub fn progress(&mut self, p: EngineProgress) {
        if p.ms_per_view > 0.0 {
            self.ms_per_view = p.ms_per_view;
        }
        self.live = Some(p);
    }

    /// An answer's image figures (`timings.images`).
    pub fn images(&mut self, f: ImageFigures) {
        self.images.add(f);
    }

    pub fn waiting(&self) -> u32 {
        self.waiting
    }

    /// Seconds each answer took, counted from the previous answer (the engine answers one
    /// request at a time, so this is each request's own time).
    pub fn each_s(&self) -> Vec<f64> {
        let mut last = self.start;
        self.answers
            .iter()
            .map(|&t| {
                let d = (t - last).max(0.0) / 1000.0;
                last = t;
                d
            })
            .collect()
    }

    /// About how many seconds are left at `now`: the mean time of the answers so far times the
    /// requests still waiting, less what the current one has already run. `None` until one
    /// answer is in (no guess from nothing) or when nothing waits.
    pub fn left_s(&self, now: f64) -> Option<f64> {
        let each = self.each_s();
        if self.waiting == 0 || each.is_empty() {
            return None;
        }
        let mean = each.iter().sum::<f64>() / each.len() as f64;
        let since = (now - self.answers.last().copied().unwrap_or(self.start)).max(0.0) / 1000.0;
        Some((mean * f64::from(self.waiting) - since).max(0.0))
    }

    /// The `judge-timing` line, with what the engine says of images: "" when nothing was
    /// asked yet.
    pub fn sentence(&self, now: f64) -> String {
        let mut line = self.answers_sentence(now);
        let reading = self.live.as_ref().filter(|_| self.waiting > 0);
        for part in [
            reading.and_then(EngineProgress::sentence),
            self.images.sentence(self.ms_per_view),
        ]
        .into_iter()
        .flatten()
        {
            line.push(' ');
            line.push_str(&part);
        }
        line
    }

    fn answers_sentence(&self, now: f64) -> String {
        let each = self.each_s();
        if each.is_empty() && self.waiting == 0 {
            return String::new();
        }
        let done = each
            .iter()
            .map(|s| duration(*s))
            .collect::<Vec<_>>()
            .join(", ");
        match (each.is_empty(), self.left_s(now)) {
            (true, _) => format!(
                "The in-page judge is answering ({} waiting, {} so far); the time left shows after the first answer.",
                self.waiting,
                duration((now - self.start).max(0.0) / 1000.0)
            ),
            (false, Some(left)) => format!(
                "Each answer took {done}. About {} left for the {} still waiting.",
                duration(left),
                self.waiting
            ),
            (false, None) => format!("Each answer took {done}."),
        }
    }
}

/// "42 s", "3 min 05 s".
pub fn duration(s: f64) -> String {
    let s = s.round().max(0.0) as u64;
    if s < 60 {
        format!("{s} s")
    } else {
        format!("{} min {:02} s", s / 60, s % 60)
    }
}

/// The memory a model needs in the page, estimated before loading from its files' sizes: the
/// weights are read into the engine's memory whole, and the context (4,096 tokens), the
/// projector's and the compute buffers come on top. Measured on SmolLM2-135M Q4_1 (92 MB of
/// weights): 90 MiB of context cache and 18 MiB of compute buffers, so the estimate adds
/// the larger of 128 MB and a quarter of the files.
pub fn memory_estimate(file_bytes: f64) -> f64 {
    file_bytes + (file_bytes * 0.25).max(128e6)
}

/// The sentence shown before loading: the download (or "in this browser's cache") and the
/// memory. `sizes` are the model's and projector's bytes where known.
pub fn before_loading(sizes: &[Option<f64>], cached: bool) -> String {
    let known: Vec<f64> = sizes.iter().flatten().copied().collect();
    if known.is_empty() || known.len() < sizes.len() {
        return "The download size is not known until it starts (the server did not say).".into();
    }
    let total: f64 = known.iter().sum();
    let memory = super::size_text(memory_estimate(total));
    if cached {
        format!(
            "In this browser's cache ({}): nothing to download. Needs about {memory} of memory.",
            super::size_text(total)
        )
    } else {
        format!("Downloads {} once (then kept in this browser's cache). Needs about {memory} of memory.", super::size_text(total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_what_the_judge_is_on() {
        assert_eq!(
            judging("correctness", "Reading the image: view 1 of 1."),
            "Judging correctness. Reading the image: view 1 of 1."
        );
    }

    #[test]
    fn each_answer_is_timed_from_the_one_before() {
        let mut m = Meter::default();
        for _ in 0..5 {
            m.sent(1_000.0);
        }
        assert_eq!(m.sentence(3_000.0), "The in-page judge is answering (5 waiting, 2 s so far); the time left shows after the first answer.");
        assert_eq!(m.left_s(3_000.0), None);
        m.answered(41_000.0);
        m.answered(80_000.0);
        assert_eq!(m.each_s(), vec![40.0, 39.0]);
        assert_eq!(m.waiting(), 3);
        // 39.5 s each for 3, less 10 s already run on the current one.
        assert_eq!(m.left_s(90_000.0), Some(39.5 * 3.0 - 10.0));
        assert_eq!(
            m.sentence(90_000.0),
            "Each answer took 40 s, 39 s. About 1 min 49 s left for the 3 still waiting."
        );
        m.answered(120_000.0);
        m.answered(160_000.0);
        m.answered(200_000.0);
        assert_eq!(m.left_s(200_000.0), None);
        assert_eq!(
            m.sentence(200_000.0),
            "Each answer took 40 s, 39 s, 40 s, 40 s, 40 s."
        );
        // A new burst starts afresh.
        m.sent(300_000.0);
        assert!(m.each_s().is_empty());
        assert_eq!(m.waiting(), 1);
    }

    #[test]
    fn the_line_says_which_view_is_read_and_what_the_images_cost() {
        let mut m = Meter::default();
        m.sent(0.0);
        m.progress(EngineProgress {
            views: 1,
            views_full: 13,
            to_encode: 1,
            ..EngineProgress::default()
        });
        assert_eq!(
            m.sentence(500.0),
            "The in-page judge is answering (1 waiting, 1 s so far); the time left shows after the first answer. Reading the image: view 1 of 1."
        );
        m.progress(EngineProgress {
            views: 1,
            views_full: 13,
            view: 1,
            encoded: 1,
            ms_per_view: 2_000.0,
            ..EngineProgress::default()
        });
        m.images(ImageFigures {
            views: 1,
            views_full: 13,
            encoded: 1,
            reused: 0,
            encode_ms: 2_000.0,
            ..ImageFigures::default()
        });
        m.answered(3_000.0);
        assert_eq!(
            m.sentence(3_000.0),
            "Each answer took 3 s. The image: 1 of its 13 views read (the global view alone, as all 13 would take about 26 s here; set Image detail to high for every view); 1 view encoded (2.0 s), 0 taken from memory."
        );
        // A new burst starts its own tally and keeps the device's speed.
        m.sent(10_000.0);
        assert_eq!(m.images, ImageTally::default());
        assert_eq!(m.ms_per_view, 2_000.0);
        assert_eq!(m.live, None);
    }

    #[test]
    fn nothing_is_said_before_anything_is_asked_and_a_late_answer_never_goes_negative() {
        let mut m = Meter::default();
        assert_eq!(m.sentence(0.0), "");
        m.sent(0.0);
        m.sent(0.0);
        m.answered(10_000.0);
        assert_eq!(m.left_s(60_000.0), Some(0.0));
        m.answered(5_000.0); // clocks that go back are not negative time
        assert_eq!(m.each_s(), vec![10.0, 0.0]);
        m.answered(6_000.0); // more answers than requests: nothing waits, never below zero
        assert_eq!(m.waiting(), 0);
    }

    #[test]
    fn sizes_and_memory_are_said_before_loading() {
        assert_eq!(duration(59.4), "59 s");
        assert_eq!(duration(185.0), "3 min 05 s");
        assert_eq!(memory_estimate(92e6), 92e6 + 128e6);
        assert_eq!(memory_estimate(1e9), 1.25e9);
        assert_eq!(
            before_loading(&[Some(92e6), Some(1e6)], false),
            "Downloads 93.0 MB once (then kept in this browser's cache). Needs about 221.0 MB of memory."
        );
        assert!(before_loading(&[Some(92e6)], true)
            .starts_with("In this browser's cache (92.0 MB): nothing to download."));
        assert!(before_loading(&[Some(92e6), None], false).contains("not known"));
    }
}
