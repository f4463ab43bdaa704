//! The site file in the page: the copy the build wrote into the page (`#hj-site`, see
//! `crate::files::site_fresh`), so no request comes before the first paint, or a copy of the
//! host's `site.json` learned on an earlier visit when the owner edited it without rebuilding;
//! a page the build did not finish (Trunk's own serve) fetches `site.json` from its own origin
//! before the app mounts, as before (a 404 means there is none: today's defaults). It is read by
//! the core (`crate::files::site`, in the `site` chunk, so a site without one never downloads the
//! reader), and kept for the settings, the top bar, the metric picker and the in-page judge to
//! read. [`revalidate`], after the page is up, learns of an owner's edit. Also: whether the page
//! is the embed, and the refusal to run inside another site's frame.

use std::rc::Rc;

use leptos::prelude::{ArcRwSignal, Track, Update};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::files::site::{Site, SiteJudge};

thread_local! {
    static SITE: std::cell::RefCell<Rc<Site>> = std::cell::RefCell::new(Rc::new(Site::default()));
    static PROBLEM: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// The site file's text the page uses now (`None`: none), so the host's later answer is
    /// applied only where it says something else.
    static USED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// Counts the site files applied after the page mounted (issue 58): what reads
    /// [`tracked`] follows the host's answer when it arrives.
    static REVISION: ArcRwSignal<u32> = ArcRwSignal::new(0);
    /// The page's own `<title>`, for a site file that names none after one that did.
    static PAGE_TITLE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// What the site file says (the defaults when there is none or it was refused). Untracked:
/// read once where a value is set up; [`tracked`] where it is shown.
pub fn get() -> Rc<Site> {
    SITE.with(|s| s.borrow().clone())
}

/// [`get`], tracked: a view or an effect that reads it runs again when the host's site file
/// arrives after the page mounted and says something else ([`revalidate`]).
pub fn tracked() -> Rc<Site> {
    REVISION.with(|r| r.track());
    get()
}

/// Why the site file was not used, if it was refused (tracked, like [`tracked`]).
pub fn problem() -> Option<String> {
    REVISION.with(|r| r.track());
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
    crate::files::site::is_embed(
        &l.search().unwrap_or_default(),
        &l.pathname().unwrap_or_default(),
    )
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
    if crate::files::share::payload(&hash).is_some()
        || crate::lab::open_doc::handover_nonce(&hash).is_some()
    {
        return None;
    }
    crate::files::site::embed_example(&l.search().unwrap_or_default())
        .or_else(|| get().open_example.clone())
}

/// `u` resolved against the page's address (a model on the site itself may be named by path).
pub fn resolve(u: &str) -> String {
    let base = location().and_then(|l| l.href().ok()).unwrap_or_default();
    web_sys::Url::new_with_base(u, &base)
        .map(|x| x.href())
        .unwrap_or_else(|_| u.to_string())
}

/// GETs `path` from this site (same origin, no credentials, no redirects): Some(text) on 200,
/// None on 404, Err otherwise: `Err(Some(sentence))` where the gate refuses the body's size
/// (checked before it is read as text, `crate::files::gate::size`), `Err(None)` for any other failure.
/// `fresh`: revalidate, never a stale copy (the site file, which the owner may have just changed).
pub async fn get_site_text(
    path: &str,
    fresh: bool,
    origin: crate::files::gate::Origin,
) -> Result<Option<String>, Option<String>> {
    let window = web_sys::window().ok_or(None)?;
    let init = web_sys::RequestInit::new();
    init.set_credentials(web_sys::RequestCredentials::SameOrigin);
    init.set_redirect(web_sys::RequestRedirect::Error);
    if fresh {
        init.set_cache(web_sys::RequestCache::NoCache);
    }
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str_and_init(path, &init))
        .await
        .map_err(|_| None)?
        .dyn_into()
        .map_err(|_| None)?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.ok() {
        return Err(None);
    }
    let blob: web_sys::Blob = JsFuture::from(response.blob().map_err(|_| None)?)
        .await
        .map_err(|_| None)?
        .unchecked_into();
    crate::files::gate::size(origin, blob.size()).map_err(Some)?;
    crate::web::files::text(&blob)
        .await
        .map(Some)
        .map_err(|_| None)
}

#[leptos::wasm_split::wasm_split(site, wasm_split_path = ::leptos::wasm_split, fallible)]
fn parse_loaded(text: String) -> Result<Result<Site, String>, crate::ui::lazy::ChunkMissing> {
    Ok(crate::files::site::parse(&text))
}

/// Where the host's site file, learned against one build, is kept (`site_fresh::to_keep`).
const KEPT: &str = "hj.site.file";

/// What the build wrote into the page (`<meta id="hj-site" content>`): `Some(None)` built without a site file,
/// `Some(Some(raw))` with one, as written (a JSON string, read in the `site` chunk); `None`
/// where the build wrote nothing (then the page fetches `site.json` first).
fn built_in() -> Option<Option<String>> {
    let doc = web_sys::window()?.document()?;
    let raw = doc.get_element_by_id("hj-site")?.get_attribute("content")?;
    Some(Some(raw).filter(|r| r.trim() != "null"))
}

