//! What a metric's room (`metrics/<m>/`) gives the code that runs every metric alike: the
//! [`MetricCore`] trait, which each metric implements once (`metrics::<m>::room::Room`), and the
//! neutral types its methods take and give. The registry (`metrics/mod.rs`) turns a [`Metric`]
//! into its room's type with one `match` (`with_room!`), so `batch::plan`, `batch::kept` and
//! `lab::open_doc` are generic code that names no metric, and a new metric is one more impl
//! plus the arms the compiler asks for in the registry. Static dispatch: no `dyn` (a `dyn MetricUi` cost 2.4 KB of gzipped
//! wasm).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::fidelity::Fidelity;
use super::{Metric, RunSettings};
use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;
use crate::providers::{Backend, HttpRequest, Image};
use crate::scoring::task::Task;

/// A fuzz harness over an answer: its token steps and their text (native only).
#[cfg(not(target_arch = "wasm32"))]
pub type StepsHarness = fn(&[crate::answers::completion::TokenStep], &str);

/// An item's answers, each under the slot its request was made for.
pub type Answers = Vec<(String, Result<Completion, JudgeError>)>;

/// One criterion of one item (the metrics with criteria: HarmonicEval), as the lab stores it
/// (`lab::CriterionRecord`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriterionRecord {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// `None` when unsmoothed (printed rating) or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<[f64; 5]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why the score is doubtful, as codes (`truncated`, `low-coverage`, `echo`; see
    /// `crate::answers::doubt`); empty when nothing is in doubt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub doubts: Vec<String>,
}

/// What a dataset item gives a metric (`batch::Item::subject`): the judged text and what else
/// a metric may read.
#[derive(Clone, Copy, Debug)]
pub struct Subject<'a> {
    pub task: Task,
    pub text: &'a str,
    pub question: Option<&'a str>,
    pub references: &'a [String],
    pub caption: Option<&'a str>,
    pub reference_answer: Option<&'a str>,
}

/// A batch run's metric, its settings and the judge, as every room method takes them.
#[derive(Clone, Debug)]
pub struct Run<'a> {
    pub metric: Metric,
    pub settings: &'a RunSettings,
    /// The extensions this metric uses (the run's, less the other metrics').
    pub fidelity: Fidelity,
    pub backend: &'a Backend,
}

/// An item's answers, read.
#[derive(Debug)]
pub enum ItemReading {
    /// One record per criterion (a failed one holds its error, said), the coverage of each
    /// smoothed criterion and the question, both kept for the evaluator.
    Criteria {
        criteria: Vec<CriterionRecord>,
        coverage: BTreeMap<String, f64>,
        question: Option<String>,
    },
    /// One score and what the evaluator needs to open it (the metric's export document,
    /// compact: [`reading_of`]), or why there is none; `fidelity` is the one to record when
    /// the answer, not the plan, decides it (FLEUR's smoothing).
    Score {
        outcome: Result<(f64, String), JudgeError>,
        fidelity: Option<Fidelity>,
    },
}

/// What a lab record holds that opening it in the evaluator reads (`lab::open_doc`).
#[derive(Clone, Copy, Debug)]
pub struct Stored<'a> {
    pub task: &'a str,
    pub criteria: &'a [CriterionRecord],
    pub fidelity: Option<&'a str>,
    pub extensions: &'a [String],
    /// The item's overall score at the γ it is opened at.
    pub overall: Option<f64>,
    pub question: Option<&'a str>,
    pub coverage: &'a BTreeMap<String, f64>,
    pub reading: &'a str,
}

/// The sentence of a record stored before the lab kept what the evaluator needs.
pub const OLDER_RECORD: &str = "This result was stored before the lab kept what the evaluator needs to show it (each criterion's coverage, or the metric's readings), so it cannot be opened there: run the item again to open it.";

/// One metric's part in the code every metric shares: a batch item's requests and their
/// answers read (`batch::plan`), what a lab record keeps and how it opens again in the
/// evaluator (`batch::kept`, `lab::open_doc`). Implemented once per metric, in its room.
pub trait MetricCore {
    /// Its identity, paper, range and output budgets (`Metric::info`).
    const INFO: &'static super::MetricInfo;

    /// Whether a dataset item needs an image file at all (MAEV's items never do).
    const NEEDS_IMAGE_FILE: bool = true;

    /// Its result file read back: what its panel needs to show the file as if it had just
    /// run (`metrics::Reopened` holds it, boxed).
    type Reopened;

    /// Reads its export `obj`, every number checked against what it was computed from, or
    /// says in one sentence why it cannot be shown.
    fn reopen(obj: &Map<String, Value>) -> Result<Self::Reopened, String>;

