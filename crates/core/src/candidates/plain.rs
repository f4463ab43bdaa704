//! Candidates for the metrics without γ (FLEUR / RefFLEUR, G-VEval, MAEV; issue 21): what
//! each candidate sends, how its answers become one score with the judge's own uncertainty
//! where the metric gives one, and its export. The ranking and the differences are
//! [`super::order`] and [`super::differences`]; this module only says, per metric, where the
//! numbers come from.
//!
//! This module is generic: each metric's part is its room's `metrics::<m>::candidate` (its
//! requests, how an answer is read, its export, and the uncertainty of a score, which is our
//! reading, named as ours in the README and documented there), reached through the registry's
//! one `match` (`with_candidate!`).

use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;
use crate::metrics::room::Candidate;
use crate::metrics::{with_candidate, Metric};
use crate::providers::Backend;

/// One request of a candidate, with the cache tag that keeps repeated prompts apart (MAEV's
/// trials are independent samples).
pub use crate::metrics::room::CandidateRequest as Request;
/// What every candidate shares (image, references, question, trials…), per metric; the text
/// is each candidate's own ([`Base::with_text`]). The registry's enum: each metric's input
/// implements `metrics::room::Candidate` in its room (`metrics::<m>::candidate`).
pub use crate::metrics::CandidateBase as Base;
/// One answer, read.
pub use crate::metrics::CandidatePart as Part;

impl Base {
    /// The same input with candidate `text` as the judged text.
    pub fn with_text(&self, text: &str) -> Base {
        let mut b = self.clone();
        with_candidate!(&mut b, I, i => i.set_text(text));
        b
    }

    pub fn metric(&self) -> Metric {
        with_candidate!(self, I, i => i.metric())
    }

    /// The input's own problems (the image, references, the text…).
    pub fn problems(&self) -> Vec<String> {
        with_candidate!(self, I, i => Candidate::problems(i))
    }

    /// Decimals a score is shown with: FLEUR 0–1 to three, G-VEval 0–100 to one, MAEV 0–2 to
    /// two.
    pub fn decimals(&self) -> usize {
        with_candidate!(self, I, _i => I::DECIMALS)
    }

    /// What the uncertainty beside each score is, and that the reading is ours.
    pub fn uncertainty_note(&self) -> &'static str {
        with_candidate!(self, I, _i => I::UNCERTAINTY_NOTE)
    }

    /// The requests of one candidate (this input's text).
    pub fn requests(&self, backend: &Backend) -> Result<Vec<Request>, JudgeError> {
        with_candidate!(self, I, i => i.requests(backend))
    }

    /// Reads one answer of this metric.
    pub fn read(&self, completion: &Completion) -> Result<Part, JudgeError> {
        self.read_part(completion)
    }

    /// This candidate's own export (the metric's single-result document; never the key):
    /// `parts[k]` is request k's reading, its error, or `None` when it has not finished; a
    /// reading of another metric is said as such.
    pub fn export(&self, backend: &Backend, parts: &[Option<Result<&Part, String>>]) -> String {
        let unfinished = "not finished".to_string();
        let outcome = |k: usize| -> Result<&Part, &str> {
            match parts.get(k) {
                Some(Some(Ok(p))) => Ok(*p),
                Some(Some(Err(e))) => Err(e.as_str()),
                _ => Err(unfinished.as_str()),
            }
        };
        with_candidate!(self, I, i => i.export(backend, |k| outcome(k).and_then(|p| I::part_of(p).ok_or("another metric's answer"))))
    }
}

/// A candidate's score and uncertainty from its answers read so far (`None` where none was
/// read; MAEV's mean is over the trials read).
pub fn summary(parts: &[&Part]) -> (Option<f64>, Option<f64>) {
    Part::summary(parts)
}
