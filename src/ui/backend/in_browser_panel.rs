//! The "In this browser (llama.cpp)" provider's settings: which model (a suggested one, any
//! GGUF URL, or files from this computer), its download and load progress, the browser's model
//! cache, and whether the engine runs multi-threaded. Shown only for that provider; mounting it
//! is what first loads the engine's JavaScript.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::providers::in_browser::gpu::{self, GpuChoice, Probe};
use crate::providers::in_browser::meter;
use crate::providers::in_browser::{
    build_sentence, size_text, threads_sentence, unsupported, SUGGESTIONS,
};
use crate::web::in_browser::{self as engine, Loaded, Source};

/// The GPU setting's key in the settings storage.
const GPU_KEY: &str = "hj.in_browser.gpu";

#[derive(Clone, Copy)]
struct Panel {
    status: RwSignal<&'static str>,
    fraction: RwSignal<f64>,
    message: RwSignal<String>,
    threads: RwSignal<String>,
    cache: RwSignal<Vec<(String, f64)>>,
    url: RwSignal<String>,
    projector_url: RwSignal<String>,
    /// This browser cannot run the engine: nothing may be downloaded, so the load buttons are off.
    cannot: RwSignal<bool>,
    /// The GPU setting, what the browser offers, and the status line (`gpu-status`) with its
    /// backend (`data-backend`: `webgpu`, `cpu`, or "" before a model is loaded).
    gpu: RwSignal<GpuChoice>,
    probe: RwSignal<Probe>,
    gpu_status: RwSignal<String>,
    backend: RwSignal<&'static str>,
    /// What loading the model in the URL fields will download and need (`model-size-info`).
    size_info: RwSignal<String>,
    /// Which build of llama.cpp runs or will run, and why (`engine-build-info`).
    build: RwSignal<String>,
    /// Whether the browser lets the page keep downloaded models (`model-cache-note`).
    keeps: RwSignal<bool>,
}

impl Panel {
    fn refresh(self) {
        spawn_local(async move {
            match engine::facts().await {
                Ok(f) => {
                    let threads = f.loaded.as_ref().map(|l| l.threads);
                    let cannot = unsupported(&f.missing);
                    let runs = cannot.is_none();
                    self.threads.set(threads_sentence(
                        runs, f.isolated, &f.coep, threads, f.cores,
                    ));
                    if let Some(s) = cannot {
                        self.cannot.set(true);
                        self.status.set("error");
                        self.message.set(s);
                    }
                    self.probe.set(f.gpu);
                    self.keeps.set(f.keeps_files);
                    let (build, why) = f.loaded.as_ref().map_or(&f.build, |l| &l.build);
                    if runs {
                        self.build
                            .set(build_sentence(build, why, f.loaded.is_some()));
                    }
                    match f.loaded {
                        Some(l) => self.ready(&l),
                        None => self.expect(),
                    }
                }
                Err(e) => {
                    self.status.set("error");
                    self.message
                        .set(format!("The in-page engine is unavailable: {e}."));
                }
            }
            if let Ok(list) = engine::cache_list().await {
                self.cache.set(list);
            }
        });
    }

    /// The status line before a model is loaded: what the setting will do here.
    fn expect(self) {
        self.backend.set("");
        self.gpu_status.set(gpu::expect(
            self.gpu.get_untracked(),
            &self.probe.get_untracked(),
        ));
    }

    fn ready(self, l: &Loaded) {
        self.backend.set(l.backend.id());
        self.gpu_status.set(gpu::status(
            l.engine(),
            l.why.as_ref(),
            &l.placement,
            &self.probe.get_untracked(),
            l.agreed.as_ref(),
            l.steps,
        ));
        self.status.set("ready");
        self.fraction.set(1.0);
        let gguf = crate::providers::in_browser::gguf::slow_note;
        let slow = [
            gguf(l.file_type),
            l.vision
                .then(|| {
                    crate::providers::in_browser::gguf::projector_note(
                        l.projector_type,
                        l.f16_projector.as_ref(),
                    )
                })
                .flatten(),
        ]
        .into_iter()
        .flatten()
        .map(|s| format!(" {s}"))
        .collect::<String>();
        self.message.set(format!(
            "Loaded {} ({}). Evaluate as with any provider.{}",
            l.name,
            if l.vision {
                "with a vision projector: images are judged"
            } else {
                "no projector: text only"
            },
            slow
        ));
    }

    fn load(self, source: Source) {
        self.status.set("downloading");
        self.fraction.set(0.0);
        self.message.set("Starting…".into());
        spawn_local(async move {
            let progress = move |phase: String, value: f64| {
                let checking = phase == "checking";
                let phase = if phase == "loading" || checking {
                    "loading"
                } else {
                    "downloading"
                };
                self.status.set(phase);
                self.fraction.set(value.clamp(0.0, 1.0));
                self.message.set(if checking {
                    gpu::CHECKING.into()
                } else if phase == "loading" {
                    "Loading the model into the engine…".into()
                } else {
                    format!("Downloading… {:.0} %", value * 100.0)
                });
            };
            match engine::load(source, self.gpu.get_untracked(), progress).await {
                Ok(l) => self.ready(&l),
                Err(e) => {
                    self.status.set("error");
                    self.message.set(e);
                }
            }
            self.refresh();
        });
    }
}

