//! "Copy link" and "Copy embed code": the result of any metric in the URL fragment, deflated by
//! the browser, with a downscaled thumbnail; and opening such a link with no request. What goes
//! in the link and how it is written is decided in `crate::share`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::{JsCast, JsValue};

use crate::share;
use crate::ui::open_result::OpenedView;
use crate::ui::state::AppState;

/// The longest side of the image carried in a link.
const THUMB_SIDE: u32 = 160;

/// A small JPEG of the shown image: from the loaded canvas, or the opened result's own image.
pub(crate) fn thumbnail(state: AppState) -> Option<String> {
    let from_canvas = state.inputs.image.with_value(|img| {
        let img = img.as_ref()?;
        let src = &img.canvas;
        let (w, h) = crate::geometry::fit_within(src.width(), src.height(), THUMB_SIDE);
        let doc = web_sys::window()?.document()?;
        let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").ok()?.unchecked_into();
        canvas.set_width(w);
        canvas.set_height(h);
        let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").ok()??.unchecked_into();
        ctx.draw_image_with_html_canvas_element_and_dw_and_dh(src, 0.0, 0.0, w.into(), h.into()).ok()?;
        canvas.to_data_url_with_type_and_encoder_options("image/jpeg", &JsValue::from_f64(0.7)).ok()
    });
    from_canvas.or_else(|| {
        state.inputs.image_view.with_untracked(|v| v.as_ref().map(|v| v.data_url.clone()).filter(|u| u.len() < 12_000))
    })
}

fn page_url() -> String {
    web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default()
}

/// Best effort: the link is shown in `share-link` whatever the clipboard says.
fn copy(text: &str) {
    if let Some(nav) = web_sys::window().map(|w| w.navigator()) {
        let clipboard = js_sys::Reflect::get(&nav, &"clipboard".into()).ok();
        if let Some(c) = clipboard.filter(|c| !c.is_undefined()) {
            if let Ok(f) = js_sys::Reflect::get(&c, &"writeText".into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
                let _ = f.call1(&c, &JsValue::from_str(text));
            }
        }
    }
}

fn make_link(state: AppState, link: RwSignal<Option<Result<String, String>>>, embed: RwSignal<Option<String>>) {
    embed.set(None);
    // A comparison by a metric without γ is not put in a link (it would share the stale single
    // result behind it): say so, and where it can be saved.
    if untrack(|| state.candidates.plain_shown(state.settings.metric.get())) {
        link.set(Some(Err("A link carries one result or a HarmonicEval comparison; save this comparison with Export JSON.".into())));
        return;
    }
    // Several candidates compared: the comparison is what is shown, so it is what is shared.
    let json = if state.candidates.has_run() {
        crate::ui::candidates_run::comparison_for_link(state, thumbnail(state).as_deref())
    } else {
        let page = crate::ui::metric_ui::of(state.settings.metric.get_untracked());
        page.result_json(state).map(|json| {
            crate::result_file::with_extras(&json, thumbnail(state).as_deref(), &Default::default(), None)
        })
    };
    let Some(json) = json else {
        link.set(Some(Err("Evaluate or open a result first: there is nothing to share yet.".into())));
        return;
    };
    let shared = share::for_link(&json);
    spawn_local(async move {
        let made = match crate::web::files::deflate_raw(shared.as_bytes()).await {
            Ok(deflated) => share::link(&page_url(), &deflated),
            Err(e) => Err(e),
        };
        embed.set(made.as_deref().ok().map(embed_code));
        if let Ok(url) = &made {
            copy(url);
            if let Some(w) = web_sys::window() {
                let hash = &url[url.find('#').unwrap_or(url.len())..];
                let _ = w.history().and_then(|h| h.replace_state_with_url(&JsValue::NULL, "", Some(hash)));
            }
        }
        link.set(Some(made));
    });
}

