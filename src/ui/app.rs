//! Page layout: inputs on the left, results on the right (stacked on a phone).

use leptos::prelude::*;

use super::actions;
use super::backend_panel::BackendPanel;
use super::batch_panel::BatchPanel;
use super::batch_run;
use super::batch_state::BatchState;
use super::cost_panel::CostPanel;
use super::gamma_panel::GammaPanel;
use super::image_panel::ImagePanel;
use super::inputs_panel::InputsPanel;
use super::meta_panel::MetaPanel;
use super::results_table::ResultsTable;
use super::run_bar::RunBar;
use super::single_results::SingleResults;
use super::state::AppState;
use super::theme_toggle::ThemeToggle;
use crate::metrics::METRICS;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::restore();
    provide_context(state);
    actions::persist_settings(state);

    actions::refresh_cache_count(state);
    let batch = BatchState::new();
    provide_context(batch);
    batch_run::check_resumable(batch);
    // An interrupted batch run opens the batch view with its Resume offer.
    Effect::new(move |_| {
        if batch.resumable.with(Option::is_some) {
            batch.active.set(true);
        }
    });
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
        <nav class="tabs" aria-label="Mode">
            <button data-testid="tab-single" class:active=move || !batch.active.get() on:click=move |_| batch.active.set(false)>"One item"</button>
            <button data-testid="tab-batch" class:active=move || batch.active.get() on:click=move |_| batch.active.set(true)>"Batch & meta-evaluation"</button>
        </nav>
        <main class="layout">
            <section class="column inputs" aria-label="What to judge">
                <div class="field">
                    <label for="metric-select">"Metric"</label>
                    <select id="metric-select" data-testid="metric-select" on:change=on_metric prop:value=move || state.metric.get()>
                        {METRICS.iter().map(|m| view! { <option value=m.id>{m.name}</option> }).collect_view()}
                    </select>
                </div>
                <Show when=move || batch.active.get() fallback=|| view! { <ImagePanel/> <InputsPanel/> }>
                    <BatchPanel/>
                </Show>
                <BackendPanel/>
                <Show when=move || !batch.active.get()>
                    <RunBar/>
                    <CostPanel/>
                </Show>
            </section>
            <section class="column results" aria-label="Results">
                <Show when=move || batch.active.get() fallback=|| view! { <SingleResults/> }>
                    <Show when=move || state.is_harmonic()>
                        <GammaPanel/>
                    </Show>
                    <MetaPanel/>
                    <ResultsTable/>
                </Show>
            </section>
        </main>
    }
}
