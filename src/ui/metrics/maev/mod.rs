//! MAEV: its extra inputs, the result panel and the runner.

use leptos::prelude::*;

use crate::metrics::maev;
use crate::metrics::Metric;
use crate::providers::{ImageDetail, Protocol};
use crate::ui::state::AppState;

pub(crate) mod inputs;
pub(crate) mod opened;
pub(crate) mod panel;
pub(crate) mod run;
pub(crate) mod settings;
pub(crate) mod state;

/// Its page part (`MetricUi`), which the UI registry reaches as the room's `Ui`.
pub(crate) struct Ui;

impl super::MetricUi for Ui {
    fn evaluate(state: AppState) {
        run::evaluate(state)
    }

    fn evaluate_candidates(state: AppState) {
        crate::ui::run::candidates_plain_run::evaluate(state, run::input(state).into())
    }

    fn export(state: AppState) {
        run::export(state)
    }

    fn result_json(state: AppState) -> Option<String> {
        run::result_json(state)
    }

    fn running(state: AppState) -> bool {
        state
            .results
            .maev
            .results
            .with(|t| t.iter().any(|(_, p)| p.is_active()))
            || state.comparison_running()
    }

    fn has_run(state: AppState) -> bool {
        state.results.maev.results.with(|t| !t.is_empty())
            || state.candidates.plain_shown(Metric::Maev)
    }

    fn billed_model(state: AppState) -> Option<String> {
        state
            .results
            .maev
            .run
            .with_value(|r| r.as_ref().map(|r| r.backend.model.clone()))
    }

    /// Text only: the image, the protocol and the detail do not count.
    fn estimate(
        state: AppState,
        text: &str,
        _image_size: Option<(u32, u32)>,
        _protocol: Protocol,
        _detail: ImageDetail,
    ) -> (u64, u64) {
        // The input is read untracked; these are what it depends on.
        state.inputs.question.track();
        state.results.maev.caption.track();
        state.results.maev.reference.track();
        state.metric_settings.maev.trials.track();
        state.metric_settings.maev.seed.track();
        state.metric_settings.maev.pool.track();
        let mut input = run::input(state);
        input.answer = text.to_string();
        maev::estimated_tokens(&input)
    }

    fn text_noun(_state: AppState) -> &'static str {
        "answer"
    }

    fn asks_question(_state: AppState) -> bool {
        true
    }

    fn panel() -> AnyView {
        let metric = Metric::Maev;
        crate::ui::lazy::chunk("MAEV results", move || panel_view(metric)).into_any()
    }
}

/// The results panel (one text's, or the candidates' comparison), in its own chunk: fetched
/// when this metric is first chosen.
#[leptos::wasm_split::wasm_split(maev, wasm_split_path = ::leptos::wasm_split, fallible)]
fn panel_view(metric: Metric) -> crate::ui::lazy::ChunkView {
    let state = expect_context::<AppState>();
    Ok(view! {
        <Show when=move || state.candidates.plain_shown(metric) fallback=|| view! { <crate::ui::metrics::maev::panel::MaevPanel/> }>
            <crate::ui::run::candidates_plain_panel::PlainCandidatesPanel/>
        </Show>
    }
    .into_any())
}

/// MAEV's own inputs, in MAEV's chunk.
#[leptos::wasm_split::wasm_split(maev, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(crate) fn inputs_view() -> crate::ui::lazy::ChunkView {
    use inputs::MaevInputs;
    Ok(view! { <MaevInputs/> }.into_any())
}
