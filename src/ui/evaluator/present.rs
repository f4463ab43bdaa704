//! Present mode, for a classroom projector: only the image, the text (or the candidates), the
//! score, γ with its plot and the weights chart, in large type (style/main.css, `.present`).
//! While presenting, the arrow keys (and Page Up / Page Down, Home, End) move γ from anywhere on
//! the page, as on the slider; a field keeps its own keys; Escape leaves.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::state::AppState;

/// Whether a key press belongs to a form field (the γ slider included, which moves itself).
fn in_field(ev: &web_sys::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

#[component]
pub fn PresentButton(present: RwSignal<bool>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if !present.get_untracked() {
            return;
        }
        let key = ev.key();
        if key == "Escape" {
            present.set(false);
        } else if !in_field(&ev) {
            if let Some(g) =
                crate::scoring::gamma_axis::key_step(&key, state.settings.gamma.get_untracked())
            {
                ev.prevent_default();
                state.settings.gamma.set(g);
            }
        }
    });
    on_cleanup(move || keys.remove());
    view! {
        <button
            type="button"
            class="present-button"
            data-testid="present-button"
            class:hidden=move || !state.settings.weighs_criteria() || !crate::ui::metrics::of(state.settings.metric.get()).has_run(state)
            title="Large type for a projector: the score, γ and its charts; the arrow keys move γ"
            aria-pressed=move || present.get().to_string()
            on:click=move |_| {
                present.update(|p| *p = !*p);
                // The presented view is one screen: it starts at the top, wherever the button was.
                if present.get_untracked() {
                    if let Some(w) = web_sys::window() {
                        w.scroll_to_with_x_and_y(0.0, 0.0);
                    }
                }
            }
        >
            {move || if present.get() { "Leave present mode (Esc)" } else { "Present" }}
        </button>
    }
}
