//! Page layout: inputs on the left, results on the right (stacked on a phone).

use leptos::prelude::*;

use super::actions;
use super::backend_panel::BackendPanel;
use super::cost_panel::CostPanel;
use super::criterion_card::CriterionCard;
use super::fleur_panel::FleurPanel;
use super::gamma_panel::GammaPanel;
use super::gveval_panel::GvevalPanel;
use super::image_panel::ImagePanel;
use super::inputs_panel::InputsPanel;
use super::maev_panel::MaevPanel;
use super::overall_score::OverallScore;
use super::run_bar::RunBar;
use super::state::AppState;
use super::theme_toggle::ThemeToggle;
use crate::criteria::Criterion;
use crate::metrics::METRICS;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::restore();
    provide_context(state);
    actions::persist_settings(state);

    actions::refresh_cache_count(state);
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
    let on_metric = move |ev| {
        state.metric.set(event_target_value(&ev));
        state.form_problems.set(Vec::new());
        // Only HarmonicEval's REG task draws the box into what is sent.
        actions::refresh_encoded_image(state);
    };

    view! {
        <header class="topbar">
            <h1>"harmonic-judge"</h1>
            <p class="tagline">"Score what a vision-language model wrote about an image."</p>
            <ThemeToggle/>
        </header>
        <main class="layout">
            <section class="column inputs" aria-label="What to judge">
                <div class="field">
                    <label for="metric-select">"Metric"</label>
                    <select id="metric-select" data-testid="metric-select" on:change=on_metric prop:value=move || state.metric.get()>
                        {METRICS.iter().map(|m| view! { <option value=m.id>{m.name}</option> }).collect_view()}
                    </select>
                </div>
                <ImagePanel/>
                <InputsPanel/>
                <BackendPanel/>
                <RunBar/>
                <CostPanel/>
            </section>
            <section class="column results" aria-label="Results">
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
            </section>
        </main>
    }
}