/// In the `site` chunk, everything past what the page holds: the text of the built-in copy
/// (`raw`, as the build wrote it), the host's answer and the kept copy give the text to use and
/// what to keep now (`None`: forget it).
#[leptos::wasm_split::wasm_split(site, wasm_split_path = ::leptos::wasm_split, fallible)]
fn settle(
    raw: Option<String>,
    host: Option<Option<String>>,
    kept: Option<String>,
) -> Result<(Option<String>, Option<Option<String>>), crate::ui::lazy::ChunkMissing> {
    use crate::files::site_fresh::{read_embedded, to_keep, to_use};
    let built = raw.and_then(|r| read_embedded(&r)).flatten();
    // The host's answer decides what is kept now; without one, what was kept before stands.
    let keep = host.map(|host| to_keep(built.as_deref(), host.as_deref()));
    let kept_now = keep.clone().unwrap_or(kept);
    Ok((to_use(built.as_deref(), kept_now.as_deref()), keep))
}

/// How long a page that holds no site file of its own (built without one, none kept from an
/// earlier visit) waits for the host's answer before it mounts with its defaults: the request
/// left beside the wasm and is a few hundred bytes, so it is nearly always here by then, and a
/// site whose file was served from the first byte then opens as that site, not as the default
/// page that a moment later changes under the visitor (issue 72). A slow host's answer still
/// applies when it comes ([`revalidate`]).
const FIRST_VISIT_WAIT_MS: i32 = 1_000;

/// How long [`host_copy`] waits for the host's answer.
#[derive(Clone, Copy)]
enum Wait {
    /// Only an answer already here.
    Settled,
    /// At most this many milliseconds.
    Within(i32),
    /// Until it comes.
    Answer,
}

/// What the host answered for `site.json` to the request the page's loader started beside the
/// wasm (`window.hjSite`, scripts/finish_dist.py): `Some(Some(text))`, `Some(None)` for none
/// (404), `None` for no answer (within `wait`) or a failure.
async fn host_copy(wait: Wait) -> Option<Option<String>> {
    let window = web_sys::window()?;
    let pending: js_sys::Promise = js_sys::Reflect::get(&window, &"hjSite".into())
        .ok()?
        .dyn_into()
        .ok()?;
    // "Not yet" settles as `undefined`, which reads as no answer.
    let not_yet = |ms: i32| {
        js_sys::Promise::new(&mut |resolve, _| {
            if ms == 0 {
                let _ = resolve.call0(&wasm_bindgen::JsValue::UNDEFINED);
            } else {
                let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
            }
        })
    };
    let promise = match wait {
        // Whichever is settled first: the answer, if it is already here, else "not yet".
        Wait::Settled => js_sys::Promise::race(&js_sys::Array::of2(&pending, &not_yet(0))),
        Wait::Within(ms) => js_sys::Promise::race(&js_sys::Array::of2(&pending, &not_yet(ms))),
        Wait::Answer => pending,
    };
    let answer = JsFuture::from(promise).await.ok()?;
    if answer.is_null() {
        return Some(None);
    }
    let text = answer.as_string()?;
    crate::files::gate::size(crate::files::gate::Origin::Any, text.len() as f64).ok()?;
    Some(Some(text))
}

/// The site file's text, from the page, the host's answer beside the wasm or the kept copy
/// (`site_fresh`), storing what to keep; `None`: no site file. Without the chunk where there is
/// no site file anywhere (built without one, none kept, the host has none or has not answered).
async fn settled_text(
    raw: Option<String>,
    host: Option<Option<String>>,
) -> Result<Option<String>, ()> {
    let kept = crate::web::storage::load_setting(KEPT);
    if raw.is_none() && kept.is_none() && !matches!(host, Some(Some(_))) {
        return Ok(None);
    }
    let (text, keep) = crate::ui::lazy::loading(settle(raw, host, kept))
        .await
        .map_err(|_| ())?;
    if let Some(keep) = keep {
        crate::web::storage::keep_setting(KEPT, keep.as_deref()).ok();
    }
    Ok(text)
}

/// Reads the site file (`site.json`, or `../site.json` from the lab at `path`) with no request
/// before the page shows: the host's answer when it arrived beside the wasm (an owner's edit
/// since the build counts at once, and is kept for the next visits), else the copy the build
/// wrote in (or the host's, learned on an earlier visit). A page the build did not finish
/// fetches it first, as before. An answer that comes after this is applied by [`revalidate`].
pub async fn load(path: &str) {
    let fetched = match built_in() {
        Some(raw) => {
            let holds_none = raw.is_none() && crate::web::storage::load_setting(KEPT).is_none();
            let wait = if holds_none {
                Wait::Within(FIRST_VISIT_WAIT_MS)
            } else {
                Wait::Settled
            };
            settled_text(raw, host_copy(wait).await)
                .await
                .map_err(|_| None)
        }
        None => get_site_text(path, true, crate::files::gate::Origin::Any).await,
    };
    match fetched {
        Ok(text) => apply(text).await,
        Err(refused) => {
            let m = refused.unwrap_or_else(|| {
                "This site's site.json could not be fetched; the page keeps its defaults."
                    .to_string()
            });
            PROBLEM.with(|p| *p.borrow_mut() = Some(m));
        }
    }
}

