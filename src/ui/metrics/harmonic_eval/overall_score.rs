//! The overall HarmonicEval score, large.

use leptos::prelude::*;

use crate::ui::state::AppState;

#[component]
pub fn OverallScore() -> impl IntoView {
    let state = expect_context::<AppState>();
    let overall = move || state.results.harmonic_eval.weighting.get().1;
    let counted = move || {
        state
            .results
            .harmonic_eval
            .weighting
            .get()
            .0
            .iter()
            .filter(|w| w.is_some())
            .count()
    };
    view! {
        <div class="overall" id="overall-score" tabindex="-1" data-testid="overall-score" data-value=move || overall().map(|v| v.to_string()).unwrap_or_default()>
            <span class="overall-label">"HarmonicEval score"</span>
            <span class="overall-value" aria-live="polite">
                {move || overall().map(|v| format!("{v:.3}")).unwrap_or_else(|| "–".into())}
            </span>
            <span class="overall-range">"on a 1–5 scale"</span>
            <span class="overall-count">
                {move || match counted() {
                    0 => String::new(),
                    5 => "from all 5 criteria".to_string(),
                    n => format!("from {n} of 5 criteria ({} failed or not run)", 5 - n),
                }}
            </span>
            <span class="overall-hand" data-testid="overall-hand" class:hidden=move || !state.results.harmonic_eval.by_hand()>
                {crate::metrics::harmonic_eval::by_hand::SAID}
            </span>
        </div>
    }
}
