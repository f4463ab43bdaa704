//! HarmonicEval's results on the evaluator: each criterion's progress and explanation, the last
//! run's inputs, and the weights and overall score at the current γ.

use leptos::prelude::*;

use crate::scoring::criteria::Criterion;
use crate::metrics::harmonic_eval::CriterionResult;
use crate::ui::progress::{CriterionState, RunContext};
use crate::ui::progress::ExplainState;

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
        }
    }

    pub fn criterion(&self, c: Criterion) -> RwSignal<CriterionState> {
        self.criteria[c.index()]
    }

    pub fn explanation(&self, c: Criterion) -> RwSignal<ExplainState> {
        self.explanations[c.index()]
    }
}

/// HarmonicEval's weights and overall score, following every criterion's state and γ.
fn weighting_memo(criteria: [RwSignal<CriterionState>; 5], gamma: RwSignal<f64>) -> Memo<Weighting> {
    Memo::new(move |_| {
        let states: Vec<CriterionState> = criteria.iter().map(|s| s.get()).collect();
        let results: Vec<Option<&CriterionResult>> = states.iter().map(|s| s.result()).collect();
        crate::metrics::harmonic_eval::weigh(&results, gamma.get())
    })
}
