//! FLEUR / RefFLEUR: the result panel and the runner.

use leptos::prelude::*;

use crate::metrics::fleur;
use crate::providers::{ImageDetail, Protocol};
use crate::candidates::plain::Base;
use crate::metrics::Metric;
use crate::ui::state::AppState;

pub(crate) mod opened;
pub(crate) mod panel;
pub(crate) mod run;
pub(crate) mod state;

/// FLEUR, or RefFLEUR with `references`.
pub(crate) struct FleurUi {
    pub references: bool,
}

impl super::MetricUi for FleurUi {
    fn evaluate(&self, state: AppState) {
        run::evaluate(state)
    }

    fn evaluate_candidates(&self, state: AppState) {
        crate::ui::run::candidates_plain_run::evaluate(state, Base::Fleur(run::input(state)))
    }

    fn export_candidates(&self, state: AppState) -> bool {
        let metric = state.settings.metric.get_untracked();
        let has = untrack(|| state.candidates.plain_shown(metric));
        if has {
            crate::ui::run::candidates_plain_run::export(state);
        }
        has
    }

    fn export(&self, state: AppState) {
        run::export(state)
    }

    fn result_json(&self, state: AppState) -> Option<String> {
        run::result_json(state)
    }

    fn running(&self, state: AppState) -> bool {
        state.fleur.result.with(|s| s.is_active()) || state.comparison_running()
    }

    fn has_run(&self, state: AppState) -> bool {
        state.fleur.result.with(|s| s.id() != "idle")
            || state.candidates.plain_shown(state.settings.metric.get())
    }

    fn billed_model(&self, state: AppState) -> Option<String> {
        state
            .fleur.run
            .with_value(|r| r.as_ref().map(|r| r.backend.model.clone()))
    }

    fn estimate(
        &self,
        state: AppState,
        text: &str,
        image_size: Option<(u32, u32)>,
        protocol: Protocol,
        detail: ImageDetail,
    ) -> (u64, u64) {
        let input = fleur::Input {
            caption: text.to_string(),
            references: self
                .references
                .then(|| fleur::references_from_lines(&state.inputs.references.get())),
            image: None,
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
        let metric = if self.references { Metric::RefFleur } else { Metric::Fleur };
        crate::ui::widgets::lazy::chunk("FLEUR results", move || panel_view(metric)).into_any()
    }
}

/// The results panel (one text's, or the candidates' comparison), in its own chunk: fetched
/// when this metric is first chosen.
#[leptos::wasm_split::wasm_split(fleur, wasm_split_path = ::leptos::wasm_split, fallible)]
fn panel_view(metric: Metric) -> crate::ui::widgets::lazy::ChunkView {
    let state = expect_context::<AppState>();
    Ok(view! {
        <Show when=move || state.candidates.plain_shown(metric) fallback=|| view! { <crate::ui::metrics::fleur::panel::FleurPanel/> }>
            <crate::ui::run::candidates_plain_panel::PlainCandidatesPanel/>
        </Show>
    }
    .into_any())
}
