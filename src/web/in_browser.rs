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

use std::cell::RefCell;

use crate::answers::errors::JudgeError;
use crate::providers::in_browser::gpu::{self, Compute, Engine, GpuChoice, NoGpu, Probe};
use crate::providers::in_browser::gpu_check::Agreed;
use crate::providers::in_browser::images::{EngineProgress, ImageFigures, ImageViews};
use crate::providers::in_browser::meter::Meter;
use crate::providers::in_browser::placement::Placement;
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
    /// Which files are loaded, on how many threads and on which backend: part of the answer
    /// cache's key.
    pub identity: String,
    /// Where it computes, read from llama.cpp's own lines about its layers and buffers.
    pub backend: Compute,
    /// What llama.cpp said it put on the GPU (layers, buffers' sizes, the adapter's words).
    pub placement: Placement,
    /// Why not the GPU (when it is not used), as decided at load time.
    pub why: Option<NoGpu>,
    /// On the GPU after Automatic's check agreed with the CPU: what it found.
    pub agreed: Option<Agreed>,
    /// On the GPU with the GPU setting: the prompt steps a kept check's measured speed chose.
    pub steps: Option<u32>,
    /// The model's quantization (`general.file_type` of its GGUF header), when read.
    pub file_type: Option<u32>,
    /// The projector's (its matrices' type), when one was loaded and read.
    pub projector_type: Option<u32>,
    /// What our build did with the projector's F16 tensors (held as F32, or kept and why).
    pub f16_projector: Option<crate::providers::in_browser::gguf::F16Projector>,
    /// Which build of llama.cpp runs it (`memory32`, `memory64`) and why (the bridge's word).
    pub build: (String, String),
}

impl Loaded {
    pub fn engine(&self) -> Engine {
        Engine {
            backend: self.backend,
            threads: self.threads.max(1),
        }
    }
}

type Hearer = Box<dyn Fn(String)>;
/// The interval's id and its callback (kept alive while it runs).
type Ticker = (i32, Closure<dyn FnMut()>);

thread_local! {
    /// Why the GPU is not used by the model loaded last (kept here: the bridge knows only
    /// what the engine did, not what was asked).
    static WHY: RefCell<Option<NoGpu>> = const { RefCell::new(None) };
    /// What Automatic's check found, when the model loaded last is on the GPU after it.
    static AGREED: RefCell<Option<Agreed>> = const { RefCell::new(None) };
    /// For the model loaded last on the GPU: where Automatic's check is (or would be) kept (its
    /// localStorage key), to remember there a GPU that then fails while answering; whether
    /// Automatic chose the GPU (else the GPU setting did); the adapter's words, for a record
    /// the GPU setting starts.
    static CHECKED: RefCell<Option<(String, bool, String)>> = const { RefCell::new(None) };
    /// The prompt steps a kept check's measured speed chose for the GPU setting's load.
    static STEPS: RefCell<Option<u32>> = const { RefCell::new(None) };
    /// The model loaded, as last read, for the synchronous [`loaded_now`]: its identity and
    /// engine only, so the first visit's code carries nothing more of this provider.
    static LOADED: RefCell<Option<(String, Engine)>> = const { RefCell::new(None) };
    /// Who hears the `judge-timing` line (the run bar), and the timer that refreshes it while
    /// the engine has requests waiting.
    static ON_TIMING: RefCell<Option<Hearer>> = const { RefCell::new(None) };
    static TICKER: RefCell<Option<Ticker>> = const { RefCell::new(None) };
    /// Who hears that the engine was started again on the CPU after the GPU failed while
    /// answering (the panel, whose status line then says so).
    static ON_RESTART: RefCell<Option<Box<dyn Fn()>>> = const { RefCell::new(None) };
    /// The quantization of the model file being loaded (its header, read by the file check).
    static FILE_TYPE: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) };
    /// The same of the projector being loaded, if any.
    static PROJECTOR_TYPE: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) };
    /// The requests of the current burst, for the time per answer and the time left.
    static METER: RefCell<Meter> = RefCell::new(Meter::default());
    /// The views read of the last image answered about (what an export records).
    static LAST_VIEWS: std::cell::Cell<Option<ImageViews>> = const { std::cell::Cell::new(None) };
}

