//! FLEUR / RefFLEUR: the result panel and the runner.

use leptos::prelude::*;

use crate::metrics::fleur;
use crate::providers::{ImageDetail, Protocol};
use crate::ui::state::AppState;

pub(crate) mod panel;
pub(crate) mod run;

/// FLEUR, or RefFLEUR with `references`.
pub(crate) struct FleurUi {
    pub references: bool,
}

impl super::MetricUi for FleurUi {
    fn evaluate(&self, state: AppState) {
        run::evaluate(state)
    }

    fn export(&self, state: AppState) {
        run::export(state)
    }

    fn running(&self, state: AppState) -> bool {
        state.fleur.with(|s| s.is_active())
    }

    fn has_run(&self, state: AppState) -> bool {
        state.fleur.with(|s| s.id() != "idle")
    }

    fn billed_model(&self, state: AppState) -> Option<String> {
        state
            .fleur_run
            .with_value(|r| r.as_ref().map(|r| r.backend.model.clone()))
    }

    fn estimate(
        &self,
        state: AppState,
        image_size: Option<(u32, u32)>,
        protocol: Protocol,
        detail: ImageDetail,
    ) -> (u64, u64) {
        let input = fleur::Input {
            caption: state.text.get(),
            references: self
                .references
                .then(|| fleur::references_from_lines(&state.references.get())),
            image_data_url: None,
        };
        fleur::estimated_tokens(&input, image_size, protocol, detail)
    }

    fn text_noun(&self, _state: AppState) -> &'static str {
        "caption"
    }

    fn asks_question(&self, _state: AppState) -> bool {
        false
    }

    fn wants_references(&self, _state: AppState) -> bool {
        self.references
    }

    fn panel(&self) -> AnyView {
        crate::ui::lazy::chunk("FLEUR results", panel_view).into_any()
    }
}

/// The results panel, in its own chunk: fetched when this metric is first chosen.
#[leptos::wasm_split::wasm_split(fleur, wasm_split_path = ::leptos::wasm_split, fallible)]
fn panel_view() -> crate::ui::lazy::ChunkView {
    Ok(view! { <crate::ui::fleur_panel::FleurPanel/> }.into_any())
}
