//! Title, theme switch and the two pages' tabs. The batch lab is its own page (and its own
//! wasm file), so a first visit downloads only the one-item evaluator.

use leptos::prelude::*;

use crate::ui::theme_toggle::ThemeToggle;

/// Which page is showing; the other one is a link.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Single,
    Lab,
}

#[component]
pub fn TopBar(page: Page) -> impl IntoView {
    // The lab is served from `lab/` beside the evaluator's index.html.
    let (single_href, lab_href) = match page {
        Page::Single => ("./", "lab/"),
        Page::Lab => ("../", "./"),
    };
    let current = move |p: Page| if p == page { "tab active" } else { "tab" };
    view! {
        <header class="topbar">
            <h1>"harmonic-judge"</h1>
            <p class="tagline">"Score what a vision-language model wrote about an image."</p>
            <ThemeToggle/>
        </header>
        <nav class="tabs" aria-label="Mode">
            <a data-testid="tab-single" class=current(Page::Single) href=single_href>"One item"</a>
            <a data-testid="tab-batch" class=current(Page::Lab) href=lab_href>"Batch & meta-evaluation"</a>
        </nav>
    }
}
