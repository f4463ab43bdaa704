//! MAEV judging several candidates (`candidates::plain`): its trials for each, and the
//! uncertainty of a score: the standard error of the mean over the trials read (sample
//! standard deviation / √n), with at least two trials; none with one. Our reading, named as
//! ours in the README.

use super::{
    export_json, read_completion, sampling, trial_requests, ExportInput, Input, TrialReading,
};
use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;
use crate::metrics::room::{Candidate, CandidateRequest};
use crate::metrics::Metric;
use crate::providers::Backend;

impl Candidate for Input {
    type Part = TrialReading;
    const DECIMALS: usize = 2;
    const UNCERTAINTY_NOTE: &'static str = "± is the standard error of the mean over the trials read (our reading); one trial has none.";

    fn set_text(&mut self, text: &str) {
        self.answer = text.to_string();
    }

    fn metric(&self) -> Metric {
        Metric::Maev
    }

    fn problems(&self) -> Vec<String> {
        Input::problems(self)
    }

    fn requests(&self, backend: &Backend) -> Result<Vec<CandidateRequest>, JudgeError> {
        Ok(trial_requests(backend, self)?
            .into_iter()
            .enumerate()
            .map(|(k, t)| CandidateRequest {
                request: t.request,
                cache_tag: Some(format!("maev-trial-{k}")),
            })
            .collect())
    }

    fn read(&self, completion: &Completion) -> Result<TrialReading, JudgeError> {
        read_completion(completion, &self.fidelity)
            .map_err(|detail| JudgeError::BadResponse { detail })
    }

    fn export<'p>(
        &self,
        backend: &Backend,
        outcome: impl Fn(usize) -> Result<&'p TrialReading, &'p str>,
    ) -> String {
        let pairs =
            sampling::sample_pairs(&self.pool, self.trials as usize, self.seed).unwrap_or_default();
        let trials = pairs
            .into_iter()
            .enumerate()
            .map(|(k, examples)| (examples, outcome(k)))
            .collect();
        export_json(&ExportInput {
            input: self,
            backend,
            trials,
        })
    }

    /// The mean of the trials read and its standard error.
    fn summary(parts: &[&TrialReading]) -> (Option<f64>, Option<f64>) {
        let scores: Vec<f64> = parts.iter().map(|t| t.score).collect();
        let n = scores.len() as f64;
        if scores.is_empty() {
            return (None, None);
        }
        let mean = scores.iter().sum::<f64>() / n;
        let se = (scores.len() >= 2).then(|| {
            let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (var / n).sqrt()
        });
        (Some(mean), se)
    }
}