/// The views the loaded model read of the last image it answered about since the last run
/// began, for the export; `None` before such an answer (a run answered from the cache, a text
/// alone, another model loaded since, a result opened from a file).
pub fn image_views_now() -> Option<ImageViews> {
    LAST_VIEWS.with(std::cell::Cell::get)
}

/// A run begins or a result is opened: the views read before are not this result's.
pub fn forget_image_views() {
    LAST_VIEWS.with(|v| v.set(None));
}

/// The model loaded, as last read (no call to the bridge): its identity (for the answer
/// cache's key) and its backend and threads (what a run records).
pub fn loaded_now() -> Option<(String, Engine)> {
    LOADED.with(|l| l.borrow().clone())
}

/// `hear` gets the `judge-timing` line (each answer's time and about how long the rest will
/// take) every second while the engine has requests waiting, and once more after the last.
pub fn on_timing(hear: impl Fn(String) + 'static) {
    ON_TIMING.with(|h| *h.borrow_mut() = Some(Box::new(hear)));
}

/// `hear` is called when the engine has been started again on the CPU by itself (the GPU failed
/// while answering), after the loaded model's facts were read again.
pub fn on_restart(hear: impl Fn() + 'static) {
    ON_RESTART.with(|h| *h.borrow_mut() = Some(Box::new(hear)));
}

fn tell_timing() {
    if let Some(p) = engine_progress() {
        METER.with(|m| m.borrow_mut().progress(p));
    }
    let line = METER.with(|m| m.borrow().sentence(js_sys::Date::now()));
    ON_TIMING.with(|h| {
        if let Some(hear) = h.borrow().as_ref() {
            hear(line);
        }
    });
}

/// Marks one request for the engine as queued (its answer was not in the cache) until it is
/// dropped: the transport holds it around the limiter, the retries and the engine, so the
/// meter sees every request of a run, also those waiting their turn one at a time.
pub struct Queued;

pub fn queued() -> Queued {
    METER.with(|m| m.borrow_mut().sent(js_sys::Date::now()));
    Queued
}

impl Drop for Queued {
    fn drop(&mut self) {
        METER.with(|m| m.borrow_mut().answered(js_sys::Date::now()));
    }
}

/// Refreshes the `judge-timing` line every second while requests wait, and once more after
/// the last (the timer stops itself then).
fn keep_timing() {
    tell_timing();
    TICKER.with(|t| {
        let mut t = t.borrow_mut();
        if t.is_some() {
            return;
        }
        let tick = Closure::<dyn FnMut()>::new(|| {
            tell_timing();
            if METER.with(|m| m.borrow().waiting()) == 0 {
                if let Some((id, _tick)) = TICKER.with(|t| t.borrow_mut().take()) {
                    if let Some(w) = web_sys::window() {
                        w.clear_interval_with_handle(id);
                    }
                }
            }
        });
        if let Some(id) = web_sys::window().and_then(|w| {
            w.set_interval_with_callback_and_timeout_and_arguments_0(
                tick.as_ref().unchecked_ref(),
                1000,
            )
            .ok()
        }) {
            *t = Some((id, tick));
        }
    });
}

/// What our build last said of the request it reads (`hjInBrowser.progress()`, synchronous);
/// `None` before the bridge is loaded or when it heard nothing.
fn engine_progress() -> Option<EngineProgress> {
    let window = web_sys::window()?;
    let api = get(&window, "hjInBrowser");
    let progress = get(&api, "progress").dyn_into::<Function>().ok()?;
    let json = progress.call0(&api).ok()?.as_string()?;
    EngineProgress::parse(&json)
}

