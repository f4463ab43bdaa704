//! The judge in one line (provider · model · key · procedure) that opens its full settings, the
//! fidelity and the backend, in place. The task (image, text, Evaluate) comes first on the page;
//! the settings, set once, stay folded under this line (the decision of the words is
//! `crate::first_visit::judge_summary`).

use leptos::prelude::*;

use crate::first_visit::{judge_summary, KeyState};
use crate::providers::preset;
use crate::ui::backend::backend_panel::BackendPanel;
use crate::ui::widgets::fidelity_panel::FidelityPanel;
use crate::ui::evaluator::guidance::missing_key_in;
use crate::ui::state::{AppState, Settings};

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
    let extensions = settings.fidelity.with(|f| f.for_metric(metric).extensions().len());
    p.model.with(|m| judge_summary(label, m, key, extensions))
}

/// `page`: the evaluator's state (the lab has none), as `BackendPanel` takes it.
#[component]
pub fn JudgeSettings(settings: Settings, page: Option<AppState>) -> impl IntoView {
    let needs_key = move || missing_key_in(settings).is_some();
    view! {
        <details class="judge-settings" data-testid="judge-settings">
            <summary data-testid="judge-summary">
                <span class="judge-title">"Judge"</span>
                <span class="judge-line" class:warn=needs_key>{move || summary(settings)}</span>
                <span class="judge-open">"settings"</span>
            </summary>
            <div class="judge-body">
                <FidelityPanel settings=settings/>
                <BackendPanel settings=settings page=page/>
            </div>
        </details>
    }
}
