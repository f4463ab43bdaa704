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

#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(storage::load_setting("hj.theme").unwrap_or_default());
    Effect::new(move |_| {
        let t = theme.get();
        if !t.is_empty() {
            apply(&t);
            // The theme is applied either way; a theme not remembered needs no message.
            storage::save_setting("hj.theme", &t).ok();
        }
    });
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
            on:click=move |_| theme.set(if is_dark() { "light".into() } else { "dark".into() })
        >
            {move || if is_dark() { "☀ Light" } else { "☾ Dark" }}
        </button>
    }
}
