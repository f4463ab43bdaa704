//! The batch & meta-evaluation lab: a dataset or a results file on the left, the γ slider,
//! correlations and the results table on the right.

use leptos::prelude::*;

use crate::ui::judge::judge_settings::JudgeSettings;
use crate::ui::lab::batch_panel::BatchPanel;
use crate::ui::lab::batch_run;
use crate::ui::lab::batch_state::BatchState;
use crate::ui::lab::compare_panel::ComparePanel;
use crate::ui::lab::meta_panel::MetaPanel;
use crate::ui::lab::results_table::ResultsTable;
use crate::ui::run::runner;
use crate::ui::state::Settings;
use crate::ui::widgets::gamma_panel::GammaPanel;
use crate::ui::widgets::metric_select::MetricSelect;
use crate::ui::widgets::top_bar::{Page, TopBar};

#[component]
pub fn LabApp() -> impl IntoView {
    let state = Settings::restore();
    provide_context(state);
    crate::ui::state::settings::persist_settings(state);
    crate::ui::state::site_follow::follow_site(state);
    runner::refresh_cache_count(state);
    // A failed cache write is said with the other storage refusals (under the run bar; in the
    // lab, in the batch panel); the run keeps its answer.
    crate::web::cache::on_write_error(move |m| state.storage_error.set(Some(m)));
    let batch = BatchState::new();
    provide_context(batch);
    crate::ui::lab::stored_runs::on_load(batch);
    batch_run::release_lock_when_stopped(batch);
    crate::ui::lab::inbox::load(state, batch);

    view! {
        <TopBar page=Page::Lab/>
        <main class="layout">
            <section class="column inputs" aria-label="What to judge">
                // The task first (the dataset, the run, the stored runs); the judge's settings
                // fold under one line that says what they are, as on the evaluator.
                <MetricSelect settings=state page=None/>
                <BatchPanel/>
                <crate::ui::lab::stored_runs::StoredRunsPanel/>
                <JudgeSettings settings=state page=None/>
            </section>
            <section class="column results" aria-label="Results">
                <Show when=move || state.weighs_criteria()>
                    <GammaPanel settings=state curve=None no_plot=true/>
                </Show>
                <MetaPanel/>
                <ResultsTable/>
                <ComparePanel/>
            </section>
        </main>
    }
}
