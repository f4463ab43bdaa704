//! The transport of the "In this browser (llama.cpp)" provider: instead of `fetch`, the request
//! body goes to llama.cpp running in a worker of this page (`@wllama/wllama`, through the bridge
//! `dist/wllama/in_browser.js`), and its answer comes back as the JSON text llama-server would
//! send. The bridge is loaded on first use only, by a `<script type=module>` the CSP allows
//! (`script-src 'self'`), so the first visit never downloads it. Decisions live in
//! `providers::in_browser`.

use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::errors::JudgeError;
use crate::providers::in_browser::{self as core, Route};
use crate::providers::HttpRequest;
use crate::web::response::RawResponse;

const BRIDGE: &str = "wllama/in_browser.js";
const SCRIPT_ID: &str = "hj-in-browser";

/// The loaded model, as the engine reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    pub name: String,
    pub vision: bool,
    pub threads: u32,
    pub multithread: bool,
    /// Which files are loaded and on how many threads: part of the answer cache's key.
    pub identity: String,
}

/// What the page can do, and what is loaded.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Facts {
    pub missing: Vec<String>,
    pub isolated: bool,
    /// The Cross-Origin-Embedder-Policy the page was served with, "" when none (or isolated).
    pub coep: String,
    pub cores: u32,
    pub loaded: Option<Loaded>,
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn num(obj: &JsValue, key: &str) -> f64 {
    get(obj, key).as_f64().unwrap_or(0.0)
}

fn text(obj: &JsValue, key: &str) -> String {
    get(obj, key).as_string().unwrap_or_default()
}

fn read_loaded(v: &JsValue) -> Option<Loaded> {
    if !v.is_object() {
        return None;
    }
    Some(Loaded {
        name: text(v, "name"),
        vision: get(v, "vision").is_truthy(),
        threads: num(v, "threads") as u32,
        multithread: get(v, "multithread").is_truthy(),
        identity: text(v, "identity"),
    })
}

