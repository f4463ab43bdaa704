//! All the app's state, as signals, in one `Copy` struct provided through context.

use leptos::prelude::*;

use crate::aggregate::GAMMA_DEFAULT;
use crate::cost::DEFAULT_PRICES;
use crate::criteria::Criterion;
use crate::geometry::NormBox;
use crate::limiter::Limiter;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::fleur::{self, FleurResult};
use crate::metrics::g_veval::{self, GvevalResult};
use crate::metrics::harmonic_eval::{CriterionResult, CriterionSet};
use crate::metrics::maev;
use crate::metrics::Metric;
use crate::providers::{preset, Backend, ImageDetail, Tuning, PRESETS};
use crate::retry::RetryPolicy;
use crate::task::Task;
use crate::web::image::LoadedImage;
use crate::web::storage;

// In a leaf of their own: the candidates' state needs them, and this state holds the candidates.
pub use crate::ui::progress::{CriterionState, Progress, RunContext};

/// What "Check connection" found: one line per finding, and whether the backend is usable.
#[derive(Clone, Debug, PartialEq)]
pub enum ConnectionState {
    Idle,
    Checking,
    Done { ok: bool, lines: Vec<String> },
}

/// Progress of an "Explain" follow-up.
#[derive(Clone, Debug, PartialEq)]
pub enum ExplainState {
    Idle,
    Running,
    Done(String),
    Failed(String),
}

/// What the shown image is: the data URL as it will be sent, and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageView {
    pub data_url: String,
    pub file_name: String,
    pub original_size: (u32, u32),
    pub sent_size: (u32, u32),
    /// A video's three-frame composite (G-VEval), not a photo.
    pub is_video: bool,
    /// An animation's first frame, a file cut short.
    pub note: Option<&'static str>,
}

/// The inputs and backend of the last FLEUR / RefFLEUR run.
#[derive(Clone, Debug)]
pub struct FleurRun {
    pub input: fleur::Input,
    pub backend: Backend,
}

/// The inputs and backend of the last G-VEval run.
#[derive(Clone, Debug)]
pub struct GvevalRun {
    pub input: g_veval::Input,
    pub backend: Backend,
}

/// The inputs and backend of the last MAEV run.
#[derive(Clone, Debug)]
pub struct MaevRun {
    pub input: maev::Input,
    pub backend: Backend,
}

/// One MAEV trial: its examples (pool indices) and its progress.
pub type MaevTrial = ((usize, usize), Progress<maev::TrialReading>);

#[derive(Clone, Copy)]
pub struct AppState {
    /// The selected metric (`metric-select`'s value is its id).
    pub metric: RwSignal<Metric>,
    /// Paper (default) or our extensions; each extension names its metric, so one value serves
    /// every metric (a run uses [`AppState::fidelity_now`]).
    pub fidelity: RwSignal<Fidelity>,
    /// HarmonicEval's criteria to request and aggregate (all five by default).
    pub he_criteria: RwSignal<CriterionSet>,
    /// RefFLEUR's reference captions, one per line.
    pub references: RwSignal<String>,
    pub fleur: RwSignal<Progress<FleurResult>>,
    pub fleur_explanation: RwSignal<ExplainState>,
    pub fleur_run: StoredValue<Option<FleurRun>>,
    pub gv_mode: RwSignal<g_veval::Mode>,
    /// ACCR's four scores instead of one (video only).
    pub gv_accr: RwSignal<bool>,
    pub gveval: RwSignal<Progress<GvevalResult>>,
    pub gveval_run: StoredValue<Option<GvevalRun>>,
    pub maev_caption: RwSignal<String>,
    pub maev_reference: RwSignal<String>,
    pub maev_trials: RwSignal<u32>,
    pub maev_threshold: RwSignal<f64>,
    pub maev_seed: RwSignal<u32>,
    /// The few-shot pool, editable and kept on this device.
    pub maev_pool: RwSignal<Vec<maev::Example>>,
    pub maev_results: RwSignal<Vec<MaevTrial>>,
    pub maev_run: StoredValue<Option<MaevRun>>,
    /// The "caption the image first" helper's progress.
    pub maev_captioning: RwSignal<ExplainState>,
    pub task: RwSignal<Task>,
    pub text: RwSignal<String>,
    pub question: RwSignal<String>,

