//! No dead ends: the key a provider needs, said next to Evaluate before anything is sent (and
//! checked by Evaluate, `ui/metrics/mod.rs`). The decisions are in `crate::inputs::first_visit`.
//! The results' own guidance (one shared failure, the result brought into view) is the
//! evaluator's, `ui/evaluator/results_guidance.rs`.

use leptos::prelude::*;

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
    let own_host = settings
        .provider
        .base_url
        .with(|u| crate::inputs::first_visit::is_presets_host(p.base_url, u));
    let needs_key = p.needs_key && own_host;
    settings
        .provider
        .api_key
        .with(|k| key_missing(needs_key, k, p.label))
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