    /// The fuzz harnesses of this metric's readers of untrusted answers, by cargo-fuzz target
    /// name (`crate::fuzzing` runs them; native only). Each takes an answer as token steps
    /// and their text, and asserts what must hold for any answer.
    #[cfg(not(target_arch = "wasm32"))]
    const FUZZ: &'static [(&'static str, StepsHarness)] = &[];

    /// An item's requests, each under a slot name (a criterion id, `score`, or `trial-<i>`).
    /// `image` is the item's image as sent, when the metric sends one.
    fn item_requests(
        run: &Run,
        item: Subject,
        image: Option<Image>,
    ) -> Result<Vec<(String, HttpRequest)>, JudgeError>;

    /// Reads an item's answers (by slot); `say` words an error for the record (the caller
    /// redacts the key).
    fn read_item<F: Fn(JudgeError) -> String>(
        run: &Run,
        item: Subject,
        answers: Answers,
        say: &F,
    ) -> ItemReading;

    /// Makes a kept export document smaller before it is stored (MAEV: its built-in examples
    /// as their index in the pool); [`MetricCore::expand`] undoes it.
    fn compact(_doc: &mut Map<String, Value>) {}

    /// Undoes [`MetricCore::compact`] when a kept document is opened.
    fn expand(_doc: &mut Map<String, Value>) {}

    /// Whether a scored record holds what opening it needs: the metric's reading, unless the
    /// metric rebuilds its document from the record (HarmonicEval).
    fn openable(stored: &Stored) -> bool {
        !stored.reading.is_empty()
    }

    /// The export document of a scored record, less the keys `lab::open_doc::document` puts
    /// back (metric, model, provider, the judged text): the kept reading, expanded, unless the
    /// metric rebuilds it from the record (HarmonicEval, at `gamma`).
    fn document(stored: &Stored, _gamma: f64) -> Result<Map<String, Value>, String> {
        match serde_json::from_str::<Value>(stored.reading) {
            Ok(Value::Object(mut o)) => {
                Self::expand(&mut o);
                Ok(o)
            }
            _ => Err(OLDER_RECORD.into()),
        }
    }
}

/// Keys of every export that the record holds already (or that opening does not use).
pub const HELD: [&str; 5] = ["metric", "paper", "model", "provider", "base_url"];

/// What an item keeps of its metric's export document (`Kept::reading`): the document,
/// compact, less the keys the record holds already (the judged text, metric, model, provider)
/// and the base URL, which opening does not use.
pub fn reading_of(metric: Metric, export: &str) -> String {
    let Ok(Value::Object(mut o)) = serde_json::from_str::<Value>(export) else {
        return String::new();
    };
    for k in HELD.iter().chain(&[metric.info().text_key]) {
        o.remove(*k);
    }
    crate::metrics::with_room!(metric, M => M::compact(&mut o));
    serde_json::to_string(&Value::Object(o)).unwrap_or_default()
}

/// The first of an item's answers (the metrics that ask one question per item).
pub fn first_answer(answers: Answers) -> Result<Completion, JudgeError> {
    answers.into_iter().next().map_or(
        Err(JudgeError::BadResponse {
            detail: "no answer".into(),
        }),
        |(_, a)| a,
    )
}

/// One request of a candidate, with the cache tag that keeps repeated prompts apart (MAEV's
/// trials are independent samples).
pub struct CandidateRequest {
    pub request: HttpRequest,
    pub cache_tag: Option<String>,
}

/// A metric without γ judging several candidates (`candidates::plain`): implemented by its
/// input in its room (`metrics::<m>::candidate`), which names it `CandidateInput`; the
/// registry wraps it in [`super::CandidateBase`] (and each answer read in
/// [`super::CandidatePart`]), whose one `match` (`with_candidate!`) reaches it. A room whose
/// metric compares candidates its own way (HarmonicEval, with γ) names [`NoCandidates`].
pub trait Candidate: Clone {
    /// One answer, read.
    type Part;
    /// Decimals a score is shown with.
    const DECIMALS: usize;
    /// What the uncertainty beside each score is, and that the reading is ours.
    const UNCERTAINTY_NOTE: &'static str;
    /// Makes `text` the judged text.
    fn set_text(&mut self, text: &str);
    fn metric(&self) -> Metric;
    /// The input's own problems (the image, references, the text…).
    fn problems(&self) -> Vec<String>;
    /// The requests of one candidate (this input's text).
    fn requests(&self, backend: &Backend) -> Result<Vec<CandidateRequest>, JudgeError>;
    /// Reads one answer of this metric.
    fn read(&self, completion: &Completion) -> Result<Self::Part, JudgeError>;
    /// This candidate's own export (the metric's single-result document; never the key):
    /// `outcome(k)` is request k's reading or why there is none.
    fn export<'p>(
        &self,
        backend: &Backend,
        outcome: impl Fn(usize) -> Result<&'p Self::Part, &'p str>,
    ) -> String
    where
        Self::Part: 'p;
    /// A candidate's score and uncertainty from its answers read so far (`None` where none
    /// was read).
    fn summary(parts: &[&Self::Part]) -> (Option<f64>, Option<f64>);
}

/// Standard deviation of a distribution given as (value, probability) pairs, the mass not
/// listed counting as the value 0 (FLEUR does not renormalise).
pub fn spread(values: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut m1, mut m2) = (0.0, 0.0);
    for (v, p) in values {
        m1 += v * p;
        m2 += v * v * p;
    }
    (m2 - m1 * m1).max(0.0).sqrt()
}

/// The `CandidateInput` of a room whose metric has no plain candidates (HarmonicEval compares
/// its candidates with γ, `crate::candidates`): no value of it exists.
#[derive(Clone, Debug, PartialEq)]
pub enum NoCandidates {}

impl Candidate for NoCandidates {
    type Part = NoCandidates;
    const DECIMALS: usize = 0;
    const UNCERTAINTY_NOTE: &'static str = "";
    fn set_text(&mut self, _text: &str) {
        match *self {}
    }
    fn metric(&self) -> Metric {
        match *self {}
    }
    fn problems(&self) -> Vec<String> {
        match *self {}
    }
    fn requests(&self, _backend: &Backend) -> Result<Vec<CandidateRequest>, JudgeError> {
        match *self {}
    }
    fn read(&self, _completion: &Completion) -> Result<Self::Part, JudgeError> {
        match *self {}
    }
    fn export<'p>(
        &self,
        _backend: &Backend,
        _outcome: impl Fn(usize) -> Result<&'p Self::Part, &'p str>,
    ) -> String {
        match *self {}
    }
    fn summary(_parts: &[&Self::Part]) -> (Option<f64>, Option<f64>) {
        (None, None)
    }
}