impl Panel {
    fn load_url(self) {
        let projector = Some(self.projector_url.get_untracked()).filter(|s| !s.trim().is_empty());
        let model = self.url.get_untracked();
        if model.trim().is_empty() {
            self.status.set("error");
            self.message
                .set("Enter the model's GGUF URL, or pick its file below.".into());
            return;
        }
        self.load(Source::Url { model, projector });
    }

    fn load_files(self) {
        match picked("model-file-input") {
            Some(model) => self.load(Source::Files {
                model,
                projector: picked("projector-file-input"),
            }),
            None => {
                self.status.set("error");
                self.message
                    .set("Pick the model's .gguf file first.".into());
            }
        }
    }

    fn clear(self) {
        spawn_local(async move {
            if let Err(e) = engine::cache_clear().await {
                self.message
                    .set(format!("The model cache could not be cleared: {e}."));
            }
            self.refresh();
        });
    }
}

fn picked(id: &str) -> Option<web_sys::File> {
    let input: web_sys::HtmlInputElement = document().get_element_by_id(id)?.dyn_into().ok()?;
    input.files()?.get(0)
}

/// The model the site file names for its visitors, ready to load; a site file that arrives
/// later (`ui::site::revalidate`) replaces it where the visitor has not typed another.
fn follow_site_model(p: Panel) {
    Effect::new(move |named: Option<(String, String)>| {
        let j = crate::ui::site::tracked();
        let j = j
            .judge
            .as_ref()
            .filter(|j| crate::providers::preset(&j.provider).in_page());
        let resolved =
            |u: Option<&String>| u.map(|u| crate::ui::site::resolve(u)).unwrap_or_default();
        let now = (
            resolved(j.and_then(|j| j.model_url.as_ref())),
            resolved(j.and_then(|j| j.projector_url.as_ref())),
        );
        let (model, projector) = named.unwrap_or_default();
        untrack(|| {
            if p.url.get() == model {
                p.url.set(now.0.clone());
            }
            if p.projector_url.get() == projector {
                p.projector_url.set(now.1.clone());
            }
        });
        now
    });
}

#[component]
pub fn InBrowserPanel() -> impl IntoView {
    let p = Panel {
        status: RwSignal::new("idle"),
        fraction: RwSignal::new(0.0),
        message: RwSignal::new("No model loaded yet.".into()),
        threads: RwSignal::new(String::new()),
        cache: RwSignal::new(Vec::new()),
        url: RwSignal::new(String::new()),
        projector_url: RwSignal::new(String::new()),
        cannot: RwSignal::new(false),
        gpu: RwSignal::new(GpuChoice::from_id(
            &crate::web::storage::load_setting(GPU_KEY).unwrap_or_default(),
        )),
        probe: RwSignal::new(Probe::default()),
        gpu_status: RwSignal::new(String::new()),
        backend: RwSignal::new(""),
        size_info: RwSignal::new(String::new()),
        build: RwSignal::new(String::new()),
        keeps: RwSignal::new(true),
    };
    follow_site_model(p);
    // The GPU failed while answering and the engine came back on the CPU: the status line says so.
    crate::web::in_browser::on_restart(move || {
        if p.gpu_status.try_get_untracked().is_some() {
            p.refresh();
        }
    });
    p.refresh();
    size_watch(p);
    let busy = move || matches!(p.status.get(), "downloading" | "loading");
    let off = move || p.cannot.get() || busy();
    let error = move || p.status.get() == "error";
    view! {
        <div class="in-browser">
            <p class="hint">
                "The judge runs inside this page (llama.cpp in WebAssembly): no key, no server. \
                 Suggested small vision models (model and projector):"
            </p>
            {url_fields(p)}
            <p class="hint" data-testid="model-size-info">{move || p.size_info.get()}</p>
            <button type="button" data-testid="load-model-button" on:click=move |_| p.load_url() disabled=off>"Load from URL"</button>
            <div class="field">
                <label for="model-file-input">"Or a model file from this computer"</label>
                <input id="model-file-input" data-testid="model-file-input" type="file" accept=".gguf"/>
                <label for="projector-file-input">"and its projector file (optional)"</label>
                <input id="projector-file-input" data-testid="projector-file-input" type="file" accept=".gguf"/>
            </div>
            <button type="button" data-testid="load-files-button" on:click=move |_| p.load_files() disabled=off>"Load the picked files"</button>
            <progress
                data-testid="model-load-progress"
                aria-label="Model download and load"
                max="1"
                prop:value=move || p.fraction.get()
                data-value=move || format!("{:.3}", p.fraction.get())
                data-status=move || p.status.get()
            ></progress>
            <p
                class=move || if error() { "error" } else { "hint" }
                data-testid="model-load-status"
                role=move || if error() { "alert" } else { "status" }
            >{move || p.message.get()}</p>
            <p class="hint" data-testid="threads-info">{move || p.threads.get()}</p>
            <p class="hint" data-testid="engine-build-info">{move || p.build.get()}</p>
            {gpu_fields(p)}
            {cache_list(p)}
            <button type="button" data-testid="clear-model-cache-button" on:click=move |_| p.clear() disabled=busy>"Clear the model cache"</button>
        </div>
    }
}

