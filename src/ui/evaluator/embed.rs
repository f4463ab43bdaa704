//! The embed (`?embed`, or `embed.html`): a compact view for other sites to frame. It shows an
//! example (`&example=<stem>`) or a shared result (the link's fragment) with γ, the weights
//! chart and the cards, and a link to the full evaluator. It has no key field, never uses a key
//! the visitor stored for this site, stores nothing, and sends no request to any judge unless
//! the site file names a key-less one (`ui::site::may_send`). Its view is the `embed` chunk.

use leptos::prelude::*;

use crate::ui::evaluator::open_result::{OpenedPanel, OpenedView};
use crate::ui::state::{AppState, Settings};

/// Mounts the embed in place of the full evaluator: the whole page is in the `embed` chunk, so
/// the evaluator's first visit carries none of it.
#[leptos::wasm_split::wasm_split(embed, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn mount() -> Result<(), crate::ui::lazy::ChunkMissing> {
    leptos::mount::mount_to_body(embed_page);
    Ok(())
}

/// The embed's page.
fn embed_page() -> impl IntoView {
    let state = AppState::restore();
    provide_context(state);
    let opened = OpenedView(RwSignal::new(None));
    provide_context(opened);
    // Not shown, not sent, and (no settings are persisted here) not stored over.
    state.settings.provider.api_key.set(String::new());
    use_site_judge(state.settings);
    crate::ui::evaluator::share::open_from_fragment(state, opened);
    embed_view(state, opened)
}

/// The judge an Explain here may ask: the site file's, never one the visitor set up.
fn use_site_judge(settings: Settings) {
    let Some(j) = crate::ui::site::get().judge.clone() else {
        return;
    };
    let p = crate::providers::preset(&j.provider);
    settings.provider.preset.set(j.provider.clone());
    settings
        .provider
        .base_url
        .set(j.base_url.unwrap_or_else(|| p.base_url.into()));
    settings
        .provider
        .model
        .set(j.model.unwrap_or_else(|| p.model.into()));
}

fn embed_view(state: AppState, opened: OpenedView) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    crate::ui::evaluator::examples::load_gallery(state, opened, error, RwSignal::new(Vec::new()));
    let site = crate::ui::site::get();
    let title = site
        .title
        .clone()
        .unwrap_or_else(|| "harmonic-judge".into());
    let href = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let full = crate::files::site::full_url(&href);
    let problems = move || {
        let mut all: Vec<String> = error.get().into_iter().collect();
        all.extend(state.settings.form_problems.get());
        all.join(" ")
    };
    view! {
        <main class="embed" data-testid="embed">
            <header class="embed-bar">
                <strong data-testid="site-title">{title}</strong>
                " "
                <a data-testid="open-full-link" href=full target="_blank" rel="noopener noreferrer">"open in the full evaluator"</a>
            </header>
            <p class="hint" data-testid="embed-empty" class:hidden=move || opened.0.with(Option::is_some)>
                "Nothing to show yet: this address names no example and carries no result."
            </p>
            <OpenedPanel/>
            {move || crate::ui::metrics::of(state.settings.metric.get()).panel()}
            <p class="error" role="alert" data-testid="embed-error">{problems}</p>
        </main>
    }
}
