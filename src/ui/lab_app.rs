//! The batch & meta-evaluation lab: a dataset or a results file on the left, the γ slider,
//! correlations and the results table on the right.

use leptos::prelude::*;

use super::actions;
use super::backend_panel::BackendPanel;
use super::batch_panel::BatchPanel;
use super::batch_run;
use super::batch_state::BatchState;
use super::fidelity_panel::FidelityPanel;
use super::compare_panel::ComparePanel;
use super::gamma_panel::GammaPanel;
use super::meta_panel::MetaPanel;
use super::metric_select::MetricSelect;
use super::results_table::ResultsTable;
use super::state::AppState;
use super::top_bar::{Page, TopBar};

#[component]
pub fn LabApp() -> impl IntoView {
    let state = AppState::restore();
    provide_context(state);
    actions::persist_settings(state);
    actions::refresh_cache_count(state);
    let batch = BatchState::new();
    provide_context(batch);
    batch_run::check_resumable(batch);
    batch_run::release_lock_when_stopped(batch);

    view! {
        <TopBar page=Page::Lab/>
        <main class="layout">
            <section class="column inputs" aria-label="What to judge">
                <MetricSelect/>
                <FidelityPanel/>
                <BatchPanel/>
                <BackendPanel/>
            </section>
            <section class="column results" aria-label="Results">
                <Show when=move || state.is_harmonic()>
                    <GammaPanel no_plot=true/>
                </Show>
                <MetaPanel/>
                <ResultsTable/>
                <ComparePanel/>
            </section>
        </main>
    }
}