/// What the page can do, and what is loaded.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Facts {
    pub missing: Vec<String>,
    pub isolated: bool,
    /// The Cross-Origin-Embedder-Policy the page was served with, "" when none (or isolated).
    pub coep: String,
    pub cores: u32,
    /// What the browser offers for the GPU path.
    pub gpu: Probe,
    /// Whether downloaded models are kept for later visits (the browser offers the page its
    /// private file system); otherwise the bridge holds them in memory for this visit.
    pub keeps_files: bool,
    /// The build a model of ordinary size would run on the CPU here, and why.
    pub build: (String, String),
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
    let lines = strings(&get(v, "lines"));
    let backend = gpu::used(&lines);
    let loaded = Loaded {
        name: text(v, "name"),
        vision: get(v, "vision").is_truthy(),
        threads: num(v, "threads") as u32,
        multithread: get(v, "multithread").is_truthy(),
        identity: gpu::identity(&text(v, "identity"), backend),
        backend,
        placement: Placement::read(&lines),
        why: match backend {
            Compute::WebGpu => None,
            // Started again on the CPU after the GPU failed while answering: the bridge says
            // why; otherwise why the load kept it on the CPU.
            Compute::Cpu => {
                let answering = Some(text(v, "gpuError")).filter(|e| e.starts_with(gpu::ANSWERING));
                match (answering, WHY.with(|w| w.borrow().clone())) {
                    // Automatic's check had chosen the GPU: the failure is remembered there.
                    (Some(_), Some(why @ NoGpu::CheckFailed(_))) => Some(why),
                    (Some(e), _) => Some(gpu::failed(&e)),
                    (None, why) => why,
                }
            }
        },
        agreed: match backend {
            Compute::WebGpu => AGREED.with(|a| a.borrow().clone()),
            Compute::Cpu => None,
        },
        steps: match backend {
            Compute::WebGpu => STEPS.with(|s| *s.borrow()),
            Compute::Cpu => None,
        },
        file_type: FILE_TYPE.with(std::cell::Cell::get),
        projector_type: PROJECTOR_TYPE.with(std::cell::Cell::get),
        f16_projector: crate::providers::in_browser::gguf::F16Projector::read(&text(
            v,
            "projector",
        )),
        build: (text(v, "build"), text(v, "buildWhy")),
    };
    LOADED.with(|l| {
        let mut l = l.borrow_mut();
        if l.as_ref().map(|(id, _)| id) != Some(&loaded.identity) {
            forget_image_views();
        }
        *l = Some((loaded.identity.clone(), loaded.engine()));
    });
    Some(loaded)
}

fn strings(v: &JsValue) -> Vec<String> {
    if !js_sys::Array::is_array(v) {
        return Vec::new();
    }
    js_sys::Array::from(v)
        .iter()
        .filter_map(|s| s.as_string())
        .collect()
}

fn read_probe(v: &JsValue) -> Probe {
    Probe {
        api: get(v, "api").is_truthy(),
        adapter: get(v, "adapter").is_truthy(),
        features: strings(&get(v, "features")),
        vendor: text(v, "vendor"),
        architecture: text(v, "architecture"),
        device: text(v, "device"),
    }
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
        gpu: read_probe(&get(&f, "gpu")),
        keeps_files: get(&f, "keepsFiles").is_truthy(),
        build: {
            let b = get(&f, "build");
            (text(&b, "build"), text(&b, "why"))
        },
        loaded: {
            let loaded = read_loaded(&get(&f, "loaded"));
            if loaded.is_none() {
                LOADED.with(|l| *l.borrow_mut() = None);
                forget_image_views();
            }
            loaded
        },
    })
}

/// Where a model comes from.
pub enum Source {
    Url {
        model: String,
        projector: Option<String>,
    },
    Files {
        model: web_sys::File,
        projector: Option<web_sys::File>,
    },
}

/// Downloads (or takes from the browser's cache) and loads a model; `progress` hears
/// ("downloading" | "loading" | "checking", fraction). Errors are sentences. A browser that
/// cannot run the engine is told so before anything is downloaded. `choice` is the GPU setting:
/// the GPU is offered to the engine only where [`gpu::plan`] allows, Automatic's only after its
/// check against the CPU ([`super::in_browser_check`]), and a GPU load that fails is done again
/// on the CPU, with the reason kept for the status line.
pub async fn load(
    source: Source,
    choice: GpuChoice,
    progress: impl Fn(String, f64) + 'static,
) -> Result<Loaded, String> {
    let facts = facts().await?;
    if let Some(sentence) = core::unsupported(&facts.missing) {
        return Err(sentence);
    }
    let planned = gpu::plan(choice, &facts.gpu);
    FILE_TYPE.with(|t| t.set(None));
    PROJECTOR_TYPE.with(|t| t.set(None));
    let model = model_identity(&source);
    let progress = std::rc::Rc::new(progress);
    let loader = Loader::new(&source, progress.clone());
    let key = crate::providers::in_browser::gpu_check::key(&facts.gpu, &model);
    let auto = choice == GpuChoice::Auto;
    // The GPU setting reads prompts in the steps a kept check measured this adapter for.
    let steps = (!auto && planned.is_ok())
        .then(|| super::in_browser_check::kept_steps(&key))
        .flatten();
    let (loaded, why, agreed) = if auto && planned.is_ok() {
        super::in_browser_check::automatic(&loader, &facts.gpu, &model, &*progress).await?
    } else {
        let loaded = loader.load(planned.is_ok(), steps.unwrap_or(0)).await?;
        let why = why_not(planned, &loaded);
        (loaded, why, None)
    };
    let lines = strings(&get(&loaded, "lines"));
    let on_gpu = gpu::used(&lines) == Compute::WebGpu;
    let adapter = gpu::adapter_words(&Placement::read(&lines), &facts.gpu);
    WHY.with(|w| *w.borrow_mut() = why);
    STEPS.with(|s| *s.borrow_mut() = steps.filter(|_| on_gpu));
    // A GPU that fails while answering is remembered for Automatic, whoever chose it.
    let checked = (on_gpu && (agreed.is_some() || !auto)).then_some((key, auto, adapter));
    AGREED.with(|a| *a.borrow_mut() = agreed);
    CHECKED.with(|c| *c.borrow_mut() = checked);
    read_loaded(&loaded).ok_or_else(|| "the in-page engine gave no model facts".into())
}

