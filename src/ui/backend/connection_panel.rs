//! The "Check connection" button and what it found.

use leptos::prelude::*;

use crate::ui::lazy::ChunkMissing;
use crate::ui::state::{ConnectionState, Settings};

#[component]
pub fn ConnectionPanel(settings: Settings) -> impl IntoView {
    let state = settings;
    let checking = move || {
        state
            .provider
            .connection
            .with(|c| matches!(c, ConnectionState::Checking))
    };
    let status = move || {
        state.provider.connection.with(|c| match c {
            ConnectionState::Idle => "idle",
            ConnectionState::Checking => "checking",
            ConnectionState::Done { ok: true, .. } => "ok",
            ConnectionState::Done { ok: false, .. } => "problem",
        })
    };
    let lines = move || {
        state.provider.connection.with(|c| match c {
            ConnectionState::Done { lines, .. } => lines.clone(),
            ConnectionState::Checking => vec!["Checking…".to_string()],
            ConnectionState::Idle => Vec::new(),
        })
    };
    view! {
        <div class="connection">
            <button
                data-testid="check-connection-button"
                on:click=move |_| check_connection(state)
                disabled=checking
            >
                "Check connection"
            </button>
            <small class="hint">"Lists the models and sends one tiny test request (about 100 tokens)."</small>
            <ul class="connection-report" data-testid="connection-report" data-status=status aria-live="polite">
                {move || lines().into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
            </ul>
        </div>
    }
}

// The check's code is a chunk (`connection`), fetched on the first click.
#[leptos::wasm_split::wasm_split(connection, wasm_split_path = ::leptos::wasm_split, fallible)]
fn check_loaded(state: Settings) -> Result<(), ChunkMissing> {
    crate::ui::backend::connection::check_connection(state);
    Ok(())
}

/// Checks the connection, once its chunk is here (a sentence when it cannot be fetched).
pub fn check_connection(state: Settings) {
    crate::ui::lazy::act(
        state.form_problems,
        "the connection check",
        crate::ui::lazy::CHUNK_WAIT_MS,
        check_loaded(state),
    );
}
