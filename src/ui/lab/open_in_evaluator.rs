//! "Open in evaluator": one lab result handed to the evaluator page, which shows it as an
//! opened result file (γ, the criteria, export). What is handed over and how is decided in
//! `crate::lab::open_doc`. Not a wasm chunk: the lab's code is one part, and a split entry
//! that only the lab calls would be linked, unsplit, into the evaluator's first visit (both
//! pages' binaries export every entry of the library); it cost the evaluator 27 KB gzip.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::lab::open_doc;
use crate::lab::ItemResult;
use crate::ui::lab::batch_state::BatchState;
use crate::ui::state::Settings;

/// The longest side of the thumbnail carried, as a share link's.
const THUMB_SIDE: u32 = 160;

/// What happened on the last press: a sentence, and the evaluator's URL when the browser
/// would not open a tab for it (then it is offered as a link).
#[derive(Clone, Debug, Default, PartialEq)]
struct Outcome {
    said: String,
    error: bool,
    link: Option<String>,
}

/// The action under an item's details: the button, or the sentence saying why this result
/// cannot be opened in the evaluator.
pub(crate) fn action(state: Settings, b: BatchState, r: &ItemResult) -> impl IntoView {
    let outcome = RwSignal::new(None::<Outcome>);
    match open_doc::openable(r) {
        Err(why) => {
            view! { <p class="hint" data-testid="open-in-evaluator-note">{why}</p> }.into_any()
        }
        Ok(_) => {
            let r = r.clone();
            let test_id = format!("open-in-evaluator-{}", r.id);
            view! {
                <div class="open-in-evaluator">
                    <button type="button" data-testid=test_id on:click=move |_| press(state, b, r.clone(), outcome)>
                        "Open in evaluator"
                    </button>
                    {move || outcome.get().map(|o| view! {
                        <p class:error=o.error class:hint=!o.error role="status" data-testid="open-in-evaluator-status">
                            {o.said}
                            {o.link.map(|u| view! { " " <a href=u target="_blank" rel="noopener">"Open the evaluator"</a> })}
                        </p>
                    })}
                </div>
            }
            .into_any()
        }
    }
}

fn press(state: Settings, b: BatchState, r: ItemResult, outcome: RwSignal<Option<Outcome>>) {
    spawn_local(async move {
        let said = hand_over(state, b, &r).await;
        outcome.set(Some(said));
    });
}

async fn hand_over(state: Settings, b: BatchState, r: &ItemResult) -> Outcome {
    let failed = |said: String| Outcome {
        said,
        error: true,
        link: None,
    };
    let doc = match open_doc::document(r, state.gamma.get_untracked()) {
        Ok(d) => d,
        Err(why) => return failed(why),
    };
    let image = thumbnail(b, r).await;
    let dataset = b
        .dataset_file
        .with_value(|d| d.as_ref().map(|(n, _)| n.clone()))
        .unwrap_or_default();
    let source = open_doc::source(r, &dataset, image.is_some());
    let doc = crate::files::result_file::with_extras(
        &doc,
        image.as_deref(),
        &Default::default(),
        Some(&source),
    );
    let now = js_sys::Date::now() / 1000.0;
    let storage = crate::web::storage::setting_keys();
    crate::web::storage::forget_settings(&open_doc::stale_handovers(&storage, now));
    let nonce = open_doc::nonce(now, js_sys::Math::random());
    if let Err(e) = crate::web::storage::save_setting(&open_doc::handover_key(&nonce), &doc) {
        return failed(format!(
            "The result could not be handed to the evaluator: {e}"
        ));
    }
    // The lab is at `lab/`, the evaluator one level up (as the top bar links them).
    let url = format!("../{}{nonce}", open_doc::FRAGMENT);
    let opened =
        web_sys::window().and_then(|w| w.open_with_url_and_target(&url, "_blank").ok().flatten());
    let carried = if image.is_some() {
        "with a thumbnail of its image"
    } else {
        "without its image (the lab holds no image file for it now)"
    };
    match opened {
        Some(_) => Outcome { said: format!("Opened item {} in the evaluator, in a new tab, {carried}.", r.id), error: false, link: None },
        None => Outcome {
            said: format!("The browser did not open a new tab: the evaluator will show item {} {carried} from this link.", r.id),
            error: false,
            link: Some(url),
        },
    }
}

/// A small JPEG of the item's image, when the lab still holds the file (the dataset's REG box
/// drawn in red, as it was sent).
async fn thumbnail(b: BatchState, r: &ItemResult) -> Option<String> {
    let name = r.image.clone()?;
    let images = b.images.get_value();
    let blob = crate::ui::lab::thumbnail::image_blob(&images, &name).await?;
    let red_box = b.items.with_value(|items| {
        let item = items.iter().find(|i| i.id == r.id)?;
        item.bbox.filter(|x| item.task.needs_box() && x.is_usable())
    });
    let prepared = crate::web::image::prepare_image(&blob, THUMB_SIDE, red_box)
        .await
        .ok()?;
    Some(prepared.sent)
}
