//! The judge in one line (provider · model · key · procedure) that opens its full settings, the
//! fidelity and the backend, in place. The task (image, text, Evaluate) comes first on the page;
//! the settings, set once, stay folded under this line (the decision of the words is
//! `crate::inputs::first_visit::judge_summary`).

use leptos::prelude::*;

use crate::inputs::first_visit::{judge_summary, KeyState};
use crate::providers::preset;
use crate::ui::backend::backend_panel::BackendPanel;
use crate::ui::judge::fidelity_panel::FidelityPanel;
use crate::ui::run::guidance::missing_key_in;
use crate::ui::state::{AppState, Settings};
use crate::ui::widgets::later::later;

/// The summary line's words, from the settings now.
fn summary(settings: Settings) -> String {
    let p = settings.provider;
    let label = preset(&p.preset.get()).label;
    let key = if missing_key_in(settings).is_some() {
        KeyState::Needed
    } else if p.api_key.with(|k| !k.trim().is_empty()) {
        KeyState::Set
    } else {
        KeyState::NotNeeded
    };
    let metric = settings.metric.get();
    let extensions = settings
        .fidelity
        .with(|f| f.for_metric(metric).extensions().len());
    p.model.with(|m| judge_summary(label, m, key, extensions))
}

/// `page`: the evaluator's state (the lab has none), as `BackendPanel` takes it.
///
/// A button and a region, not `<details>`: Chromium left a checkbox that appeared inside a
/// closed `<details>` (an extension of a newly chosen metric) with no size once opened.
#[component]
pub fn JudgeSettings(settings: Settings, page: Option<AppState>) -> impl IntoView {
    let needs_key = move || missing_key_in(settings).is_some();
    let open = RwSignal::new(false);
    // Folded on a first visit: built in the task after the first screen's (widgets/later.rs).
    let body = NodeRef::<leptos::html::Div>::new();
    later(body, move || {
        view! {
            <FidelityPanel settings=settings/>
            <BackendPanel settings=settings page=page/>
        }
    });
    view! {
        <section class="judge-settings" class:open=move || open.get() data-testid="judge-settings" aria-label="The judge">
            <button
                type="button"
                class="judge-summary"
                data-testid="judge-summary"
                aria-expanded=move || open.get().to_string()
                aria-controls="judge-body"
                on:click=move |_| open.update(|o| *o = !*o)
            >
                <span class="judge-title">"Judge"</span>
                <span class="judge-line" class:warn=needs_key>{move || summary(settings)}</span>
                <span class="judge-open">{move || if open.get() { "hide settings" } else { "settings" }}</span>
            </button>
            // Said once (the next visit has none): the site's suggestion changed.
            {move || settings.site_note.get().map(|note| view! { <p class="hint" data-testid="site-changed-note" role="status">{note}</p> })}
            <div class="judge-body" id="judge-body" class:hidden=move || !open.get() node_ref=body></div>
        </section>
    }
}
