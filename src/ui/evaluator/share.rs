//! "Copy link" and "Copy embed code": the result of any metric in the URL fragment, deflated by
//! the browser, with a downscaled thumbnail; and opening such a link with no request. What goes
//! in the link and how it is written is decided in `crate::files::share`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::{JsCast, JsValue};

use crate::files::{gate, share};
use crate::ui::evaluator::open_result::OpenedView;
use crate::ui::state::AppState;

/// The longest side of the image carried in a link.
const THUMB_SIDE: u32 = 160;

/// A small JPEG of the shown image: from the loaded canvas, or the opened result's own image.
pub(crate) fn thumbnail(state: AppState) -> Option<String> {
    let from_canvas = state.inputs.image.with_value(|img| {
        let img = img.as_ref()?;
        let src = &img.canvas;
        let (w, h) = crate::inputs::geometry::fit_within(src.width(), src.height(), THUMB_SIDE);
        let doc = web_sys::window()?.document()?;
        let canvas: web_sys::HtmlCanvasElement =
            doc.create_element("canvas").ok()?.unchecked_into();
        canvas.set_width(w);
        canvas.set_height(h);
        let ctx: web_sys::CanvasRenderingContext2d =
            canvas.get_context("2d").ok()??.unchecked_into();
        ctx.draw_image_with_html_canvas_element_and_dw_and_dh(src, 0.0, 0.0, w.into(), h.into())
            .ok()?;
        canvas
            .to_data_url_with_type_and_encoder_options("image/jpeg", &JsValue::from_f64(0.7))
            .ok()
    });
    from_canvas.or_else(|| {
        state.inputs.image_view.with_untracked(|v| {
            v.as_ref()
                .map(|v| v.data_url.clone())
                .filter(|u| u.len() < 12_000)
        })
    })
}

fn page_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default()
}

/// Copies `text`; `true` once the clipboard took it. `false` where the browser refuses (no
/// clipboard, no permission, not a secure context): the caller then selects the shown text.
async fn copy(text: String) -> bool {
    let Some(nav) = web_sys::window().map(|w| w.navigator()) else {
        return false;
    };
    let Some(c) = js_sys::Reflect::get(&nav, &"clipboard".into())
        .ok()
        .filter(|c| c.is_object())
    else {
        return false;
    };
    let promise = js_sys::Reflect::get(&c, &"writeText".into())
        .and_then(|f| f.dyn_into::<js_sys::Function>())
        .and_then(|f| f.call1(&c, &JsValue::from_str(&text)))
        .and_then(|p| p.dyn_into::<js_sys::Promise>());
    match promise {
        Ok(p) => wasm_bindgen_futures::JsFuture::from(p).await.is_ok(),
        Err(_) => false,
    }
}

/// Selects the text shown under this test id, so that Ctrl+C (⌘C) copies it.
fn select_shown(testid: &str) {
    let Some(w) = web_sys::window() else { return };
    let Some(el) = w.document().and_then(|d| {
        d.query_selector(&format!("[data-testid=\"{testid}\"]"))
            .ok()
            .flatten()
    }) else {
        return;
    };
    let call = |target: &JsValue, name: &str, arg: Option<&JsValue>| {
        js_sys::Reflect::get(target, &name.into())
            .and_then(|f| f.dyn_into::<js_sys::Function>())
            .and_then(|f| match arg {
                Some(a) => f.call1(target, a),
                None => f.call0(target),
            })
    };
    if let Ok(selection) = call(&w, "getSelection", None) {
        let _ = call(&selection, "selectAllChildren", Some(&el));
    }
}

/// Copies `text` and says so in `status`; where the clipboard is refused, selects the text shown
/// under `testid` and says that instead.
pub(crate) fn copy_and_say(
    text: String,
    testid: &'static str,
    what: &'static str,
    status: RwSignal<Option<String>>,
) {
    spawn_local(async move {
        let said = if copy(text).await {
            format!("Copied the {what}.")
        } else {
            select_shown(testid);
            format!("This browser did not let the page copy: the {what} is selected below; press Ctrl+C (⌘C on a Mac) to copy it.")
        };
        status.set(Some(said));
    });
}

