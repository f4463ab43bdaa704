//! G-VEval: the result panel and the runner.

use leptos::prelude::*;

use crate::metrics::g_veval;
use crate::providers::{ImageDetail, Protocol};
use crate::ui::state::AppState;

pub(crate) mod panel;
pub(crate) mod run;

pub(crate) struct GvevalUi;

impl super::MetricUi for GvevalUi {
    fn evaluate(&self, state: AppState) {
        run::evaluate(state)
    }

    fn export(&self, state: AppState) {
        run::export(state)
    }

    fn running(&self, state: AppState) -> bool {
        state.gveval.with(|s| s.is_active())
    }

    fn has_run(&self, state: AppState) -> bool {
        state.gveval.with(|s| s.id() != "idle")
    }

    fn billed_model(&self, state: AppState) -> Option<String> {
        state
            .gveval_run
            .with_value(|r| r.as_ref().map(|r| r.backend.model.clone()))
    }

    fn estimate(
        &self,
        state: AppState,
        image_size: Option<(u32, u32)>,
        protocol: Protocol,
        detail: ImageDetail,
    ) -> (u64, u64) {
        // The input is read untracked; these are what it depends on.
        state.image_view.track();
        state.gv_mode.track();
        state.gv_accr.track();
        state.text.track();
        state.references.track();
        let input = run::input(state);
        g_veval::estimated_tokens(&input, image_size, protocol, detail)
    }

    fn text_noun(&self, _state: AppState) -> &'static str {
        "caption"
    }

    fn asks_question(&self, _state: AppState) -> bool {
        false
    }

    fn wants_references(&self, state: AppState) -> bool {
        state.gv_mode.get().needs_references()
    }

    fn panel(&self) -> AnyView {
        crate::ui::lazy::chunk("G-VEval results", panel_view).into_any()
    }
}

/// The results panel, in its own chunk: fetched when this metric is first chosen.
#[leptos::wasm_split::wasm_split(gveval, wasm_split_path = ::leptos::wasm_split, fallible)]
fn panel_view() -> crate::ui::lazy::ChunkView {
    Ok(view! { <crate::ui::gveval_panel::GvevalPanel/> }.into_any())
}
