//! HarmonicEval's results on the evaluator: each criterion's progress and explanation, the last
//! run's inputs, and the weights and overall score at the current γ.

use leptos::prelude::*;

use crate::metrics::harmonic_eval::{CriterionResult, Input};
use crate::providers::Backend;
use crate::scoring::criteria::Criterion;
use crate::scoring::weighting::Scored;
use crate::ui::progress::{ExplainState, Progress};

/// One criterion's progress in the current run.
pub type CriterionState = Progress<CriterionResult>;

/// The inputs and backend of the last run, so Explain and Export describe what was scored even
/// if the form was edited since.
#[derive(Clone, Debug)]
pub struct RunContext {
    pub input: Input,
    pub backend: Backend,
}

/// What the last candidates run sent: the labels and texts as judged, and the shared input
/// and backend (the text of `context.input` is candidate A's).
#[derive(Clone, Debug)]
pub struct CandidatesRun {
    pub labels: Vec<String>,
    pub texts: Vec<String>,
    pub context: RunContext,
}

/// HarmonicEval's comparison of several candidates (issue 21): each one's five criteria and
/// what the run sent. The labels, texts and the human's pick are the shared
/// `ui::state::candidates::Candidates`.
#[derive(Clone, Copy)]
pub struct Compared {
    /// The last run's criteria, per candidate, in `Criterion::ALL` order.
    pub results: RwSignal<Vec<[CriterionState; 5]>>,
    pub run: StoredValue<Option<CandidatesRun>>,
}

impl Compared {
    fn new() -> Compared {
        Compared {
            results: RwSignal::new(Vec::new()),
            run: StoredValue::new(None),
        }
    }

    /// Whether a candidates run has started (its results show instead of the single cards).
    pub fn has_run(&self) -> bool {
        self.results.with(|r| !r.is_empty())
    }

    /// Whether any candidate's request is in flight.
    pub fn running(&self) -> bool {
        self.results
            .with(|r| r.iter().flatten().any(|s| s.is_active()))
    }

    /// Forgets the comparison (no signal touched when there is none).
    pub fn clear(&self) {
        if !self.results.with_untracked(Vec::is_empty) {
            self.results.set(Vec::new());
        }
    }

    /// Each candidate's scored criteria, for the core's ranking.
    pub fn scored(&self) -> Vec<Vec<Scored>> {
        self.results.with(|r| {
            r.iter()
                .map(|c| {
                    c.iter()
                        .filter_map(|s| s.result().map(CriterionResult::scored))
                        .collect()
                })
                .collect()
        })
    }
}

/// Weights per criterion (None where it has no score) and the overall score at γ.
pub type Weighting = (Vec<Option<f64>>, Option<f64>);

#[derive(Clone, Copy)]
pub struct HarmonicEvalState {
    pub criteria: [RwSignal<CriterionState>; 5],
    pub explanations: [RwSignal<ExplainState>; 5],
    pub run: StoredValue<Option<RunContext>>,
    /// Weights per criterion and the overall score at the current γ: five numbers,
    /// recomputed on every slider move without any request.
    pub weighting: Memo<Weighting>,
    /// Several candidates compared.
    pub compared: Compared,
    /// The bars of a result set by hand (issue 44): one for the one text, or one per candidate
    /// (in label order) while a comparison is shown; `None` for a model's result. While set,
    /// each criterion's slot holds what its bars give (`by_hand::put_all`). One signal type for
    /// both: each new one costs the first visit about 1 KB of generic code.
    pub hands: RwSignal<Option<Vec<crate::metrics::harmonic_eval::by_hand::Hand>>>,
}

impl HarmonicEvalState {
    /// Nothing judged yet; the weighting follows `gamma`.
    pub fn new(gamma: RwSignal<f64>) -> HarmonicEvalState {
        let criteria: [RwSignal<CriterionState>; 5] =
            std::array::from_fn(|_| RwSignal::new(CriterionState::Idle));
        HarmonicEvalState {
            criteria,
            explanations: std::array::from_fn(|_| RwSignal::new(ExplainState::Idle)),
            run: StoredValue::new(None),
            weighting: weighting_memo(criteria, gamma),
            compared: Compared::new(),
            hands: RwSignal::new(None),
        }
    }

    pub fn criterion(&self, c: Criterion) -> RwSignal<CriterionState> {
        self.criteria[c.index()]
    }

    /// Whether the result shown was set by hand.
    pub fn by_hand(&self) -> bool {
        self.hands.with(Option::is_some)
    }

    pub fn explanation(&self, c: Criterion) -> RwSignal<ExplainState> {
        self.explanations[c.index()]
    }

    /// The current result's overall score against γ (what the γ panel plots), following
    /// every criterion's state.
    pub fn curve(&self) -> Memo<Vec<(f64, f64)>> {
        let criteria = self.criteria;
        Memo::new(move |_| {
            let scored: Vec<Scored> = criteria
                .iter()
                .filter_map(|c| c.with(|s| s.result().map(CriterionResult::scored)))
                .collect();
            crate::metrics::harmonic_eval::weighting::overall_curve(&scored, 100)
        })
    }
}

/// HarmonicEval's weights and overall score, following every criterion's state and γ.
fn weighting_memo(
    criteria: [RwSignal<CriterionState>; 5],
    gamma: RwSignal<f64>,
) -> Memo<Weighting> {
    Memo::new(move |_| {
        let states: Vec<CriterionState> = criteria.iter().map(|s| s.get()).collect();
        let results: Vec<Option<&CriterionResult>> = states.iter().map(|s| s.result()).collect();
        crate::metrics::harmonic_eval::weigh(&results, gamma.get())
    })
}

/// This room's results in the evaluator's state (`AppState::results.harmonic_eval`, in the registry's `MetricResults`).
pub(crate) type State = HarmonicEvalState;

/// Fresh results, before any run.
pub(crate) fn new(settings: crate::ui::state::settings::Settings) -> State {
    HarmonicEvalState::new(settings.gamma)
}
