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
use crate::criteria::Criterion;
use crate::metrics::Metric;

#[component]
pub fn SingleResults() -> impl IntoView {
    let state = expect_context::<AppState>();
    let has_run = move || match state.metric.get() {
        Metric::HarmonicEval => state.criteria.iter().any(|c| c.with(|s| s.id() != "idle")),
        Metric::GVeval => state.gveval.with(|s| s.id() != "idle"),
        Metric::Maev => state.maev_results.with(|t| !t.is_empty()),
        Metric::Fleur | Metric::RefFleur => state.fleur.with(|s| s.id() != "idle"),
    };
    // Which result panel the selected metric shows.
    let shows = move |panel: Metric| match state.metric.get() {
        Metric::HarmonicEval => panel == Metric::HarmonicEval,
        Metric::GVeval => panel == Metric::GVeval,
        Metric::Maev => panel == Metric::Maev,
        Metric::Fleur | Metric::RefFleur => panel == Metric::Fleur,
    };
    view! {
    <Show when=move || shows(Metric::GVeval)>
        <GvevalPanel/>
    </Show>
    <Show when=move || shows(Metric::Maev)>
        <MaevPanel/>
    </Show>
    <Show when=move || shows(Metric::Fleur)>
        <FleurPanel/>
    </Show>
    <Show when=move || shows(Metric::HarmonicEval)>
        <OverallScore/>
        <GammaPanel/>
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
