//! One failure every requested criterion shares (a wrong key, a model without vision), said once
//! above the cards instead of five times (`ui::evaluator::results_guidance::SharedFailure` shows it).

use leptos::prelude::*;

use crate::inputs::first_visit::shared_failure;
use crate::scoring::criteria::Criterion;
use crate::ui::state::AppState;

/// The failure every requested criterion of the run shares, if any.
pub(crate) fn shared(state: AppState) -> Option<String> {
    let chosen = state.settings.chosen_criteria.get();
    let errors: Vec<Option<String>> = Criterion::ALL
        .into_iter()
        .filter(|c| chosen.contains(*c))
        .map(|c| state.results.harmonic_eval.criterion(c).with(|s| s.error()))
        .collect();
    let refs: Vec<Option<&str>> = errors.iter().map(|e| e.as_deref()).collect();
    shared_failure(&refs)
}
