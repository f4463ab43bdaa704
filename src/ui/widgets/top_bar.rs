//! Title, theme switch and the two pages' tabs. The batch lab is its own page (and its own
//! wasm file), so a first visit downloads only the one-item evaluator.

use leptos::prelude::*;

use crate::ui::widgets::theme_toggle::ThemeToggle;

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
    // The site file's title and tagline, and whether it links the lab (site.json): tracked,
    // so the host's file, when it arrives after the page mounted, shows at once (issue 58).
    let title = || {
        crate::ui::site::tracked()
            .title
            .clone()
            .unwrap_or_else(|| "harmonic-judge".into())
    };
    let tagline = || {
        crate::ui::site::tracked()
            .tagline
            .clone()
            .unwrap_or_else(|| "Score what a vision-language model wrote about an image.".into())
    };
    let lab_linked = move || crate::ui::site::tracked().lab || page == Page::Lab;
    view! {
        <header class="topbar">
            <h1 data-testid="site-title">{title}</h1>
            <p class="tagline" data-testid="site-tagline">{tagline}</p>
            <ThemeToggle/>
        </header>
        {move || crate::ui::site::problem().map(|m| view! { <p class="error" role="alert" data-testid="site-problem">{m}</p> })}
        <nav class="tabs" aria-label="Mode" class:hidden=move || !lab_linked()>
            <a data-testid="tab-single" class=current(Page::Single) href=single_href>"One item"</a>
            {move || lab_linked().then(|| view! { <a data-testid="tab-batch" class=current(Page::Lab) href=lab_href>"Batch & meta-evaluation"</a> })}
        </nav>
    }
}
