//! The one-item evaluator: inputs on the left, results on the right (stacked on a phone).

use leptos::prelude::*;

use super::actions;
use super::backend_panel::BackendPanel;
use super::cost_panel::CostPanel;
use super::fidelity_panel::FidelityPanel;
use super::image_panel::ImagePanel;
use super::inputs_panel::InputsPanel;
use super::metric_select::MetricSelect;
use super::run_bar::RunBar;
use super::single_results::SingleResults;
use super::state::AppState;
use super::top_bar::{Page, TopBar};

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::restore();
    provide_context(state);
    actions::persist_settings(state);
    actions::refresh_cache_count(state);

    view! {
        <TopBar page=Page::Single/>
        <main class="layout">
            <section class="column inputs" aria-label="What to judge">
                <MetricSelect/>
                <FidelityPanel/>
                <ImagePanel/>
                <InputsPanel/>
                <BackendPanel/>
                <RunBar/>
                <CostPanel/>
            </section>
            <section class="column results" aria-labelledby="results-heading">
                // Headings step by one (h1, h2, then the cards' h3); screen readers list it.
                <h2 id="results-heading" class="visually-hidden">"Results"</h2>
                <SingleResults/>
            </section>
        </main>
    }
}