/// Opens the result a share link's fragment carries, if the page was opened from one, or the
/// lab's result handed over under the fragment's nonce ("Open in evaluator").
pub fn open_from_fragment(state: AppState, view: OpenedView) {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    if let Some(nonce) = crate::lab::open_doc::handover_nonce(&hash) {
        open_from_lab(state, view, nonce);
        return;
    }
    let Some(payload) = share::payload(&hash) else { return };
    spawn_local(async move {
        let outcome = match payload {
            Ok(deflated) => match crate::web::files::inflate_raw(&deflated, 4 << 20).await {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(t) => crate::ui::open_result::open_text(state, view, t, "a share link".into()).await,
                    Err(_) => Err("This share link is damaged: it could not be read.".to_string()),
                },
                Err(_) => Err("This share link is damaged: it could not be read.".into()),
            },
            Err(e) => Err(e),
        };
        state.settings.form_problems.set(outcome.err().into_iter().collect());
    });
}

/// Reads (once) and shows the result the lab left under `nonce`; the fragment is cleared, so a
/// reload shows the empty page rather than a sentence about a hand-over already read.
fn open_from_lab(state: AppState, view: OpenedView, nonce: &str) {
    let doc = crate::web::storage::take_setting(&crate::lab::open_doc::handover_key(nonce));
    if let Some(w) = web_sys::window() {
        let path = w.location().pathname().unwrap_or_default();
        let _ = w.history().and_then(|h| h.replace_state_with_url(&JsValue::NULL, "", Some(&path)));
    }
    spawn_local(async move {
        let outcome = match doc {
            Some(text) => crate::ui::open_result::open_text(state, view, text, "the lab".into()).await,
            None => Err(crate::lab::open_doc::HANDOVER_GONE.to_string()),
        };
        state.settings.form_problems.set(outcome.err().into_iter().collect());
    });
}

/// An iframe of the embed (`embed.html?embed`, which any site may frame) showing the result.
fn embed_code(link: &str) -> String {
    share::embed_code(&crate::site::embed_url(link, None))
}

#[component]
pub fn SharePanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let link = RwSignal::new(None::<Result<String, String>>);
    let url = move || link.get().and_then(Result::ok);
    // The embed's code, written with the link (in the share chunk).
    let embed = RwSignal::new(None::<String>);
    let embed_copied = RwSignal::new(false);
    view! {
        <div class="share-row">
            <button type="button" data-testid="copy-link-button" on:click=move |_| { embed_copied.set(false); share_now(state, link, embed) }>"Copy link"</button>
            <button type="button" data-testid="copy-embed-button" disabled=move || embed.with(Option::is_none)
                on:click=move |_| if let Some(code) = embed.get() { copy(&code); embed_copied.set(true) }>"Copy embed code"</button>
            <p class="share-link" data-testid="share-link" class:hidden=move || url().is_none()>{url}</p>
            <p class="hint" data-testid="embed-code" class:hidden=move || !embed_copied.get()>{move || embed.get()}</p>
            <p class="error" role="alert" data-testid="share-error">{move || link.get().and_then(Result::err)}</p>
        </div>
    }
}

/// Making the link (compressing the result), in the `share` chunk.
#[leptos::wasm_split::wasm_split(share, wasm_split_path = ::leptos::wasm_split, fallible)]
fn share_loaded(state: AppState, link: RwSignal<Option<Result<String, String>>>, embed: RwSignal<Option<String>>) -> Result<(), crate::ui::lazy::ChunkMissing> {
    make_link(state, link, embed);
    Ok(())
}

/// Copy link.
fn share_now(state: AppState, link: RwSignal<Option<Result<String, String>>>, embed: RwSignal<Option<String>>) {
    let load = crate::ui::lazy::loading(share_loaded(state, link, embed));
    spawn_local(async move {
        if load.await.is_err() {
            link.set(Some(Err(crate::ui::lazy::missing("the share link"))));
        }
    });
}