/// Makes `text` (`None`: no site file) the site file the page reads: parsed in the `site`
/// chunk (a refused one leaves the defaults and its sentence), and the document's title.
async fn apply(text: Option<String>) {
    USED.with(|u| *u.borrow_mut() = text.clone());
    let outcome = match text {
        None => Ok(Site::default()),
        Some(text) => match crate::ui::lazy::loading(parse_loaded(text)).await {
            Ok(read) => read,
            Err(_) => Err(crate::ui::lazy::missing("reading this site's site.json")),
        },
    };
    let (site, problem) = match outcome {
        Ok(site) => (site, None),
        Err(m) => (Site::default(), Some(m)),
    };
    PROBLEM.with(|p| *p.borrow_mut() = problem);
    let title = site.title.clone();
    SITE.with(|s| *s.borrow_mut() = Rc::new(site));
    if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
        let own = PAGE_TITLE.with(|t| t.borrow_mut().get_or_insert_with(|| doc.title()).clone());
        doc.set_title(&title.unwrap_or(own));
    }
}

/// After the page is up: waits for the host's answer to the loader's request (a page the build
/// finished has both the copy and the request), keeps it for the next visit where it differs
/// from the built-in copy, and, where it says something else than the page used, applies it
/// now (issue 58): what reads [`tracked`] follows. Nothing where the build wrote no copy (the
/// page fetched it just now) or the host did not answer.
pub async fn revalidate() {
    let Some(raw) = built_in() else { return };
    let Some(host) = host_copy(Wait::Answer).await else {
        return;
    };
    let Ok(text) = settled_text(raw, Some(host)).await else {
        return;
    };
    let same =
        USED.with(|u| u.borrow().as_deref().map(str::trim) == text.as_deref().map(str::trim));
    if !same {
        apply(text).await;
        REVISION.with(|r| r.update(|n| *n += 1));
    }
}

/// Where the suggestion of the last visit is remembered (`site_suggested::Suggested`, JSON).
const SUGGESTED_KEY: &str = "hj.site.suggested";

/// The note said once when the site's suggestion changed since the last visit while the
/// visitor keeps a value of their own (`site_suggested::changed_note`): a signal set soon
/// after, from the `site` chunk, and only where there is a site file now or a suggestion was
/// remembered (a site without one never fetches the chunk for it).
pub fn changed_note() -> leptos::prelude::RwSignal<Option<String>> {
    use leptos::prelude::Set;
    let note = leptos::prelude::RwSignal::new(None);
    let remembered = crate::web::storage::load_setting(SUGGESTED_KEY);
    if remembered.is_some() || *get() != Site::default() {
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(Some(said)) = crate::ui::lazy::loading(suggestion_changed(remembered)).await {
                note.try_set(Some(said));
            }
        });
    }
    note
}

/// After the host's site file was applied to a mounted page ([`revalidate`]): the note that
/// its suggestion changed where the visitor keeps a value of their own, as on a later visit;
/// `None` where nothing of theirs differs (or the chunk could not be fetched).
pub async fn note_after_change() -> Option<String> {
    let remembered = crate::web::storage::load_setting(SUGGESTED_KEY);
    crate::ui::lazy::loading(suggestion_changed(remembered))
        .await
        .ok()
        .flatten()
}

/// In the `site` chunk: compares the suggestion now with the one `remembered`, against what
/// the visitor stored themselves, and remembers the one now.
#[leptos::wasm_split::wasm_split(site, wasm_split_path = ::leptos::wasm_split, fallible)]
fn suggestion_changed(
    remembered: Option<String>,
) -> Result<Option<String>, crate::ui::lazy::ChunkMissing> {
    use crate::files::site_suggested::{changed_note, Own, Suggested};
    use crate::web::storage::{load_provider_setting, load_setting, save_setting};
    let now = Suggested::of(&get());
    let before = remembered.as_deref().and_then(Suggested::from_json);
    let own = Own {
        preset: load_setting("hj.preset"),
        base_url: load_provider_setting(&now.preset, "base_url"),
        model: load_provider_setting(&now.preset, "model"),
        metric: load_setting("hj.metric"),
    };
    let note = changed_note(before.as_ref(), &now, &own);
    if before.as_ref() != Some(&now) {
        save_setting(SUGGESTED_KEY, &now.to_json()).ok();
    }
    Ok(note)
}

/// Whether a page of another origin frames this one (reading its address is then refused).
fn framed_by_other_origin() -> bool {
    let Some(w) = web_sys::window() else {
        return false;
    };
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
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return true;
    };
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
