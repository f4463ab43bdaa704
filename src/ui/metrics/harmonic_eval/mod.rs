//! HarmonicEval: the per-criterion cards, the overall score, the γ panel and its runner.

use leptos::prelude::*;

use crate::metrics::harmonic_eval::{estimated_tokens, Input};
use crate::providers::{ImageDetail, Protocol};
use crate::scoring::criteria::Criterion;
use crate::ui::state::AppState;

pub(crate) mod by_hand;
pub(crate) mod candidates;
pub(crate) mod candidates_panel;
pub(crate) mod candidates_plot;
pub(crate) mod criteria_subset;
pub(crate) mod criterion_card;
pub(crate) mod opened;
pub(crate) mod overall_score;
pub(crate) mod run;
pub(crate) mod shared_failure;
pub(crate) mod state;
pub(crate) mod weights_chart;

/// Its page part (`MetricUi`), which the UI registry reaches as the room's `Ui`.
pub(crate) struct Ui;

impl super::MetricUi for Ui {
    fn evaluate(state: AppState) {
        run::evaluate(state)
    }

    fn evaluate_candidates(state: AppState) {
        candidates::evaluate(state)
    }

    fn export_candidates(state: AppState) -> bool {
        let has = state.results.harmonic_eval.compared.has_run();
        if has {
            candidates::export(state);
        }
        has
    }

    fn export(state: AppState) {
        run::export(state)
    }

    fn result_json(state: AppState) -> Option<String> {
        run::harmonic_json(state, None)
    }

    fn running(state: AppState) -> bool {
        state
            .results
            .harmonic_eval
            .criteria
            .iter()
            .any(|c| c.with(|s| s.is_active()))
            || state.comparison_running()
    }

    /// With one request at a time (the in-page judge's repeatable default), the criteria are
    /// asked in their order and each card stays running until its answer: the first running
    /// card is the one the judge is on. Not told for a comparison of candidates.
    fn asking(state: AppState) -> Option<&'static str> {
        if state.settings.provider.effective_concurrency() != 1 || state.comparison_running() {
            return None;
        }
        Criterion::ALL
            .into_iter()
            .zip(state.results.harmonic_eval.criteria)
            .find(|(_, s)| s.with(|p| matches!(p, crate::ui::progress::Progress::Running)))
            .map(|(c, _)| c.id())
    }

    fn has_run(state: AppState) -> bool {
        state.results.harmonic_eval.compared.has_run()
            || state
                .results
                .harmonic_eval
                .criteria
                .iter()
                .any(|c| c.with(|s| s.id() != "idle"))
    }

    fn billed_model(state: AppState) -> Option<String> {
        state
            .results
            .harmonic_eval
            .run
            .with_value(|r| r.as_ref().map(|r| r.backend.model.clone()))
    }

    fn estimate(
        state: AppState,
        text: &str,
        image_size: Option<(u32, u32)>,
        protocol: Protocol,
        detail: ImageDetail,
    ) -> (u64, u64) {
        let input = Input {
            task: state.inputs.task.get(),
            text: text.to_string(),
            question: state.inputs.question.get(),
            image: None,
            fidelity: state.settings.fidelity.get(),
            criteria: state.settings.chosen_criteria.get(),
        };
        estimated_tokens(&input, image_size, protocol, detail)
    }

    fn text_noun(state: AppState) -> &'static str {
        state.inputs.task.get().text_noun()
    }

    fn asks_question(state: AppState) -> bool {
        state.inputs.task.get().needs_question()
    }

    fn panel() -> AnyView {
        use crate::ui::metrics::harmonic_eval::overall_score::OverallScore;
        use crate::ui::widgets::gamma_panel::GammaPanel;
        let state = expect_context::<AppState>();
        view! {
            <Show when=move || state.results.harmonic_eval.compared.has_run()>
                <GammaPanel settings=state.settings curve=None no_plot=true/>
                {hand_slot(state)}
                {crate::ui::lazy::chunk("comparison of candidates", candidates_view)}
            </Show>
            <Show when=move || !state.results.harmonic_eval.compared.has_run()>
                <OverallScore/>
                {hand_slot(state)}
                <GammaPanel settings=state.settings curve=Some(state.results.harmonic_eval.curve())/>
                // Fetched once a criterion has a score to weigh, not on the first visit.
                <Show when=move || state.results.harmonic_eval.criteria.iter().any(|c| c.with(|c| c.result().is_some()))>
                    {crate::ui::lazy::chunk("chart of the weights", weights_view)}
                </Show>
                {cards()}
            </Show>
        }
        .into_any()
    }
}

/// The five criterion cards, below the first screen: built in a task after the first screen's
/// (`widgets/later.rs`), so that no start-up task is long (issue 43).
fn cards() -> impl IntoView {
    use crate::ui::metrics::harmonic_eval::criterion_card::CriterionCard;
    let cards = NodeRef::<leptos::html::Div>::new();
    crate::ui::widgets::later::later(cards, || {
        Criterion::ALL
            .into_iter()
            .map(|c| view! { <CriterionCard criterion=c/> })
            .collect_view()
    });
    view! { <div class="cards" node_ref=cards></div> }
}

/// Whether "Change these ratings" is offered: a model's result with a score, not in flight.
fn can_change(state: AppState) -> bool {
    let he = state.results.harmonic_eval;
    !he.by_hand()
        && he.criteria.iter().any(|c| c.with(|c| c.result().is_some()))
        && !he.criteria.iter().any(|c| c.with(|c| c.is_active()))
}

/// The bars of a result set by hand, in their chunk: one function for both the one text and
/// the comparison, so the first visit holds one copy of it.
fn hand_slot(state: AppState) -> impl IntoView {
    view! {
        <Show when=move || state.results.harmonic_eval.by_hand()>
            {crate::ui::lazy::chunk("ratings set by hand", by_hand::hand_view)}
        </Show>
    }
}

/// Whether "Change these ratings" is offered on a comparison: every candidate's requests done.
fn can_change_compared(state: AppState) -> bool {
    let c = state.results.harmonic_eval.compared;
    !state.results.harmonic_eval.by_hand() && c.has_run() && !c.running()
}

/// The comparison of candidates, in its own chunk: most visits judge one text.
#[leptos::wasm_split::wasm_split(candidates, wasm_split_path = ::leptos::wasm_split, fallible)]
fn candidates_view() -> crate::ui::lazy::ChunkView {
    use candidates_panel::CandidatesPanel;
    let state = expect_context::<AppState>();
    Ok(view! {
        <CandidatesPanel/>
        <button type="button" class="hand-change" data-testid="hand-change-button"
            class:hidden=move || !can_change_compared(state)
            on:click=move |_| by_hand::start(state, false)>"Change these ratings"</button>
    }
    .into_any())
}

/// The weights against γ, in their own chunk, and the button that turns the result shown into
/// ratings set by hand.
#[leptos::wasm_split::wasm_split(weights, wasm_split_path = ::leptos::wasm_split, fallible)]
fn weights_view() -> crate::ui::lazy::ChunkView {
    // "Change these ratings" comes with the chart: both need a result with a score.
    let state = expect_context::<AppState>();
    Ok(view! {
        <crate::ui::metrics::harmonic_eval::weights_chart::WeightsChart/>
        <button type="button" class="hand-change" data-testid="hand-change-button"
            class:hidden=move || !can_change(state)
            on:click=move |_| by_hand::start(state, false)>"Change these ratings"</button>
    }
    .into_any())
}
