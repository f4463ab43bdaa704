//! No dead ends: the key a provider needs, said next to Evaluate before anything is sent; one
//! failure shared by every criterion, shown (and announced) once; the result brought into view
//! with focus on the score when a run ends. The decisions are in `crate::inputs::first_visit`.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::inputs::first_visit::key_missing;
use crate::providers::preset;
use crate::ui::state::AppState;

/// Why Evaluate will not send now, if the chosen provider needs a key and has none.
pub fn missing_key(state: AppState) -> Option<String> {
    missing_key_in(state.settings)
}

/// [`missing_key`] for either page's settings.
pub fn missing_key_in(settings: crate::ui::state::Settings) -> Option<String> {
    let p = preset(&settings.provider.preset.get());
    // The provider's own host: a base URL pointed elsewhere may need no key at all.
    let own_host = settings.provider.base_url.with(|u| crate::inputs::first_visit::is_presets_host(p.base_url, u));
    let needs_key = p.needs_key && own_host;
    settings.provider.api_key.with(|k| key_missing(needs_key, k, p.label))
}

#[component]
pub fn KeyNote() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <p class="key-note" data-testid="key-needed" class:hidden=move || missing_key(state).is_none()>
            {move || missing_key(state)}
        </p>
    }
}

#[component]
pub fn SharedFailure() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <div class="shared-failure error" role="alert" data-testid="shared-failure">
            {move || crate::ui::metrics::shared_failure(state).map(|m| view! {
                <p><strong>"Every criterion failed for the same reason: "</strong>{m}</p>
            })}
        </div>
    }
}

/// When a run ends with something to show, scrolls the results into view and moves focus to
/// the score (the HarmonicEval score, or the results heading for the other metrics).
pub fn follow_results(state: AppState) {
    let was_running = StoredValue::new(false);
    Effect::new(move |_| {
        let running = crate::ui::metrics::of(state.settings.metric.get()).running(state);
        let ended = was_running.get_value() && !running;
        was_running.set_value(running);
        if !ended {
            return;
        }
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        let target = doc
            .get_element_by_id("overall-score")
            .filter(|_| state.settings.weighs_criteria())
            .or_else(|| doc.get_element_by_id("results-heading"));
        if let Some(el) = target.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            el.scroll_into_view();
            el.focus().ok();
        }
    });
}
