//! MAEV: its extra inputs, the result panel and the runner.

use leptos::prelude::*;

use crate::metrics::maev;
use crate::providers::{ImageDetail, Protocol};
use crate::ui::state::AppState;

pub(crate) mod inputs;
pub(crate) mod panel;
pub(crate) mod run;

pub(crate) struct MaevUi;

impl super::MetricUi for MaevUi {
    fn evaluate(&self, state: AppState) {
        run::evaluate(state)
    }

    fn export(&self, state: AppState) {
        run::export(state)
    }

    fn running(&self, state: AppState) -> bool {
        state
            .maev_results
            .with(|t| t.iter().any(|(_, p)| p.is_active()))
    }

    fn has_run(&self, state: AppState) -> bool {
        state.maev_results.with(|t| !t.is_empty())
    }

    fn billed_model(&self, state: AppState) -> Option<String> {
        state
            .maev_run
            .with_value(|r| r.as_ref().map(|r| r.backend.model.clone()))
    }

    /// Text only: the image, the protocol and the detail do not count.
    fn estimate(
        &self,
        state: AppState,
        _image_size: Option<(u32, u32)>,
        _protocol: Protocol,
        _detail: ImageDetail,
    ) -> (u64, u64) {
        // The input is read untracked; these are what it depends on.
        state.question.track();
        state.maev_caption.track();
        state.maev_reference.track();
        state.text.track();
        state.maev_trials.track();
        state.maev_seed.track();
        state.maev_pool.track();
        maev::estimated_tokens(&run::input(state))
    }

    fn text_noun(&self, _state: AppState) -> &'static str {
        "answer"
    }

    fn asks_question(&self, _state: AppState) -> bool {
        true
    }

    fn wants_references(&self, _state: AppState) -> bool {
        false
    }

    fn panel(&self) -> AnyView {
        crate::ui::lazy::chunk("MAEV results", panel_view).into_any()
    }
}

/// The results panel, in its own chunk: fetched when this metric is first chosen.
#[leptos::wasm_split::wasm_split(maev, wasm_split_path = ::leptos::wasm_split, fallible)]
fn panel_view() -> crate::ui::lazy::ChunkView {
    Ok(view! { <crate::ui::maev_panel::MaevPanel/> }.into_any())
}
