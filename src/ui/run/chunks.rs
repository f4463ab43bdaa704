//! The evaluator's on-demand chunks: the code behind an action a first visit may never take
//! (judging, Explain, export; the connection check's is in `ui/backend/connection_panel.rs`,
//! opening a result's in `open_result.rs`, making a share link's in `share.rs`). Each public
//! function here is what a button calls; it fetches its chunk once (at once when already
//! there) and then runs the action, or says in words that the chunk could not be fetched. The
//! `#[wasm_split]` entries are cut out of the first-visit wasm by `scripts/split/wasm-bindgen`
//! at build time; views in chunks go through [`crate::ui::lazy::chunk`].

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::scoring::criteria::Criterion;
use crate::ui::lazy::{missing, ChunkMissing};
use crate::ui::state::AppState;


#[leptos::wasm_split::wasm_split(run, wasm_split_path = ::leptos::wasm_split, fallible)]
fn evaluate_loaded(state: AppState) -> Result<(), ChunkMissing> {
    crate::ui::run::actions::evaluate_now(state);
    Ok(())
}

/// Evaluate.
pub fn evaluate(state: AppState) {
    if !crate::ui::site::may_send() {
        state.settings.form_problems.set(vec![crate::ui::site::EMBED_SENDS_NOTHING.into()]);
        return;
    }
    crate::ui::lazy::act(state.settings.form_problems, "judging", evaluate_loaded(state));
}

#[leptos::wasm_split::wasm_split(run, wasm_split_path = ::leptos::wasm_split, fallible)]
fn explain_loaded(state: AppState, criterion: Option<Criterion>) -> Result<(), ChunkMissing> {
    crate::ui::metrics::explain(state, criterion);
    Ok(())
}

/// Explain one HarmonicEval criterion (`Some`) or FLEUR's score (`None`).
pub fn explain(state: AppState, criterion: Option<Criterion>) {
    if !crate::ui::site::may_send() {
        state.settings.form_problems.set(vec![crate::ui::site::EMBED_SENDS_NOTHING.into()]);
        return;
    }
    crate::ui::lazy::act(state.settings.form_problems, "Explain", explain_loaded(state, criterion));
}

#[leptos::wasm_split::wasm_split(export, wasm_split_path = ::leptos::wasm_split, fallible)]
fn export_loaded(state: AppState) -> Result<(), ChunkMissing> {
    crate::ui::run::actions::export_now(state);
    Ok(())
}

/// Export JSON.
pub fn export(state: AppState) {
    let load = crate::ui::lazy::loading(export_loaded(state));
    spawn_local(async move {
        if load.await.is_err() {
            state.export_error.set(Some(missing("the export")));
        }
    });
}