    pub preset: RwSignal<String>,
    pub base_url: RwSignal<String>,
    pub model: RwSignal<String>,
    pub api_key: RwSignal<String>,
    pub remember_key: RwSignal<bool>,
    pub max_side: RwSignal<u32>,
    /// Per-request time limit in seconds.
    pub timeout_s: RwSignal<u32>,
    pub image_detail: RwSignal<ImageDetail>,
    /// Requests to this provider in flight at once.
    pub concurrency: RwSignal<u32>,
    /// The output budget of the chosen metric's scoring requests on this provider.
    pub max_tokens: RwSignal<u32>,
    /// Repeatable mode: one request at a time, a fixed seed for sampling metrics (and, for
    /// llama.cpp, no prompt cache, which is always off there).
    pub repeatable: RwSignal<bool>,
    pub max_retries: RwSignal<u32>,
    /// Shared by every request to the provider; its limit follows `concurrency`.
    pub limiter: StoredValue<Limiter, LocalStorage>,
    /// Aborts the current run's requests and retry waits.
    pub cancel: StoredValue<Option<web_sys::AbortController>, LocalStorage>,
    /// Ignore cached answers for the next runs (they are still refreshed in the cache).
    pub fresh_run: RwSignal<bool>,
    /// Cached answers on this device; `None` when the browser refuses IndexedDB.
    pub cache_count: RwSignal<Option<u32>>,
    pub cache_message: RwSignal<Option<String>>,
    /// The editable price table (see `crate::cost`).
    pub prices: RwSignal<String>,
    pub connection: RwSignal<ConnectionState>,
    /// Model ids the last connection check listed, offered as suggestions.
    pub models: RwSignal<Vec<String>>,

    /// The file the image came from, so a new size limit can re-process it.
    pub image_file: StoredValue<Option<web_sys::File>, LocalStorage>,
    pub image: StoredValue<Option<LoadedImage>, LocalStorage>,
    pub image_view: RwSignal<Option<ImageView>>,
    pub image_error: RwSignal<Option<String>>,
    pub image_loading: RwSignal<bool>,
    pub red_box: RwSignal<Option<NormBox>>,

    pub criteria: [RwSignal<CriterionState>; 5],
    pub explanations: [RwSignal<ExplainState>; 5],
    pub gamma: RwSignal<f64>,
    pub run: StoredValue<Option<RunContext>>,
    /// Incremented by every Evaluate, so answers from an older run are ignored.
    pub generation: StoredValue<u64>,
    /// The usage of every answer the provider billed in the current run, readable or not.
    pub billed: RwSignal<Vec<crate::completion::Usage>>,
    /// Why Evaluate did not start (missing inputs), one sentence per problem.
    pub form_problems: RwSignal<Vec<String>>,
    pub export_error: RwSignal<Option<String>>,
    /// The last time the browser refused to store a setting or the key, what was not kept.
    pub storage_error: RwSignal<Option<String>>,
    /// Weights per criterion (None where it has no score) and the overall score at the current
    /// γ. Five numbers, recomputed on every slider move without any request.
    pub weighting: Memo<Weighting>,
    /// Several candidate texts for the same image (HarmonicEval; empty: one text).
    pub candidates: crate::ui::candidates_state::Candidates,
}

pub type Weighting = (Vec<Option<f64>>, Option<f64>);

pub const DEFAULT_MAX_SIDE: u32 = 1024;
/// All five criteria at once; lower it for a local server with fewer parallel slots.
pub const DEFAULT_CONCURRENCY: u32 = 5;
/// Generous: a local server may take a while to load the model on the first request.
pub const DEFAULT_TIMEOUT_S: u32 = 120;

