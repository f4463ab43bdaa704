//! The site file in the page: `site.json` fetched from the page's own origin before the app
//! mounts (a 404 means there is none: today's defaults), read by the core (`crate::files::site`, in the
//! `site` chunk, so a site without one never downloads the reader), and kept for the settings,
//! the top bar, the metric picker and the in-page judge to read. Also: whether the page is the
//! embed, and the refusal to run inside another site's frame.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::files::site::{Site, SiteJudge};

thread_local! {
    static SITE: std::cell::RefCell<Rc<Site>> = std::cell::RefCell::new(Rc::new(Site::default()));
    static PROBLEM: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// What the site file says (the defaults when there is none or it was refused).
pub fn get() -> Rc<Site> {
    SITE.with(|s| s.borrow().clone())
}

/// Why the site file was not used, if it was refused.
pub fn problem() -> Option<String> {
    PROBLEM.with(|p| p.borrow().clone())
}

/// The site's judge, when it presets `preset_id`.
pub fn judge_for(preset_id: &str) -> Option<SiteJudge> {
    get().judge.clone().filter(|j| j.provider == preset_id)
}

fn location() -> Option<web_sys::Location> {
    web_sys::window().map(|w| w.location())
}

/// Whether this page is the embed (`?embed`, or `embed.html`).
pub fn embed() -> bool {
    let Some(l) = location() else { return false };
    crate::files::site::is_embed(&l.search().unwrap_or_default(), &l.pathname().unwrap_or_default())
}

/// Whether this page may send a request to a judge: always, except in the embed, which sends
/// only to a key-less judge the site file names.
pub fn may_send() -> bool {
    !embed() || get().keyless_judge()
}

/// The sentence for an action the embed does not take.
pub const EMBED_SENDS_NOTHING: &str =
    "This embedded view sends nothing to any judge: open it in the full evaluator to judge or explain.";

/// The example to open first: the address's `?example=` (a link from the embed), else the
/// site file's `open_example`. None when the page opens a share link or the lab's result.
pub fn first_example() -> Option<String> {
    let l = location()?;
    let hash = l.hash().unwrap_or_default();
    if crate::files::share::payload(&hash).is_some() || crate::lab::open_doc::handover_nonce(&hash).is_some() {
        return None;
    }
    crate::files::site::embed_example(&l.search().unwrap_or_default()).or_else(|| get().open_example.clone())
}

/// `u` resolved against the page's address (a model on the site itself may be named by path).
pub fn resolve(u: &str) -> String {
    let base = location().and_then(|l| l.href().ok()).unwrap_or_default();
    web_sys::Url::new_with_base(u, &base).map(|x| x.href()).unwrap_or_else(|_| u.to_string())
}

/// GETs `path` from this site (same origin, no credentials, no redirects): Some(text) on 200,
/// None on 404, Err otherwise: `Err(Some(sentence))` where the gate refuses the body's size
/// (checked before it is read as text, `crate::files::gate::size`), `Err(None)` for any other failure.
/// `fresh`: revalidate, never a stale copy (the site file, which the owner may have just changed).
pub async fn get_site_text(path: &str, fresh: bool, origin: crate::files::gate::Origin) -> Result<Option<String>, Option<String>> {
    let window = web_sys::window().ok_or(None)?;
    let init = web_sys::RequestInit::new();
    init.set_credentials(web_sys::RequestCredentials::SameOrigin);
    init.set_redirect(web_sys::RequestRedirect::Error);
    if fresh {
        init.set_cache(web_sys::RequestCache::NoCache);
    }
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str_and_init(path, &init)).await.map_err(|_| None)?.dyn_into().map_err(|_| None)?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.ok() {
        return Err(None);
    }
    let blob: web_sys::Blob = JsFuture::from(response.blob().map_err(|_| None)?).await.map_err(|_| None)?.unchecked_into();
    crate::files::gate::size(origin, blob.size()).map_err(Some)?;
    crate::web::files::text(&blob).await.map(Some).map_err(|_| None)
}

#[leptos::wasm_split::wasm_split(site, wasm_split_path = ::leptos::wasm_split, fallible)]
fn parse_loaded(text: String) -> Result<Result<Site, String>, crate::ui::widgets::lazy::ChunkMissing> {
    Ok(crate::files::site::parse(&text))
}

/// Fetches and reads the site file at `path` (`site.json`, or `../site.json` from the lab).
pub async fn load(path: &str) {
    let outcome = match get_site_text(path, true, crate::files::gate::Origin::Any).await {
        Ok(None) => return,
        Ok(Some(text)) => match crate::ui::widgets::lazy::loading(parse_loaded(text)).await {
            Ok(read) => read,
            Err(_) => Err(crate::ui::widgets::lazy::missing("reading this site's site.json")),
        },
        Err(refused) => Err(refused.unwrap_or_else(|| "This site's site.json could not be fetched; the page keeps its defaults.".to_string())),
    };
    match outcome {
        Ok(site) => SITE.with(|s| *s.borrow_mut() = Rc::new(site)),
        Err(m) => PROBLEM.with(|p| *p.borrow_mut() = Some(m)),
    }
    if let (Some(title), Some(doc)) = (get().title.clone(), web_sys::window().and_then(|w| w.document())) {
        doc.set_title(&title);
    }
}

/// Whether a page of another origin frames this one (reading its address is then refused).
fn framed_by_other_origin() -> bool {
    let Some(w) = web_sys::window() else { return false };
    match w.top() {
        Ok(Some(top)) => !js_sys::Object::is(&top, &w) && top.location().href().is_err(),
        // No access to the top window at all: treat as framed by a stranger.
        _ => true,
    }
}

/// The full evaluator and the lab hold a key field: framed by another site (which could lay
/// its own page over it), they show a sentence and a link to open them in their own tab
/// instead of themselves. The `frame-ancestors 'self'` header, where the host sends it, stops
/// the frame before this runs; a `<meta>` CSP cannot (browsers ignore frame-ancestors there).
/// Returns whether it refused.
pub fn refuse_frame() -> bool {
    if embed() || !framed_by_other_origin() {
        return false;
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return true };
    let href = location().and_then(|l| l.href().ok()).unwrap_or_default();
    if let Some(body) = doc.body() {
        body.set_text_content(None);
        let p = doc.create_element("p").ok();
        let a = doc.create_element("a").ok();
        if let (Some(p), Some(a)) = (p, a) {
            p.set_attribute("data-testid", "framed-refusal").ok();
            p.set_text_content(Some(crate::files::site::FRAMED));
            a.set_attribute("href", &href).ok();
            a.set_attribute("target", "_blank").ok();
            a.set_attribute("rel", "noopener noreferrer").ok();
            a.set_text_content(Some(" open harmonic-judge"));
            p.append_child(&a).ok();
            body.append_child(&p).ok();
        }
    }
    true
}
