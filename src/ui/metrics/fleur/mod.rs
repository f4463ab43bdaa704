//! FLEUR / RefFLEUR: the result panel and the runner.

use leptos::prelude::*;

use crate::metrics::fleur;
use crate::metrics::Metric;
use crate::providers::{ImageDetail, Protocol};
use crate::ui::state::AppState;

pub(crate) mod opened;
pub(crate) mod panel;
pub(crate) mod run;
pub(crate) mod state;

/// FLEUR's and RefFLEUR's page part (`MetricUi`), which the UI registry reaches as the room's
/// `Ui`: it reads from the chosen metric whether the reference captions apply.
pub(crate) struct Ui;

/// Whether the chosen metric is RefFLEUR (tracked).
fn with_references(state: AppState) -> bool {
    state.settings.metric.get() == Metric::RefFleur
}

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
        state.results.fleur.result.with(|s| s.is_active()) || state.comparison_running()
    }

    fn has_run(state: AppState) -> bool {
        state.results.fleur.result.with(|s| s.id() != "idle")
            || state.candidates.plain_shown(state.settings.metric.get())
    }

    fn billed_model(state: AppState) -> Option<String> {
        state
            .results
            .fleur
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
        let input = fleur::Input {
            caption: text.to_string(),
            references: with_references(state)
                .then(|| fleur::references_from_lines(&state.inputs.references.get())),
            image: None,
        };
        fleur::estimated_tokens(&input, image_size, protocol, detail)
    }

    fn text_noun(_state: AppState) -> &'static str {
        "caption"
    }

    fn wants_references(state: AppState) -> bool {
        with_references(state)
    }

    fn panel() -> AnyView {
        let metric = expect_context::<AppState>().settings.metric.get_untracked();
        crate::ui::lazy::chunk("FLEUR results", move || panel_view(metric)).into_any()
    }
}

/// The results panel (one text's, or the candidates' comparison), in its own chunk: fetched
/// when this metric is first chosen.
#[leptos::wasm_split::wasm_split(fleur, wasm_split_path = ::leptos::wasm_split, fallible)]
fn panel_view(metric: Metric) -> crate::ui::lazy::ChunkView {
    let state = expect_context::<AppState>();
    Ok(view! {
        <Show when=move || state.candidates.plain_shown(metric) fallback=|| view! { <crate::ui::metrics::fleur::panel::FleurPanel/> }>
            <crate::ui::run::candidates_plain_panel::PlainCandidatesPanel/>
        </Show>
    }
    .into_any())
}