/// The suggested models and the model and projector URLs.
fn url_fields(p: Panel) -> impl IntoView {
    view! {
        <ul class="suggestions">
            {SUGGESTIONS.iter().map(|s| view! {
                <li>
                    <button type="button" disabled=move || p.cannot.get()
                        on:click=move |_| { p.url.set(s.url.into()); p.projector_url.set(s.projector.into()); }>
                        "Use " {s.label}
                    </button>
                    " " {s.size}
                </li>
            }).collect_view()}
        </ul>
        <div class="field">
            <label for="model-url-input">"Model GGUF URL"</label>
            <input id="model-url-input" data-testid="model-url-input" type="url" prop:value=move || p.url.get()
                on:input=move |ev| p.url.set(event_target_value(&ev))/>
        </div>
        <div class="field">
            <label for="projector-url-input">"Projector (mmproj) GGUF URL, for images"</label>
            <input id="projector-url-input" data-testid="projector-url-input" type="url" prop:value=move || p.projector_url.get()
                on:input=move |ev| p.projector_url.set(event_target_value(&ev))/>
        </div>
    }
}

/// What the browser's model cache holds, with sizes.
fn cache_list(p: Panel) -> impl IntoView {
    view! {
        <p class="hint" data-testid="model-cache-note">{move || if p.keeps.get() {
            "Models in this browser's cache (loaded again without downloading):"
        } else {
            "This browser gives the page no file storage (a private window, or WebKit under \
             automation), so a model is held in memory for this visit only and downloaded again \
             on the next:"
        }}</p>
        <ul data-testid="model-cache-list">
            {move || p.cache.get().into_iter().map(|(url, size)| view! {
                <li data-url=url.clone()>{url.clone()} " · " {size_text(size)}</li>
            }).collect_view()}
        </ul>
    }
}

/// The GPU setting and the status line: which backend runs, and why not the GPU.
fn gpu_fields(p: Panel) -> impl IntoView {
    let busy = move || matches!(p.status.get(), "downloading" | "loading");
    let choose = move |ev| {
        let choice = GpuChoice::from_id(&event_target_value(&ev));
        p.gpu.set(choice);
        let _ = crate::web::storage::save_setting(GPU_KEY, choice.id());
        if p.status.get_untracked() == "ready" {
            // The loaded model keeps its backend until it is loaded again.
            p.gpu_status.update(|s| {
                if !s.contains("Load the model again") {
                    s.push_str(" Load the model again to apply the new setting.");
                }
            });
        } else {
            p.expect();
        }
    };
    view! {
        <div class="field">
            <label for="gpu-select">"Compute on"</label>
            <select id="gpu-select" data-testid="gpu-select" on:change=choose disabled=busy
                prop:value=move || p.gpu.get().id()>
                {GpuChoice::ALL.iter().map(|c| view! { <option value=c.id()>{c.label()}</option> }).collect_view()}
            </select>
        </div>
        <p class="hint" data-testid="gpu-status" role="status" data-backend=move || p.backend.get()>
            {move || p.gpu_status.get()}
        </p>
    }
}

/// What the model in the URL fields will download and need, asked of its server (a HEAD
/// request, no credentials) or found in the browser's cache; "" while nothing is entered.
fn size_watch(p: Panel) {
    Effect::new(move |_| {
        let model = p.url.get();
        let projector = p.projector_url.get();
        let cache = p.cache.get();
        // A browser that cannot run the engine asks nothing of the model's server.
        if model.trim().is_empty() || p.cannot.get() {
            p.size_info.set(String::new());
            return;
        }
        spawn_local(async move {
            // Asked once typing pauses, not for every keystroke's half-written URL.
            crate::web::fetch::sleep(600, None).await;
            if p.url.get_untracked() != model
                || p.projector_url.get_untracked() != projector
                || p.cannot.get_untracked()
            {
                return;
            }
            let urls: Vec<String> = [model, projector]
                .into_iter()
                .map(|u| u.trim().to_string())
                .filter(|u| !u.is_empty())
                .collect();
            let cached = urls.iter().all(|u| cache.iter().any(|(c, _)| c == u));
            let mut sizes = Vec::new();
            for u in &urls {
                let known = cache.iter().find(|(c, _)| c == u).map(|(_, n)| *n);
                sizes.push(match known {
                    Some(n) => Some(n),
                    None => crate::web::fetch::content_length(u).await,
                });
            }
            // The fields may have changed meanwhile: only the current URLs' sizes are shown.
            if p.url.get_untracked().trim() == urls[0] {
                p.size_info.set(meter::before_loading(&sizes, cached));
            }
        });
    });
}
