//! "Try an example": the gallery of result files in `examples/` (one file each, listed by
//! `examples/manifest.json`, which the build writes). Fetched from the page's own origin when
//! the page has mounted, never part of the first download; an example opens exactly like a
//! result file the user drops (`open_result::show`).

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::result_file::{self, Example};
use crate::ui::open_result::OpenedView;
use crate::ui::state::AppState;

/// GETs a file of this site (same origin, no credentials, no redirects) as text.
async fn get_text(path: &str) -> Result<String, String> {
    let fail = || "The examples could not be loaded from this site.".to_string();
    let window = web_sys::window().ok_or_else(fail)?;
    let init = web_sys::RequestInit::new();
    init.set_credentials(web_sys::RequestCredentials::SameOrigin);
    init.set_redirect(web_sys::RequestRedirect::Error);
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str_and_init(path, &init))
        .await
        .map_err(|_| fail())?
        .dyn_into()
        .map_err(|_| fail())?;
    if !response.ok() {
        return Err(fail());
    }
    // The gate: the body's size is checked before it is read as text.
    let blob: web_sys::Blob = JsFuture::from(response.blob().map_err(|_| fail())?)
        .await
        .map_err(|_| fail())?
        .unchecked_into();
    crate::gate::size(crate::gate::Origin::Example, blob.size())?;
    crate::web::files::text(&blob).await.map_err(|_| fail())
}

fn open_example(state: AppState, view: OpenedView, error: RwSignal<Option<String>>, e: Example) {
    spawn_local(async move {
        let outcome = match get_text(&format!("examples/{}", e.file)).await {
            Ok(text) => crate::ui::open_result::open_text(state, view, text, e.title.clone()).await,
            Err(m) => Err(m),
        };
        error.set(outcome.err());
    });
}

#[component]
pub fn ExamplesGallery() -> impl IntoView {
    let state = expect_context::<AppState>();
    let view = expect_context::<OpenedView>();
    let examples = RwSignal::new(Vec::<Example>::new());
    let error = RwSignal::new(None::<String>);
    spawn_local(async move {
        match get_text("examples/manifest.json").await.and_then(|t| result_file::read_manifest(&t)) {
            Ok(list) => examples.set(list),
            Err(m) => error.set(Some(m)),
        }
    });
    view! {
        <section class="demo-gallery" data-testid="demo-gallery" aria-labelledby="demo-heading">
            <h2 id="demo-heading">"Try an example"</h2>
            <p class="hint">"No key and no request to any server: move γ, read the cards, Explain, export. Each says where its numbers come from."</p>
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
            <p class="error" role="alert">{move || error.get()}</p>
        </section>
    }
}
