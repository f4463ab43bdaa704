//! The metric picker both pages start with.

use leptos::prelude::*;

use crate::ui::actions;
use crate::ui::state::AppState;
use crate::metrics::METRICS;

#[component]
pub fn MetricSelect() -> impl IntoView {
    let state = expect_context::<AppState>();
    let on_metric = move |ev| {
        state.metric.set(event_target_value(&ev));
        state.form_problems.set(Vec::new());
        // Only HarmonicEval's REG task draws the box into what is sent.
        actions::refresh_encoded_image(state);
    };
    view! {
        <div class="field">
            <label for="metric-select">"Metric"</label>
            <select id="metric-select" data-testid="metric-select" on:change=on_metric prop:value=move || state.metric.get()>
                {METRICS.iter().map(|m| view! { <option value=m.id>{m.name}</option> }).collect_view()}
            </select>
        </div>
    }
}