fn error_text(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| get(e, "message").as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// The bridge's API object, loading it on first use.
async fn bridge() -> Result<JsValue, String> {
    let window = web_sys::window().ok_or("no window")?;
    let api = get(&window, "hjInBrowser");
    if api.is_object() {
        return Ok(api);
    }
    let document = window.document().ok_or("no document")?;
    let waiting = Promise::new(&mut |resolve, reject| {
        let _ = window.add_event_listener_with_callback("hj-in-browser-ready", &resolve);
        let script = match document.get_element_by_id(SCRIPT_ID) {
            Some(s) => s,
            None => {
                let Ok(s) = document.create_element("script") else {
                    return;
                };
                let _ = s.set_attribute("type", "module");
                let _ = s.set_attribute("src", BRIDGE);
                s.set_id(SCRIPT_ID);
                if let Some(head) = document.head() {
                    let _ = head.append_child(&s);
                }
                s
            }
        };
        let _ = script.add_event_listener_with_callback("error", &reject);
    });
    JsFuture::from(waiting).await.map_err(|_| {
        // Let a later attempt insert the script again.
        if let Some(s) = document.get_element_by_id(SCRIPT_ID) {
            s.remove();
        }
        "the in-page engine (wllama/in_browser.js) could not be loaded from this site".to_string()
    })?;
    let api = get(&window, "hjInBrowser");
    if api.is_object() {
        Ok(api)
    } else {
        Err("the in-page engine did not start".into())
    }
}

async fn call(method: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let api = bridge().await?;
    let f: Function = get(&api, method)
        .dyn_into()
        .map_err(|_| format!("the in-page engine has no {method}"))?;
    let array: js_sys::Array = args.iter().collect();
    let out = f.apply(&api, &array).map_err(|e| error_text(&e))?;
    match out.dyn_into::<Promise>() {
        Ok(p) => JsFuture::from(p).await.map_err(|e| error_text(&e)),
        Err(v) => Ok(v),
    }
}

/// What the browser supports and what is loaded (loads the bridge).
pub async fn facts() -> Result<Facts, String> {
    let f = call("facts", &[]).await?;
    let missing = js_sys::Array::from(&get(&f, "missing"))
        .iter()
        .filter_map(|v| v.as_string())
        .collect();
    Ok(Facts {
        missing,
        isolated: get(&f, "isolated").is_truthy(),
        coep: text(&f, "coep"),
        cores: num(&f, "cores") as u32,
        loaded: read_loaded(&get(&f, "loaded")),
    })
}

/// Where a model comes from.
pub enum Source {
    Url { model: String, projector: Option<String> },
    Files { model: web_sys::File, projector: Option<web_sys::File> },
}

/// Downloads (or takes from the browser's cache) and loads a model; `progress` hears
/// ("downloading" | "loading", fraction). Errors are sentences. A browser that cannot run the
/// engine is told so before anything is downloaded.
pub async fn load(source: Source, progress: impl Fn(String, f64) + 'static) -> Result<Loaded, String> {
    if let Some(sentence) = core::unsupported(&facts().await?.missing) {
        return Err(sentence);
    }
    let spec = Object::new();
    let set = |k: &str, v: &JsValue| {
        let _ = Reflect::set(&spec, &JsValue::from_str(k), v);
    };
    match &source {
        Source::Url { model, projector } => {
            set("url", &JsValue::from_str(model.trim()));
            if let Some(p) = projector {
                set("mmprojUrl", &JsValue::from_str(p.trim()));
            }
        }
        Source::Files { model, projector } => {
            let files: js_sys::Array = std::iter::once(JsValue::from(model.clone()))
                .chain(projector.iter().map(|p| JsValue::from(p.clone())))
                .collect();
            set("files", &files);
        }
    }
    let on_progress = Closure::<dyn Fn(String, f64)>::new(progress);
    let check = Closure::<dyn Fn(String, Uint8Array, f64) -> JsValue>::new(
        |label: String, head: Uint8Array, size: f64| {
            JsValue::from_str(&core::check_file(&label, &head.to_vec(), size).unwrap_or_default())
        },
    );
    let out = call(
        "load",
        &[spec.into(), on_progress.as_ref().clone(), check.as_ref().clone()],
    )
    .await;
    drop((on_progress, check));
    let loaded = out.map_err(|e| core::load_failure(&e))?;
    read_loaded(&loaded).ok_or_else(|| "the in-page engine gave no model facts".into())
}

/// The models in the browser's cache: (URL, bytes).
pub async fn cache_list() -> Result<Vec<(String, f64)>, String> {
    let list = call("cacheList", &[]).await?;
    Ok(js_sys::Array::from(&list)
        .iter()
        .map(|e| (text(&e, "url"), num(&e, "size")))
        .collect())
}

pub async fn cache_clear() -> Result<(), String> {
    call("cacheClear", &[]).await.map(|_| ())
}

fn answer(status: u16, body: String) -> RawResponse {
    RawResponse {
        status,
        retry_after: None,
        body,
    }
}

/// Answers one request built for the in-browser preset as llama-server would.
pub async fn send(
    req: &HttpRequest,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<RawResponse, JudgeError> {
    let setting = |message: String| JudgeError::Setting { message };
    let facts = facts().await.map_err(setting)?;
    if let Some(sentence) = core::unsupported(&facts.missing) {
        return Err(setting(sentence));
    }
    let Some(loaded) = facts.loaded else {
        return Err(core::chat_failure("not-loaded"));
    };
    match core::route(&req.url) {
        Route::Models => Ok(answer(200, core::models_body(&loaded.name))),
        Route::Props => Ok(answer(200, core::props_body(&loaded.name, loaded.vision))),
        Route::Unknown => Ok(answer(
            404,
            r#"{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}"#.into(),
        )),
        Route::Chat => {
            let body = match core::prepare_chat(&req.body, loaded.vision) {
                Ok(b) => b,
                Err((status, refusal)) => return Ok(answer(status, refusal)),
            };
            let signal = signal.map_or(JsValue::UNDEFINED, |s| s.clone().into());
            let out = call("chat", &[JsValue::from_str(&body), signal])
                .await
                .map_err(|e| core::chat_failure(&e))?;
            Ok(answer(200, out.as_string().unwrap_or_default()))
        }
    }
}
