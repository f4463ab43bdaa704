//! The one-item evaluator: inputs on the left, results on the right (stacked on a phone).

use leptos::prelude::*;

use crate::ui::evaluator::candidates_inputs::CandidatesInputs;
use crate::ui::evaluator::cost_panel::CostPanel;
use crate::ui::evaluator::empty_state::EmptyState;
use crate::ui::evaluator::examples::ExamplesGallery;
use crate::ui::evaluator::history::HistoryPanel;
use crate::ui::evaluator::image_panel::ImagePanel;
use crate::ui::evaluator::inputs_panel::InputsPanel;
use crate::ui::evaluator::open_result::{OpenResult, OpenedPanel};
use crate::ui::evaluator::present::PresentButton;
use crate::ui::evaluator::results_guidance::SharedFailure;
use crate::ui::evaluator::run_bar::RunBar;
use crate::ui::evaluator::share::SharePanel;
use crate::ui::evaluator::single_results::SingleResults;
use crate::ui::judge::judge_settings::JudgeSettings;
use crate::ui::run::guidance::KeyNote;
use crate::ui::run::runner;
use crate::ui::state::AppState;
use crate::ui::widgets::metric_select::MetricSelect;
use crate::ui::widgets::top_bar::{Page, TopBar};

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::restore();
    provide_context(state);
    let opened = crate::ui::evaluator::open_result::OpenedView(RwSignal::new(None));
    provide_context(opened);
    crate::ui::evaluator::share::open_from_fragment(state, opened);
    crate::ui::state::settings::persist_settings(state.settings);
    crate::ui::state::site_follow::follow_site(state.settings);
    state.metric_settings.persist(state.settings.storage_error);
    // The answer cache's count opens IndexedDB: after the first screen (widgets/later.rs).
    crate::ui::widgets::later::mounted(move || runner::refresh_cache_count(state.settings));
    // A failed cache write is said with the other storage refusals (under the run bar; in the
    // lab, in the batch panel); the run keeps its answer.
    crate::web::cache::on_write_error(move |m| state.settings.storage_error.set(Some(m)));
    crate::ui::evaluator::results_guidance::follow_results(state);
    let present = RwSignal::new(false);
    // The file opener and the history (its storage read with it), below the result: built in
    // the task after the first screen's (widgets/later.rs: issue 43, no long start-up task).
    let below = NodeRef::<leptos::html::Div>::new();
    crate::ui::widgets::later::later(below, || view! { <OpenResult/> <HistoryPanel/> });

    view! {
        <TopBar page=Page::Single/>
        <main class="layout" class:present=move || present.get()>
            // First in the page's order, so a phone shows it above the inputs; on a wide
            // screen the grid puts it at the top of the results column (style/main.css).
            <ExamplesGallery/>
            <section class="column inputs" aria-label="What to judge">
                // The task first: what to judge and Evaluate fit the first screen; the judge's
                // settings, set once, fold under one line that says what they are.
                <MetricSelect settings=state.settings page=Some(state)/>
                <ImagePanel/>
                <InputsPanel/>
                <CandidatesInputs/>
                <RunBar/>
                <JudgeSettings settings=state.settings page=Some(state)/>
                <KeyNote/>
                <CostPanel/>
            </section>
            <section class="column results" aria-labelledby="results-heading">
                // Headings step by one (h1, h2, then the cards' h3); screen readers list it.
                <h2 id="results-heading" class="visually-hidden">"Results"</h2>
                <EmptyState/>
                <OpenedPanel/>
                <SharedFailure/>
                <SingleResults/>
                <SharePanel/>
                <PresentButton present=present/>
                // Below the result, so that an opened result's score sits beside what it judged.
                <div class="later-part" node_ref=below></div>
            </section>
        </main>
    }
}
