//! The results of a single evaluation: the selected metric's panel and the JSON export.

use leptos::prelude::*;

use crate::ui::actions;
use crate::ui::criterion_card::CriterionCard;
use crate::ui::fleur_panel::FleurPanel;
use crate::ui::gamma_panel::GammaPanel;
use crate::ui::gveval_panel::GvevalPanel;
use crate::ui::maev_panel::MaevPanel;
use crate::ui::overall_score::OverallScore;
use crate::ui::state::AppState;
use crate::ui::weights_chart::WeightsChart;
use crate::criteria::Criterion;

#[component]
pub fn SingleResults() -> impl IntoView {
    let state = expect_context::<AppState>();
    let has_run = move || {
        if state.is_harmonic() {
            state.criteria.iter().any(|c| c.with(|s| s.id() != "idle"))
        } else if state.is_gveval() {
            state.gveval.with(|s| s.id() != "idle")
        } else if state.is_maev() {
            state.maev_results.with(|t| !t.is_empty())
        } else {
            state.fleur.with(|s| s.id() != "idle")
        }
    };
    view! {
    <Show when=move || state.is_gveval()>
        <GvevalPanel/>
    </Show>
    <Show when=move || state.is_maev()>
        <MaevPanel/>
    </Show>
    <Show when=move || state.is_ref_fleur() || state.metric.with(|m| m == "fleur")>
        <FleurPanel/>
    </Show>
    <Show when=move || state.is_harmonic()>
        <OverallScore/>
        <GammaPanel/>
        <WeightsChart/>
        <div class="cards">
            {Criterion::ALL.into_iter().map(|c| view! { <CriterionCard criterion=c/> }).collect_view()}
        </div>
    </Show>
    <div class="export-row">
        <button
            data-testid="export-json-button"
            on:click=move |_| actions::export(state)
            disabled=move || !has_run()
        >
            "Export JSON"
        </button>
        <span class="error" role="alert">{move || state.export_error.get()}</span>
    </div>
    <p class="cite" class:hidden=move || !state.is_harmonic()>
        "HarmonicEval: Ohi et al., " <em>"HarmonicEval: Multi-modal, Multi-task, Multi-criteria Automatic Evaluation Using a Vision Language Model"</em>
        ". Scores are the expected rating under the judge's rating-token probabilities; γ sets how strongly confident criteria count more."
    </p>
    }
}
