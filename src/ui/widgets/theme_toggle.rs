//! Light / dark switch. Without a stored choice the page follows the system setting (CSS).

use leptos::prelude::*;

use crate::web::storage;

fn apply(theme: &str) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("data-theme", theme);
    }
}

/// The sentence when the browser would not remember the theme.
const NOT_KEPT: &str = "This browser did not remember the theme (storage full or off): it applies \
                        until the page is reloaded.";

#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(storage::load_setting("hj.theme").unwrap_or_default());
    // Set when the last choice could not be stored; said beside the switch.
    let not_kept = RwSignal::new(false);
    Effect::new(move |_| {
        let t = theme.get();
        if !t.is_empty() {
            apply(&t);
        }
    });
    // Stored only when chosen: the theme applies either way, and a refusal is said.
    let choose = move |t: &str| {
        theme.set(t.to_string());
        not_kept.set(storage::save_setting("hj.theme", t).is_err());
    };
    let is_dark = move || {
        let t = theme.get();
        if t.is_empty() {
            web_sys::window()
                .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
                .is_some_and(|m| m.matches())
        } else {
            t == "dark"
        }
    };
    view! {
        <button
            class="theme-toggle"
            aria-label="Switch between light and dark theme"
            on:click=move |_| choose(if is_dark() { "light" } else { "dark" })
        >
            {move || if is_dark() { "☀ Light" } else { "☾ Dark" }}
        </button>
        {move || not_kept.get().then(|| view! {
            <p class="error" role="status" data-testid="theme-not-kept">{NOT_KEPT}</p>
        })}
    }
}
