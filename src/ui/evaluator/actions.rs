//! What the evaluator's Evaluate and Export buttons do: each hands the selected metric to its
//! folder's [`crate::ui::metrics::MetricUi`]; and the settings kept across visits. The request
//! runner is `runner.rs`, the image handlers `image_actions.rs`.

use leptos::prelude::*;

use crate::ui::metrics as metric_ui;
use crate::ui::state::{AppState, Settings};
use crate::web::storage;

/// Starts a run of the selected metric.
pub fn evaluate_now(state: AppState) {
    // One run at a time: the button is disabled while its run is in flight, and a click that
    // slips through (a double click before the page redraws) starts nothing.
    let metric = metric_ui::of(state.settings.metric.get_untracked());
    if untrack(|| metric.running(state)) {
        return;
    }
    // A provider that needs a key gets one before anything is sent (not five 401s after).
    if let Some(m) = crate::ui::evaluator::guidance::missing_key(state) {
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

/// Stores setting `key` whenever `value` changes; a refused write is said at once.
fn persist(state: Settings, key: &'static str, value: impl Fn() -> String + 'static) {
    Effect::new(move |_| {
        if let Err(e) = storage::save_setting(key, &value()) {
            state.storage_error.set(Some(e));
        }
    });
}

/// Keeps the non-secret settings across visits and the key where the user chose.
/// Provider settings are saved under the current preset, so each provider keeps its own.
pub fn persist_settings(state: Settings) {
    // A refused write is said at once (what was not kept), not dropped.
    let kept = move |outcome: Result<(), String>| {
        if let Err(e) = outcome {
            state.storage_error.set(Some(e));
        }
    };
    let per_provider = move |name: &'static str, value: String| {
        kept(storage::save_provider_setting(
            &state.provider.preset.get_untracked(),
            name,
            &value,
        ))
    };
    Effect::new(move |_| kept(storage::save_setting("hj.preset", &state.provider.preset.get())));
    Effect::new(move |_| kept(storage::save_setting("hj.metric", state.metric.get().id())));
    // A user:password@ typed into the base URL is refused when sending and never stored.
    Effect::new(move |_| {
        let url = crate::providers::without_credentials(&state.provider.base_url.get());
        per_provider("base_url", url)
    });
    Effect::new(move |_| per_provider("model", state.provider.model.get()));
    Effect::new(move |_| per_provider("detail", state.provider.image_detail.get().id().into()));
    Effect::new(move |_| per_provider("concurrency", state.provider.concurrency.get().to_string()));
    Effect::new(move |_| per_provider("repeatable", state.provider.repeatable.get().to_string()));
    // The budget shown is the chosen metric's on this provider: reload it when either changes,
    // and keep what the user types under both.
    Effect::new(move |_| {
        let (preset, metric) = (state.provider.preset.get(), state.metric.get());
        state
            .provider.max_tokens
            .set(crate::ui::state::load_max_tokens(&preset, metric));
    });
    Effect::new(move |_| {
        let n = state.provider.max_tokens.get();
        let name = format!("max_tokens.{}", state.metric.get_untracked().id());
        kept(storage::save_provider_setting(
            &state.provider.preset.get_untracked(),
            &name,
            &n.to_string(),
        ))
    });
    persist(state, "hj.max_side", move || state.max_side.get().to_string());
    persist(state, "hj.timeout_s", move || state.provider.timeout_s.get().to_string());
    persist(state, "hj.max_retries", move || state.provider.max_retries.get().to_string());
    persist(state, "hj.prices", move || state.provider.prices.get());
    persist(state, "hj.maev.trials", move || state.maev_trials.get().to_string());
    persist(state, "hj.maev.threshold", move || state.maev_threshold.get().to_string());
    persist(state, "hj.maev.pool", move || {
        state
            .maev_pool
            .with(|p| serde_json::to_string(p).unwrap_or_default())
    });
    Effect::new(move |_| {
        let (key, remember) = (state.provider.api_key.get(), state.provider.remember_key.get());
        kept(storage::save_api_key(
            &state.provider.preset.get_untracked(),
            &key,
            remember,
        ))
    });
    Effect::new(move |_| {
        let n = state.provider.effective_concurrency() as usize;
        state.provider.limiter.with_value(|l| l.set_limit(n));
    });
}