fn make_link(
    state: AppState,
    link: RwSignal<Option<Result<String, String>>>,
    status: RwSignal<Option<String>>,
    embed: RwSignal<Option<String>>,
) {
    embed.set(None);
    // A comparison by a metric without γ is not put in a link (it would share the stale single
    // result behind it): say so, and where it can be saved.
    if untrack(|| state.candidates.plain_shown(state.settings.metric.get())) {
        link.set(Some(Err("A link carries one result or a HarmonicEval comparison; save this comparison with Export JSON.".into())));
        return;
    }
    // Several candidates compared: the comparison is what is shown, so it is what is shared.
    let json = if state.comparison_shown() {
        crate::ui::metrics::comparison_for_link(state, thumbnail(state).as_deref())
    } else {
        let page = crate::ui::metrics::of(state.settings.metric.get_untracked());
        page.result_json(state).map(|json| {
            crate::files::result_file::with_extras(
                &json,
                thumbnail(state).as_deref(),
                &Default::default(),
                None,
            )
        })
    };
    let Some(json) = json else {
        link.set(Some(Err(
            "Evaluate or open a result first: there is nothing to share yet.".into(),
        )));
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
            if let Some(w) = web_sys::window() {
                let hash = &url[url.find('#').unwrap_or(url.len())..];
                let _ = w
                    .history()
                    .and_then(|h| h.replace_state_with_url(&JsValue::NULL, "", Some(hash)));
            }
        }
        let copy_it = made.as_ref().ok().cloned();
        link.set(Some(made));
        // After the link is shown, so that a refused clipboard can select it.
        if let Some(url) = copy_it {
            copy_and_say(url, "share-link", "link", status);
        }
    });
}

/// Opens the result a share link's fragment carries, if the page was opened from one, or the
/// lab's result handed over under the fragment's nonce ("Open in evaluator").
pub fn open_from_fragment(state: AppState, view: OpenedView) {
    // The fragment's length is read before the fragment itself: a link of two million
    // characters is refused without copying it into the page's memory.
    let Some(hash) = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w.location(), &"hash".into()).ok())
        .and_then(|h| h.dyn_into::<js_sys::JsString>().ok())
    else {
        return;
    };
    let (n, prefix) = (hash.length() as usize, share::PREFIX.len());
    if n > prefix + gate::MAX_FRAGMENT_CHARS {
        if hash.slice(0, prefix as u32) == share::PREFIX {
            state
                .settings
                .form_problems
                .set(gate::fragment_chars(n - prefix).err().into_iter().collect());
        }
        return;
    }
    let hash = String::from(hash);
    if let Some(nonce) = crate::lab::open_doc::handover_nonce(&hash) {
        open_from_lab(state, view, nonce);
        return;
    }
    let Some(payload) = share::payload(&hash) else {
        return;
    };
    spawn_local(async move {
        // A task of its own after the page's first draw, so the page shows before any of the
        // link's work and that work is never added to the mount's.
        crate::web::fetch::sleep(0, None).await;
        let damaged = || "This share link is damaged: it could not be read.".to_string();
        // The gate: the fragment's length was checked before decoding (`share::payload`);
        // inflating goes a slice at a time and stops at the largest result.
        let outcome = match payload {
            Ok(deflated) => {
                let inflated = crate::web::files::inflate_sliced(
                    &deflated,
                    gate::INFLATE_SLICE,
                    gate::MAX_DOC_BYTES,
                )
                .await;
                match inflated {
                    Ok(Some(bytes)) => match String::from_utf8(bytes) {
                        Ok(t) => {
                            crate::ui::evaluator::open_result::open_text(
                                state,
                                view,
                                t,
                                "a share link".into(),
                            )
                            .await
                        }
                        Err(_) => Err(damaged()),
                    },
                    Ok(None) => Err(gate::unpacked_too_far()),
                    Err(e) => Err(e.unwrap_or_else(|| {
                        "This browser cannot open share links (no DecompressionStream).".into()
                    })),
                }
            }
            Err(e) => Err(e),
        };
        state
            .settings
            .form_problems
            .set(outcome.err().into_iter().collect());
    });
}