/// The model's identity for Automatic's remembered check: its URLs, or the picked files' names,
/// sizes and dates (as the bridge names them).
fn model_identity(source: &Source) -> String {
    match source {
        Source::Url { model, projector } => format!(
            "url:{}|{}",
            model.trim(),
            projector.as_deref().unwrap_or("").trim()
        ),
        Source::Files { model, projector } => std::iter::once(model)
            .chain(projector.iter())
            .map(|f| format!("{}:{}:{}", f.name(), f.size(), f.last_modified()))
            .collect::<Vec<_>>()
            .join("|"),
    }
}

/// Why a load is not on the GPU, from what was planned and what the bridge said.
fn why_not(planned: Result<(), NoGpu>, loaded: &JsValue) -> Option<NoGpu> {
    let failed = text(loaded, "gpuError");
    let lines = strings(&get(loaded, "lines"));
    match planned {
        Err(why) => Some(why),
        Ok(()) if !failed.is_empty() => Some(gpu::failed(&failed)),
        Ok(()) => Some(NoGpu::EngineDeclined(
            gpu::offload_line(&lines).unwrap_or_default(),
        )),
    }
}

/// The bridge's check of a file's first bytes (and the quantization kept from them).
type FileCheck = Closure<dyn Fn(String, Uint8Array, f64) -> JsValue>;

/// One model's source and the bridge's callbacks, to load it once or more (Automatic's check
/// loads it on the CPU and on the GPU).
struct Loader {
    spec: Object,
    on_progress: Closure<dyn Fn(String, f64)>,
    check: FileCheck,
}

impl Loader {
    fn new(source: &Source, progress: std::rc::Rc<dyn Fn(String, f64)>) -> Loader {
        let spec = Object::new();
        let set = |k: &str, v: &JsValue| {
            let _ = Reflect::set(&spec, &JsValue::from_str(k), v);
        };
        match source {
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
        let on_progress = Closure::<dyn Fn(String, f64)>::new(move |p, v| progress(p, v));
        let check = FileCheck::new(|label: String, head: Uint8Array, size: f64| {
            let head = head.to_vec();
            // The model's header, not a projector's (which gives `None`).
            if let Some(t) = core::gguf::file_type(&head) {
                FILE_TYPE.with(|f| f.set(Some(t)));
            }
            if let Some(t) = core::gguf::projector_file_type(&head) {
                PROJECTOR_TYPE.with(|f| f.set(Some(t)));
            }
            JsValue::from_str(&core::check_file(&label, &head, size).unwrap_or_default())
        });
        Loader {
            spec,
            on_progress,
            check,
        }
    }
}

impl super::in_browser_check::Bridge for Loader {
    async fn load(&self, gpu: bool, batch: u32) -> Result<JsValue, String> {
        Loader::load(self, gpu, batch).await
    }

    async fn ask(&self, body: &str, limit_ms: u32) -> Result<String, String> {
        let args = [
            JsValue::from_str(body),
            JsValue::UNDEFINED,
            JsValue::from_f64(f64::from(limit_ms)),
        ];
        let out = call("chat", &args).await?;
        Ok(out.as_string().unwrap_or_default())
    }