/// A stored setting parsed, or `default` when it is missing or does not parse.
fn load_parsed<T: std::str::FromStr>(key: &str, default: T) -> T {
    storage::load_setting(key)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A stored JSON setting, or `default()` when it is missing or does not parse.
fn load_json<T: serde::de::DeserializeOwned>(key: &str, default: impl FnOnce() -> T) -> T {
    storage::load_setting(key)
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_else(default)
}

/// HarmonicEval's weights and overall score, following every criterion's state and γ.
fn weighting_memo(criteria: [RwSignal<CriterionState>; 5], gamma: RwSignal<f64>) -> Memo<Weighting> {
    Memo::new(move |_| {
        let states: Vec<CriterionState> = criteria.iter().map(|s| s.get()).collect();
        let results: Vec<Option<&CriterionResult>> = states.iter().map(|s| s.result()).collect();
        crate::metrics::harmonic_eval::weigh(&results, gamma.get())
    })
}

impl AppState {
    /// Fresh state, with the non-secret settings and the key restored from storage.
    pub fn restore() -> AppState {
        let preset_id = storage::load_setting("hj.preset").unwrap_or_else(|| PRESETS[0].id.into());
        let provider = ProviderSettings::load(&preset_id);
        let metric = storage::load_setting("hj.metric")
            .and_then(|m| Metric::from_id(&m))
            .unwrap_or(Metric::ALL[0]);
        let max_tokens = load_max_tokens(&preset_id, metric);
        let limit = if provider.repeatable { 1 } else { provider.concurrency as usize };
        let criteria: [RwSignal<CriterionState>; 5] =
            std::array::from_fn(|_| RwSignal::new(CriterionState::Idle));
        let gamma = RwSignal::new(GAMMA_DEFAULT);
        let weighting = weighting_memo(criteria, gamma);
        AppState {
            metric: RwSignal::new(metric),
            fidelity: RwSignal::new(Fidelity::paper()),
            he_criteria: RwSignal::new(CriterionSet::default()),
            references: RwSignal::new(String::new()),
            fleur: RwSignal::new(Progress::Idle),
            fleur_explanation: RwSignal::new(ExplainState::Idle),
            fleur_run: StoredValue::new(None),
            gv_mode: RwSignal::new(g_veval::Mode::RefFree),
            gv_accr: RwSignal::new(false),
            gveval: RwSignal::new(Progress::Idle),
            gveval_run: StoredValue::new(None),
            maev_caption: RwSignal::new(String::new()),
            maev_reference: RwSignal::new(String::new()),
            maev_trials: RwSignal::new(load_parsed("hj.maev.trials", maev::DEFAULT_TRIALS)),
            maev_threshold: RwSignal::new(load_parsed("hj.maev.threshold", maev::DEFAULT_THRESHOLD)),
            maev_seed: RwSignal::new(1),
            maev_pool: RwSignal::new(load_json("hj.maev.pool", maev::default_pool)),
            maev_results: RwSignal::new(Vec::new()),
            maev_run: StoredValue::new(None),
            maev_captioning: RwSignal::new(ExplainState::Idle),
            task: RwSignal::new(Task::Ic),
            text: RwSignal::new(String::new()),
            question: RwSignal::new(String::new()),
            preset: RwSignal::new(preset_id),
            base_url: RwSignal::new(provider.base_url),
            model: RwSignal::new(provider.model),
            api_key: RwSignal::new(provider.api_key),
            remember_key: RwSignal::new(provider.remember_key),
            image_detail: RwSignal::new(provider.image_detail),
            concurrency: RwSignal::new(provider.concurrency),
            max_tokens: RwSignal::new(max_tokens),
            repeatable: RwSignal::new(provider.repeatable),
            max_retries: RwSignal::new(load_parsed("hj.max_retries", RetryPolicy::default().max_retries)),
            limiter: StoredValue::new_local(Limiter::new(limit)),
            cancel: StoredValue::new_local(None),
            fresh_run: RwSignal::new(false),
            cache_count: RwSignal::new(None),
            cache_message: RwSignal::new(None),
            prices: RwSignal::new(load_parsed("hj.prices", DEFAULT_PRICES.to_string())),
            connection: RwSignal::new(ConnectionState::Idle),
            models: RwSignal::new(Vec::new()),
            max_side: RwSignal::new(load_parsed("hj.max_side", DEFAULT_MAX_SIDE)),
            timeout_s: RwSignal::new(load_parsed("hj.timeout_s", DEFAULT_TIMEOUT_S)),
            image_file: StoredValue::new_local(None),
            image: StoredValue::new_local(None),
            image_view: RwSignal::new(None),
            image_error: RwSignal::new(None),
            image_loading: RwSignal::new(false),
            red_box: RwSignal::new(None),
            criteria,
            explanations: std::array::from_fn(|_| RwSignal::new(ExplainState::Idle)),
            gamma,
            run: StoredValue::new(None),
            generation: StoredValue::new(0),
            billed: RwSignal::new(Vec::new()),
            form_problems: RwSignal::new(Vec::new()),
            export_error: RwSignal::new(None),
            storage_error: RwSignal::new(None),
            weighting,
            candidates: crate::ui::candidates_state::Candidates::new(),
        }
    }

    pub fn backend(&self) -> Backend {
        let p = preset(&self.preset.get_untracked());
        Backend {
            protocol: p.protocol,
            base_url: self.base_url.get_untracked(),
            model: self.model.get_untracked(),
            api_key: self.api_key.get_untracked(),
            image_detail: self.image_detail.get_untracked(),
            tuning: Tuning {
                max_tokens: Some(self.max_tokens.get_untracked()),
                llama_cpp: p.llama_cpp,
                repeatable: self.repeatable.get_untracked(),
            },
        }
    }

    /// Requests to the provider at once: one in repeatable mode, else the user's number.
    pub fn effective_concurrency(&self) -> u32 {
        if self.repeatable.get() {
            1
        } else {
            self.concurrency.get().max(1)
        }
    }

    /// Switches provider: the current one's settings are already saved; the new one's come
    /// back as the user left them (or from its preset).
    pub fn switch_provider(&self, preset_id: String) {
        let p = ProviderSettings::load(&preset_id);
        self.preset.set(preset_id);
        self.base_url.set(p.base_url);
        self.model.set(p.model);
        self.api_key.set(p.api_key);
        self.remember_key.set(p.remember_key);
        self.image_detail.set(p.image_detail);
        self.concurrency.set(p.concurrency);
        self.repeatable.set(p.repeatable);
        self.max_tokens
            .set(load_max_tokens(&self.preset.get_untracked(), self.metric.get_untracked()));
        self.models.set(Vec::new());
        self.connection.set(ConnectionState::Idle);
    }

    /// The extensions of the selected metric that are switched on (untracked).
    pub fn fidelity_now(&self) -> Fidelity {
        let metric = self.metric.get_untracked();
        self.fidelity.with_untracked(|f| f.for_metric(metric))
    }

    /// Whether HarmonicEval is selected (what only it shows: task, γ, criteria).
    pub fn is_harmonic(&self) -> bool {
        self.metric.get() == Metric::HarmonicEval
    }

    /// Whether the current file is a video.
    pub fn has_video(&self) -> bool {
        self.image_view
            .with(|v| v.as_ref().is_some_and(|v| v.is_video))
    }

    /// The REG box is drawn into the image only for HarmonicEval's REG task.
    pub fn box_active(&self) -> bool {
        self.is_harmonic() && self.task.get().needs_box()
    }

    pub fn criterion(&self, c: Criterion) -> RwSignal<CriterionState> {
        self.criteria[c.index()]
    }

    pub fn explanation(&self, c: Criterion) -> RwSignal<ExplainState> {
        self.explanations[c.index()]
    }
}

/// One provider's saved settings, or its preset's defaults.
struct ProviderSettings {
    base_url: String,
    model: String,
    api_key: String,
    remember_key: bool,
    image_detail: ImageDetail,
    concurrency: u32,
    repeatable: bool,
}

/// The output budget the user set for this metric on this provider, or its default there.
pub fn load_max_tokens(preset_id: &str, metric: Metric) -> u32 {
    let default = metric.info().default_max_tokens(preset(preset_id).local);
    storage::load_provider_setting(preset_id, &format!("max_tokens.{}", metric.id()))
        .and_then(|s| s.parse().ok())
        .filter(|&n: &u32| n >= 1)
        .unwrap_or(default)
}

impl ProviderSettings {
    fn load(preset_id: &str) -> ProviderSettings {
        let p = preset(preset_id);
        let get = |name: &str| storage::load_provider_setting(preset_id, name);
        let (api_key, remember_key) = storage::load_api_key(preset_id);
        ProviderSettings {
            base_url: get("base_url").unwrap_or_else(|| p.base_url.into()),
            model: get("model").unwrap_or_else(|| p.model.into()),
            api_key,
            remember_key,
            image_detail: ImageDetail::from_id(&get("detail").unwrap_or_default()),
            concurrency: get("concurrency")
                .and_then(|s| s.parse().ok())
                .filter(|&n| n >= 1)
                .unwrap_or(DEFAULT_CONCURRENCY),
            repeatable: get("repeatable").map_or(p.local, |s| s == "true"),
        }
    }
}
