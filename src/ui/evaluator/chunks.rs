//! The evaluator's on-demand chunks: the code behind an action a first visit may never take
//! (judging, Explain, export, the connection check, opening a file or an example, a share
//! link). Each public function here is what a button calls; it fetches its chunk once (at once
//! when already there) and then runs the action, or says in words that the chunk could not be
//! fetched. The `#[wasm_split]` entries are cut out of the first-visit wasm by
//! `scripts/split/wasm-bindgen` at build time; views in chunks go through
//! [`crate::ui::lazy::chunk`].

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::criteria::Criterion;
use crate::ui::lazy::ChunkMissing;
use crate::ui::open_result::OpenedView;
use crate::ui::state::AppState;

/// The sentence for an action whose code could not be fetched.
fn missing(what: &str) -> String {
    format!("The code for {what} could not be loaded from this site. Check the connection and try again.")
}

#[leptos::wasm_split::wasm_split(run, wasm_split_path = ::leptos::wasm_split, fallible)]
fn evaluate_loaded(state: AppState) -> Result<(), ChunkMissing> {
    crate::ui::actions::evaluate_now(state);
    Ok(())
}

/// Evaluate.
pub fn evaluate(state: AppState) {
    let load = crate::ui::lazy::loading(evaluate_loaded(state));
    spawn_local(async move {
        if load.await.is_err() {
            state.form_problems.set(vec![missing("judging")]);
        }
    });
}

#[leptos::wasm_split::wasm_split(run, wasm_split_path = ::leptos::wasm_split, fallible)]
fn explain_loaded(state: AppState, criterion: Option<Criterion>) -> Result<(), ChunkMissing> {
    match criterion {
        Some(c) => crate::ui::he_run::explain(state, c),
        None => crate::ui::fleur_run::explain(state),
    }
    Ok(())
}

/// Explain one HarmonicEval criterion (`Some`) or FLEUR's score (`None`).
pub fn explain(state: AppState, criterion: Option<Criterion>) {
    let load = crate::ui::lazy::loading(explain_loaded(state, criterion));
    spawn_local(async move {
        if load.await.is_err() {
            state.form_problems.set(vec![missing("Explain")]);
        }
    });
}

#[leptos::wasm_split::wasm_split(export, wasm_split_path = ::leptos::wasm_split, fallible)]
fn export_loaded(state: AppState) -> Result<(), ChunkMissing> {
    crate::ui::actions::export_now(state);
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

#[leptos::wasm_split::wasm_split(connection, wasm_split_path = ::leptos::wasm_split, fallible)]
fn check_loaded(state: AppState) -> Result<(), ChunkMissing> {
    crate::ui::connection::check_connection(state);
    Ok(())
}

/// Check connection.
pub fn check_connection(state: AppState) {
    let load = crate::ui::lazy::loading(check_loaded(state));
    spawn_local(async move {
        if load.await.is_err() {
            state.form_problems.set(vec![missing("the connection check")]);
        }
    });
}

#[leptos::wasm_split::wasm_split(open, wasm_split_path = ::leptos::wasm_split, fallible)]
fn open_loaded(state: AppState, view: OpenedView, text: String, from: String) -> Result<Result<(), String>, ChunkMissing> {
    Ok(crate::result_file::read(&text).and_then(|o| crate::ui::open_result::show(state, view, o, &from)))
}

/// Shows the result file `text` came from (`from`: its name, "a share link", an example).
pub async fn open_text(state: AppState, view: OpenedView, text: String, from: String) -> Result<(), String> {
    crate::ui::lazy::loading(open_loaded(state, view, text, from)).await.unwrap_or_else(|ChunkMissing| Err(missing("opening a result")))
}

#[leptos::wasm_split::wasm_split(share, wasm_split_path = ::leptos::wasm_split, fallible)]
fn share_loaded(state: AppState, link: RwSignal<Option<Result<String, String>>>) -> Result<(), ChunkMissing> {
    crate::ui::share::make_link(state, link);
    Ok(())
}

/// Copy link.
pub fn share(state: AppState, link: RwSignal<Option<Result<String, String>>>) {
    let load = crate::ui::lazy::loading(share_loaded(state, link));
    spawn_local(async move {
        if load.await.is_err() {
            link.set(Some(Err(missing("the share link"))));
        }
    });
}
