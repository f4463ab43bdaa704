//! MAEV's part in the code every metric shares ([`MetricCore`]): one request per trial (no
//! image), the mean of the trials read, and the export document a lab item keeps so the
//! evaluator can open it, with the built-in few-shot examples kept as their index in the pool.

use serde_json::{json, Map, Value};

use super::{aggregate, default_pool, export_json, read_completion, sampling, trial_requests};
use super::{Example, ExportInput, Input, TrialOutcome, TrialReading};
use crate::answers::errors::JudgeError;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::room::{reading_of, Answers, ItemReading, MetricCore, Run, Subject};
use crate::metrics::Metric;
use crate::providers::{Backend, HttpRequest, Image};

/// MAEV's run settings (the item brings the question, caption, reference and answer).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSettings {
    pub trials: u32,
    pub threshold: f64,
    pub seed: u64,
    pub pool: Vec<Example>,
}

/// MAEV's room type.
pub struct Room;

/// The input an item is judged with under `settings`.
pub fn input(settings: &RunSettings, fidelity: Fidelity, item: Subject) -> Input {
    Input {
        question: item.question.unwrap_or_default().to_string(),
        caption: item.caption.unwrap_or_default().to_string(),
        reference: item.reference_answer.unwrap_or_default().to_string(),
        answer: item.text.to_string(),
        trials: settings.trials,
        threshold: settings.threshold,
        seed: settings.seed,
        pool: settings.pool.clone(),
        fidelity,
    }
}

impl MetricCore for Room {
    const INFO: &'static crate::metrics::MetricInfo = &super::INFO;
    /// MAEV's items are text only: no image file.
    const NEEDS_IMAGE_FILE: bool = false;
    type Reopened = super::reopen::Reopened;

    fn reopen(obj: &serde_json::Map<String, serde_json::Value>) -> Result<Self::Reopened, String> {
        super::reopen::reopen(obj)
    }

    #[cfg(not(target_arch = "wasm32"))]
    const FUZZ: &'static [(&'static str, crate::metrics::room::StepsHarness)] =
        &[("maev_trial", super::parse::fuzz)];

    fn item_requests(
        run: &Run,
        item: Subject,
        _image: Option<Image>,
    ) -> Result<Vec<(String, HttpRequest)>, JudgeError> {
        let input = input(&run.settings.maev, run.fidelity.clone(), item);
        if let Some(p) = input.problems().into_iter().next() {
            return Err(JudgeError::Setting { message: p });
        }
        Ok(trial_requests(run.backend, &input)?
            .into_iter()
            .enumerate()
            .map(|(i, t)| (format!("trial-{i}"), t.request))
            .collect())
    }

    /// The mean of the trials that could be read, and the reading kept for the evaluator
    /// (every trial, each under its index from its slot `trial-<i>`).
    fn read_item<F: Fn(JudgeError) -> String>(
        run: &Run,
        item: Subject,
        answers: Answers,
        say: &F,
    ) -> ItemReading {
        let fidelity = &run.fidelity;
        let trials: Vec<(usize, Result<TrialReading, String>)> = answers
            .into_iter()
            .enumerate()
            .map(|(at, (slot, a))| {
                let index = slot
                    .strip_prefix("trial-")
                    .and_then(|i| i.parse().ok())
                    .unwrap_or(at);
                (
                    index,
                    a.map_err(say).and_then(|c| read_completion(&c, fidelity)),
                )
            })
            .collect();
        let scores: Vec<f64> = trials
            .iter()
            .filter_map(|(_, r)| r.as_ref().ok())
            .map(|r| r.score)
            .collect();
        let outcome = aggregate(&scores, run.settings.maev.threshold)
            .ok_or(JudgeError::BadResponse {
                detail: "no MAEV trial could be read".into(),
            })
            .map(|(mean, _)| {
                (
                    mean,
                    kept(
                        &input(&run.settings.maev, fidelity.clone(), item),
                        run.backend,
                        &trials,
                    ),
                )
            });
        ItemReading::Score {
            outcome,
            fidelity: None,
        }
    }

    fn compact(doc: &mut Map<String, Value>) {
        default_examples(doc, true);
    }

    fn expand(doc: &mut Map<String, Value>) {
        default_examples(doc, false);
    }
}

/// MAEV's reading: every trial with its two examples (by the run's seed, as they were sent)
/// and its reading or error. `trials` holds each trial's index and outcome.
pub fn kept(
    input: &Input,
    backend: &Backend,
    trials: &[(usize, Result<TrialReading, String>)],
) -> String {
    let Ok(pairs) = sampling::sample_pairs(&input.pool, input.trials as usize, input.seed) else {
        return String::new();
    };
    let outcomes: Vec<TrialOutcome> = trials
        .iter()
        .filter_map(|(i, r)| Some((*pairs.get(*i)?, r.as_ref().map_err(String::as_str))))
        .collect();
    let doc = export_json(&ExportInput {
        input,
        backend,
        trials: outcomes,
    });
    reading_of(Metric::Maev, &doc)
}

/// Each trial's few-shot example that is one of the built-in pool's, as its index in that
/// pool (`compact`), or back as the example itself: most runs use the built-in pool, and its
/// text would otherwise be most of what an item keeps.
fn default_examples(doc: &mut Map<String, Value>, compact: bool) {
    let pool = default_pool();
    let as_doc =
        |e: &Example| json!({"score": e.score, "question": e.question, "assistant": e.assistant});
    let Some(trials) = doc.get_mut("trials").and_then(Value::as_array_mut) else {
        return;
    };
    let examples = trials
        .iter_mut()
        .filter_map(|t| t.get_mut("examples")?.as_array_mut());
    for example in examples.flat_map(|e| e.iter_mut()) {
        let swap = if compact {
            pool.iter()
                .position(|e| as_doc(e) == *example)
                .map(Value::from)
        } else {
            example
                .as_u64()
                .and_then(|i| pool.get(i as usize))
                .map(as_doc)
        };
        if let Some(v) = swap {
            *example = v;
        }
    }
}
