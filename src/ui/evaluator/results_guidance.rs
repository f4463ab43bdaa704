//! No dead ends in the results: one failure shared by every criterion, shown (and announced)
//! once above the cards; the result brought into view with focus on the score when a run ends.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::state::AppState;

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
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
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
