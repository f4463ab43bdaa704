//! The metric picker both pages start with.

use leptos::prelude::*;

use crate::metrics::Metric;
use crate::ui::run::image_actions;
use crate::ui::state::{AppState, Settings};

/// The metrics offered follow the site file, also when the host's arrives after the page
/// mounted; each option says whether it is the one chosen, so a new list keeps the choice.
/// `page`: the evaluator's state, whose image is re-encoded for the new metric (the lab has
/// none). Both are props, not context: a context lookup per type costs first-visit bytes.
#[component]
pub fn MetricSelect(settings: Settings, page: Option<AppState>) -> impl IntoView {
    let state = settings;
    let on_metric = move |ev| {
        let Some(metric) = Metric::from_id(&event_target_value(&ev)) else {
            return;
        };
        state.metric.set(metric);
        state.form_problems.set(Vec::new());
        // Only HarmonicEval's REG task draws the box into what is sent.
        if let Some(page) = page {
            image_actions::refresh_encoded_image(page);
        }
    };
    view! {
        <div class="field metric-field">
            <label for="metric-select">"Metric"</label>
            <select id="metric-select" data-testid="metric-select" on:change=on_metric prop:value=move || state.metric.get().id()>
                {move || crate::ui::site::tracked().offered().into_iter().map(|m| view! { <option value=m.id() prop:selected=move || state.metric.get() == m>{m.info().name}</option> }).collect_view()}
            </select>
        </div>
    }
}