/// Reads (once) and shows the result the lab left under `nonce`; the fragment is cleared, so a
/// reload shows the empty page rather than a sentence about a hand-over already read.
fn open_from_lab(state: AppState, view: OpenedView, nonce: &str) {
    let doc = crate::web::storage::take_setting(&crate::lab::open_doc::handover_key(nonce));
    if let Some(w) = web_sys::window() {
        let path = w.location().pathname().unwrap_or_default();
        let _ = w
            .history()
            .and_then(|h| h.replace_state_with_url(&JsValue::NULL, "", Some(&path)));
    }
    spawn_local(async move {
        crate::web::fetch::sleep(0, None).await;
        let outcome = match doc {
            Some(text) => match gate::size(gate::Origin::Lab, text.len() as f64) {
                Ok(()) => {
                    crate::ui::evaluator::open_result::open_text(
                        state,
                        view,
                        text,
                        "the lab".into(),
                    )
                    .await
                }
                Err(e) => Err(e),
            },
            None => Err(crate::lab::open_doc::HANDOVER_GONE.to_string()),
        };
        state
            .settings
            .form_problems
            .set(outcome.err().into_iter().collect());
    });
}

/// An iframe of the embed (`embed.html?embed`, which any site may frame) showing the result.
fn embed_code(link: &str) -> String {
    share::embed_code(&crate::files::site::embed_url(link, None))
}

#[component]
pub fn SharePanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let link = RwSignal::new(None::<Result<String, String>>);
    let url = move || link.get().and_then(Result::ok);
    // The embed's code, written with the link (in the share chunk).
    let embed = RwSignal::new(None::<String>);
    let embed_copied = RwSignal::new(false);
    let status = RwSignal::new(None::<String>);
    let copy_embed = move || {
        if let Some(code) = embed.get() {
            embed_copied.set(true);
            copy_and_say(code, "embed-code", "embed code", status);
        }
    };
    view! {
        <div class="share-row">
            <button type="button" data-testid="copy-link-button" on:click=move |_| { embed_copied.set(false); status.set(None); share_now(state, link, status, embed) }>"Copy link"</button>
            <button type="button" data-testid="copy-embed-button" disabled=move || embed.with(Option::is_none)
                on:click=move |_| copy_embed()>"Copy embed code"</button>
            <p class="copy-status" role="status" data-testid="copy-status">{move || status.get()}</p>
            <p class="share-link" data-testid="share-link" class:hidden=move || url().is_none()>{url}</p>
            <p class="hint" data-testid="embed-code" class:hidden=move || !embed_copied.get()>{move || embed.get()}</p>
            <p class="error" role="alert" data-testid="share-error">{move || link.get().and_then(Result::err)}</p>
        </div>
    }
}

/// Making the link (compressing the result), in the `share` chunk.
#[leptos::wasm_split::wasm_split(share, wasm_split_path = ::leptos::wasm_split, fallible)]
fn share_loaded(
    state: AppState,
    link: RwSignal<Option<Result<String, String>>>,
    status: RwSignal<Option<String>>,
    embed: RwSignal<Option<String>>,
) -> Result<(), crate::ui::lazy::ChunkMissing> {
    make_link(state, link, status, embed);
    Ok(())
}

/// Copy link.
fn share_now(
    state: AppState,
    link: RwSignal<Option<Result<String, String>>>,
    status: RwSignal<Option<String>>,
    embed: RwSignal<Option<String>>,
) {
    let load = crate::ui::lazy::loading(share_loaded(state, link, status, embed));
    spawn_local(async move {
        if load.await.is_err() {
            link.set(Some(Err(crate::ui::lazy::missing("the share link"))));
        }
    });
}
