//! What the evaluator's Evaluate and Export buttons do: each hands the selected metric to its
//! folder's [`crate::ui::metrics::MetricUi`]. The request runner is `runner.rs`, the image
//! handlers `image_actions.rs`; the settings kept across visits are
//! `ui/settings.rs`'s `persist_settings`.

use leptos::prelude::*;

use crate::ui::metrics as metric_ui;
use crate::ui::state::AppState;

/// Starts a run of the selected metric.
pub fn evaluate_now(state: AppState) {
    // One run at a time: the button is disabled while its run is in flight, and a click that
    // slips through (a double click before the page redraws) starts nothing.
    let metric = metric_ui::of(state.settings.metric.get_untracked());
    if untrack(|| metric.running(state)) {
        return;
    }
    // A provider that needs a key gets one before anything is sent (not five 401s after).
    if let Some(m) = crate::ui::run::guidance::missing_key(state) {
        state.settings.form_problems.set(vec![m]);
        return;
    }
    if state.candidates.active() {
        metric.evaluate_candidates(state);
    } else {
        metric.evaluate(state);
    }
}

/// Saves the selected metric's result as JSON. The API key is not part of the document.
pub fn export_now(state: AppState) {
    let metric = metric_ui::of(state.settings.metric.get_untracked());
    if !metric.export_candidates(state) {
        metric.export(state);
    }
}
