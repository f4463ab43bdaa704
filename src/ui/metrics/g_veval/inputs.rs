//! G-VEval's own fields on the evaluator's form: its mode and the ACCR switch.

use leptos::prelude::*;

use crate::metrics::g_veval::Mode;
use crate::metrics::Metric;
use crate::ui::state::AppState;

/// G-VEval's mode and its ACCR switch, shown for G-VEval only.
pub(crate) fn mode_field(state: AppState) -> impl IntoView {
    view! {
    <div class="field" class:hidden=move || state.settings.metric.get() != Metric::GVeval>
        <label for="mode-select">"G-VEval mode"</label>
        <select
            id="mode-select"
            data-testid="mode-select"
            prop:value=move || state.metric_settings.gveval.mode.get().id()
            on:change=move |ev| {
                if let Some(m) = Mode::from_id(&event_target_value(&ev)) {
                    state.metric_settings.gveval.mode.set(m);
                }
            }
        >
            <option value="ref_free">"Reference-free (image or video)"</option>
            <option value="ref_only">"Reference-only (text, no image sent)"</option>
            <option value="combined">"Combined (image or video + references)"</option>
        </select>
        <label class="check">
            <input
                type="checkbox"
                data-testid="accr-checkbox"
                prop:checked=move || state.results.g_veval.accr.get()
                on:change=move |ev| state.results.g_veval.accr.set(event_target_checked(&ev))
            />
            "ACCR: four scores (accuracy, completeness, conciseness, relevance) — videos"
        </label>
    </div>
    }
}
