//! "Try an example": the gallery of result files in `examples/` (one file each, listed by
//! `examples/manifest.json`, which the build writes). Fetched from the page's own origin when
//! the page has mounted, never part of the first download; an example opens exactly like a
//! result file the user drops (`open_result::show`).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::files::result_file::{self, Example};
use crate::ui::evaluator::open_result::OpenedView;
use crate::ui::state::AppState;

/// GETs a file of this site as text (`ui::site::get_site_text`).
async fn get_text(path: &str) -> Result<String, String> {
    // The gate: the body's size is checked before it is read as text.
    match crate::ui::site::get_site_text(path, false, crate::files::gate::Origin::Example).await {
        Ok(Some(text)) => Ok(text),
        Err(Some(refused)) => Err(refused),
        _ => Err("The examples could not be loaded from this site.".to_string()),
    }
}

fn open_example(state: AppState, view: OpenedView, error: RwSignal<Option<String>>, e: Example) {
    spawn_local(async move {
        let outcome = match get_text(&format!("examples/{}", e.file)).await {
            Ok(text) => {
                crate::ui::evaluator::open_result::open_text(state, view, text, e.title.clone())
                    .await
            }
            Err(m) => Err(m),
        };
        error.set(outcome.err());
    });
}

/// Whether the visitor has entered a text or an image (or one is being read).
fn has_input(state: AppState) -> bool {
    let i = &state.inputs;
    !i.text.get_untracked().trim().is_empty()
        || i.image_loading.get_untracked()
        || i.image_file.with_value(Option::is_some)
}

/// Fetches the gallery's list into `examples`, then opens the example the address
/// (`?example=`) or the site file (`open_example`) names, if any: only one the list holds.
pub fn load_gallery(
    state: AppState,
    view: OpenedView,
    error: RwSignal<Option<String>>,
    examples: RwSignal<Vec<Example>>,
) {
    spawn_local(async move {
        match get_text("examples/manifest.json")
            .await
            .and_then(|t| result_file::read_manifest(&t))
        {
            Ok(list) => {
                // Not over what the visitor entered already (the static shell takes the text
                // and the image before the app mounts, issue 43): the gallery still offers it.
                if let Some(stem) = crate::ui::site::first_example().filter(|_| !has_input(state)) {
                    match list.iter().find(|e| e.name == stem) {
                        Some(e) => open_example(state, view, error, e.clone()),
                        None => error.set(Some(format!(
                            "The example \u{201c}{stem}\u{201d} this page was asked to open is not in its gallery."
                        ))),
                    }
                }
                examples.set(list)
            }
            Err(m) => error.set(Some(m)),
        }
    });
}

/// The host's site file arrived after the page mounted (`ui::site::revalidate`): the example it
/// opens is opened now, where the gallery's list is here, the visitor has entered nothing and
/// nothing else is open.
fn follow_site(
    state: AppState,
    view: OpenedView,
    error: RwSignal<Option<String>>,
    examples: RwSignal<Vec<Example>>,
) {
    let initial = crate::ui::site::get();
    Effect::new(move |last: Option<std::rc::Rc<crate::files::site::Site>>| {
        let site = crate::ui::site::tracked();
        let last = last.unwrap_or_else(|| initial.clone());
        let changed = !std::rc::Rc::ptr_eq(&site, &last) && site.open_example != last.open_example;
        let idle = untrack(|| view.0.with(Option::is_none) && !has_input(state));
        if let Some(stem) = site.open_example.clone().filter(|_| changed && idle) {
            let listed = examples.with_untracked(|l| l.iter().find(|e| e.name == stem).cloned());
            if let Some(e) = listed {
                open_example(state, view, error, e);
            }
        }
        site
    });
}

#[component]
pub fn ExamplesGallery() -> impl IntoView {
    let state = expect_context::<AppState>();
    let view = expect_context::<OpenedView>();
    let examples = RwSignal::new(Vec::<Example>::new());
    let error = RwSignal::new(None::<String>);
    load_gallery(state, view, error, examples);
    follow_site(state, view, error, examples);
    view! {
        <section class="demo-gallery" data-testid="demo-gallery" aria-labelledby="demo-heading">
            <h2 id="demo-heading">"Try an example"</h2>
            <p class="hint">"No key, no request to any server; each says where its numbers come from."</p>
            <div class="demo-buttons">
                {move || examples.get().into_iter().map(|e| {
                    let id = format!("demo-{}", e.name);
                    let (title, provenance, start) = (e.title.clone(), e.provenance(), e.start);
                    view! {
                        <button type="button" data-testid=id class:start=start data-origin=e.origin.clone()
                            on:click=move |_| open_example(state, view, error, e.clone())>
                            {start.then(|| view! { <span class="start-mark">"Start here"</span> })}
                            <span class="demo-title">{title}</span>
                            <span class="demo-origin">{provenance}</span>
                        </button>
                    }
                }).collect_view()}
            </div>
            <p class="hint hand-offer">
                <button type="button" data-testid="hand-button" on:click=move |_| {
                    view.0.set(None);
                    crate::ui::metrics::set_by_hand(state)
                }>"Set the ratings yourself"</button>
                " and watch γ weigh them."
            </p>
            <p class="error" role="alert">{move || error.get()}</p>
        </section>
    }
}
