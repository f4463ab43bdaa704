//! G-VEval judging several candidates (`candidates::plain`): one request each, and the
//! uncertainty of a score: the standard deviation of the renormalised integer-token
//! distribution of the final score; none for a parsed (unsmoothed) score or for ACCR's mean of
//! four. Our reading, named as ours in the README.

use super::{export_json, interpret, request, ExportInput, GvevalResult, Input, Method};
use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;
use crate::metrics::room::{spread, Candidate, CandidateRequest};
use crate::metrics::Metric;
use crate::providers::Backend;

impl Candidate for Input {
    type Part = GvevalResult;
    const DECIMALS: usize = 1;
    const UNCERTAINTY_NOTE: &'static str = "± is the spread of the judge's probabilities over the integer scores (our reading; the paper defines none); a parsed score or ACCR's mean has none.";

    fn set_text(&mut self, text: &str) {
        self.caption = text.to_string();
    }

    fn metric(&self) -> Metric {
        Metric::GVeval
    }

    fn problems(&self) -> Vec<String> {
        Input::problems(self)
    }

    fn requests(&self, backend: &Backend) -> Result<Vec<CandidateRequest>, JudgeError> {
        Ok(vec![CandidateRequest {
            request: request(backend, self)?,
            cache_tag: None,
        }])
    }

    fn read(&self, completion: &Completion) -> Result<GvevalResult, JudgeError> {
        interpret(completion, self.accr)
    }

    fn export<'p>(
        &self,
        backend: &Backend,
        outcome: impl Fn(usize) -> Result<&'p GvevalResult, &'p str>,
    ) -> String {
        export_json(&ExportInput {
            input: self,
            backend,
            result: outcome(0),
        })
    }

    fn summary(parts: &[&GvevalResult]) -> (Option<f64>, Option<f64>) {
        match parts {
            [r] => (Some(r.score), uncertainty(r)),
            _ => (None, None),
        }
    }
}

/// G-VEval's uncertainty (see the module documentation).
pub fn uncertainty(r: &GvevalResult) -> Option<f64> {
    let reading = r.final_reading.as_ref()?;
    if reading.method != Method::IntegerTokens || reading.distribution.is_empty() {
        return None;
    }
    let mass: f64 = reading.distribution.iter().map(|(_, p)| p).sum();
    if mass <= 0.0 {
        return None;
    }
    Some(spread(
        reading
            .distribution
            .iter()
            .map(|&(v, p)| (f64::from(v), p / mass)),
    ))
}