    fn lines(&self, loaded: &JsValue) -> Vec<String> {
        strings(&get(loaded, "lines"))
    }

    fn vision(&self, loaded: &JsValue) -> bool {
        get(loaded, "vision").is_truthy()
    }

    fn why_not(&self, loaded: &JsValue) -> Option<NoGpu> {
        why_not(Ok(()), loaded)
    }
}

impl Loader {
    /// Loads the model (on the GPU when `gpu`, with prompt steps of `batch` tokens there, 0 for
    /// the engine's default); the bridge's facts of it.
    async fn load(&self, gpu: bool, batch: u32) -> Result<JsValue, String> {
        call(
            "load",
            &[
                self.spec.clone().into(),
                self.on_progress.as_ref().clone(),
                self.check.as_ref().clone(),
                JsValue::from_bool(gpu),
                JsValue::from_f64(f64::from(batch)),
            ],
        )
        .await
        .map_err(|e| core::load_failure(&e))
    }
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

/// Answers one request built for the in-browser preset as llama-server would. The engine's
/// transport lives in the provider's own chunk (with its settings panel), fetched on the first
/// request, so the first visit carries none of it.
/// `idle_ms`: the time limit, counted from the engine's last word of progress.
pub async fn send(
    req: &HttpRequest,
    signal: Option<&web_sys::AbortSignal>,
    idle_ms: u32,
) -> Result<RawResponse, JudgeError> {
    match send_in_chunk(req.clone(), signal.cloned(), idle_ms).await {
        Ok(answer) => answer.await,
        Err(_) => Err(JudgeError::Setting {
            message: "The in-page judge could not be loaded from this site. Check the connection and reload the page."
                .into(),
        }),
    }
}

type Answering =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<RawResponse, JudgeError>>>>;

/// The provider's chunk could not be fetched (offline, a half-deployed site).
struct NotFetched;

impl From<leptos::wasm_split::SplitLoaderError> for NotFetched {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> Self {
        NotFetched
    }
}

#[leptos::wasm_split::wasm_split(in_browser, wasm_split_path = ::leptos::wasm_split, fallible)]
fn send_in_chunk(
    req: HttpRequest,
    signal: Option<web_sys::AbortSignal>,
    idle_ms: u32,
) -> Result<Answering, NotFetched> {
    Ok(Box::pin(async move {
        answer_request(&req, signal.as_ref(), idle_ms).await
    }))
}

async fn answer_request(
    req: &HttpRequest,
    signal: Option<&web_sys::AbortSignal>,
    idle_ms: u32,
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
            keep_timing();
            let idle = JsValue::from_f64(f64::from(idle_ms));
            let out = call("chat", &[JsValue::from_str(&body), signal, idle]).await;
            if let Err(e) = &out {
                if let Some(reason) = e
                    .strip_prefix("gpu-failed:")
                    .or_else(|| e.strip_prefix("gpu-failed-dead:"))
                {
                    // Automatic keeps this model on the CPU from now on; where Automatic had
                    // chosen the GPU, the status line says so (the GPU setting's says the
                    // engine started again on the CPU).
                    if let Some((key, auto, adapter)) = CHECKED.with(|c| c.borrow_mut().take()) {
                        let why = super::in_browser_check::remember_failure(&key, &adapter, reason);
                        AGREED.with(|a| *a.borrow_mut() = None);
                        STEPS.with(|s| *s.borrow_mut() = None);
                        if auto {
                            WHY.with(|w| *w.borrow_mut() = Some(why));
                        }
                    }
                    // The engine now runs on the CPU (or not at all): the loaded facts (the
                    // answer cache's identity, what a run records) and the panel follow.
                    let _ = self::facts().await;
                    ON_RESTART.with(|h| {
                        if let Some(hear) = h.borrow().as_ref() {
                            hear();
                        }
                    });
                }
            }
            let out = out
                .map_err(|e| match e.as_str() {
                    "idle-timeout" => JudgeError::Timeout {
                        seconds: idle_ms / 1000,
                    },
                    _ => core::chat_failure(&e),
                })?
                .as_string()
                .unwrap_or_default();
            if let Some(f) = ImageFigures::of_answer(&out) {
                METER.with(|m| m.borrow_mut().images(f));
                if let Some(views) = ImageViews::of_figures(f) {
                    LAST_VIEWS.with(|l| l.set(Some(views)));
                }
            }
            Ok(answer(200, out))
        }
    }
}
