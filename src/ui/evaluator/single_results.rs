//! The results of a single evaluation: the selected metric's panel and the JSON export.

use leptos::prelude::*;

use crate::ui::metrics as metric_ui;
use crate::ui::state::AppState;

#[component]
pub fn SingleResults() -> impl IntoView {
    let state = expect_context::<AppState>();
    let has_run = move || metric_ui::of(state.settings.metric.get()).has_run(state);
    let shown = move || metric_ui::of(state.settings.metric.get()).panel();
    view! {
    {shown}
    <div class="export-row">
        <button
            data-testid="export-json-button"
            on:click=move |_| crate::ui::metrics::export(state)
            disabled=move || !has_run()
        >
            "Export JSON"
        </button>
        <span class="error" role="alert">{move || state.export_error.get()}</span>
    </div>
    <p class="cite" class:hidden=move || !state.settings.weighs_criteria()>
        "HarmonicEval: Ohi et al., " <em>"HarmonicEval: Multi-modal, Multi-task, Multi-criteria Automatic Evaluation Using a Vision Language Model"</em>
        ". Scores are the expected rating under the judge's rating-token probabilities; γ sets how strongly confident criteria count more."
    </p>
    }
}
