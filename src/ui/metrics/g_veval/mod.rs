//! G-VEval: the result panel and the runner.

use leptos::prelude::*;

use crate::metrics::g_veval;
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
        state.results.g_veval.result.with(|s| s.is_active()) || state.comparison_running()
    }

    fn has_run(state: AppState) -> bool {
        state.results.g_veval.result.with(|s| s.id() != "idle")
            || state.candidates.plain_shown(Metric::GVeval)
    }

    fn billed_model(state: AppState) -> Option<String> {
        state
            .results
            .g_veval
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
        // The input is read untracked; these are what it depends on.
        state.inputs.image_view.track();
        state.metric_settings.gveval.mode.track();
        state.results.g_veval.accr.track();
        state.inputs.references.track();
        let mut input = run::form(state);
        input.caption = text.to_string();
        g_veval::estimated_tokens(&input, image_size, protocol, detail)
    }

    fn text_noun(_state: AppState) -> &'static str {
        "caption"
    }

    fn wants_references(state: AppState) -> bool {
        state.metric_settings.gveval.mode.get().needs_references()
    }

    fn panel() -> AnyView {
        let metric = Metric::GVeval;
        crate::ui::lazy::chunk("G-VEval results", move || panel_view(metric)).into_any()
    }
}

/// The results panel (one text's, or the candidates' comparison), in its own chunk: fetched
/// when this metric is first chosen.
#[leptos::wasm_split::wasm_split(gveval, wasm_split_path = ::leptos::wasm_split, fallible)]
fn panel_view(metric: Metric) -> crate::ui::lazy::ChunkView {
    let state = expect_context::<AppState>();
    Ok(view! {
        <Show when=move || state.candidates.plain_shown(metric) fallback=|| view! { <crate::ui::metrics::g_veval::panel::GvevalPanel/> }>
            <crate::ui::run::candidates_plain_panel::PlainCandidatesPanel/>
        </Show>
    }
    .into_any())
}
