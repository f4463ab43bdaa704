//! FLEUR and RefFLEUR judging several candidates (`candidates::plain`): one request each, and
//! the uncertainty of a score: the standard deviation of the number the smoothed score is the
//! expectation of (each decimal place's digit distribution, weighted 0.1 and 0.01, places
//! independent; the multi-digit rule's alternatives read as decimals). A printed integer
//! (`1.0`, `0`) has none. Our reading, named as ours in the README.

use super::{
    export_json, interpret, score_request, ExportInput, FleurResult, Input, Place, Scheme,
};
use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;
use crate::metrics::room::{spread, Candidate, CandidateRequest};
use crate::metrics::Metric;
use crate::providers::Backend;

impl Candidate for Input {
    type Part = FleurResult;
    const DECIMALS: usize = 3;
    const UNCERTAINTY_NOTE: &'static str = "± is the spread of the judge's digit probabilities behind the smoothed score (our reading; the paper defines none); a printed 1.0 or 0 has none.";

    fn set_text(&mut self, text: &str) {
        self.caption = text.to_string();
    }

    fn metric(&self) -> Metric {
        if self.references.is_some() {
            Metric::RefFleur
        } else {
            Metric::Fleur
        }
    }

    fn problems(&self) -> Vec<String> {
        Input::problems(self)
    }

    fn requests(&self, backend: &Backend) -> Result<Vec<CandidateRequest>, JudgeError> {
        Ok(vec![CandidateRequest {
            request: score_request(backend, self)?,
            cache_tag: None,
        }])
    }

    fn read(&self, completion: &Completion) -> Result<FleurResult, JudgeError> {
        interpret(completion)
    }

    fn export<'p>(
        &self,
        backend: &Backend,
        outcome: impl Fn(usize) -> Result<&'p FleurResult, &'p str>,
    ) -> String {
        export_json(&ExportInput {
            caption: &self.caption,
            references: self.references.as_deref(),
            backend,
            result: outcome(0),
            explanation: None,
        })
    }

    fn summary(parts: &[&FleurResult]) -> (Option<f64>, Option<f64>) {
        match parts {
            [r] => (Some(r.smoothed.score), uncertainty(r)),
            _ => (None, None),
        }
    }
}

/// FLEUR's uncertainty (see the module documentation).
pub fn uncertainty(r: &FleurResult) -> Option<f64> {
    let s = &r.smoothed;
    match s.scheme {
        Scheme::Units => None,
        Scheme::MultiDigit => {
            let place = s.places.first()?;
            Some(spread(place.readings.iter().map(|(_, v, p)| (*v, *p))))
        }
        Scheme::PerDigit => {
            let var: f64 = s
                .places
                .iter()
                .map(|d| {
                    let w = match d.place {
                        Place::Units => 1.0,
                        Place::Tenths => 0.1,
                        Place::Hundredths => 0.01,
                    };
                    let sd = spread(d.digits.iter().enumerate().map(|(i, p)| (i as f64, *p)));
                    (w * sd).powi(2)
                })
                .sum();
            Some(var.sqrt())
        }
    }
}
