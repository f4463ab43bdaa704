//! What both pages show and share: the metric and its settings, the backend, the size images
//! are sent at, and the sentences about the form and storage. The evaluator's own state is
//! [`crate::ui::state::AppState`]; the lab's is `BatchState`.

use leptos::prelude::*;

use crate::files::site_suggested::{keep, suggested_base_url, suggested_model, Suggested};
use crate::metrics::fidelity::Fidelity;
use crate::metrics::CriterionSet;
use crate::metrics::Metric;
use crate::scoring::gamma_axis::GAMMA_DEFAULT;
use crate::ui::state::backend::{load_parsed, BackendState};
use crate::web::storage;

/// What both pages show and share: the metric and its settings, the backend, the size images
/// are sent at, and the sentences about the form and storage.
#[derive(Clone, Copy)]
pub struct Settings {
    /// The selected metric (`metric-select`'s value is its id).
    pub metric: RwSignal<Metric>,
    /// Paper (default) or our extensions; each extension names its metric, so one value serves
    /// every metric (a run uses [`Settings::fidelity_now`]).
    pub fidelity: RwSignal<Fidelity>,
    /// The provider, its settings, limiter, Cancel, cache figures and connection check.
    pub provider: BackendState,
    pub max_side: RwSignal<u32>,
    /// Why a run did not start (missing inputs), one sentence per problem.
    pub form_problems: RwSignal<Vec<String>>,
    /// The last time the browser refused to store a setting or the key, what was not kept.
    pub storage_error: RwSignal<Option<String>>,
    /// HarmonicEval's criteria to request and aggregate (all five by default).
    pub chosen_criteria: RwSignal<CriterionSet>,
    pub gamma: RwSignal<f64>,
    /// Said once: the site's suggestion changed since the last visit where the visitor keeps a
    /// value of their own (`files::site_suggested::changed_note`).
    pub site_note: RwSignal<Option<String>>,
}

pub const DEFAULT_MAX_SIDE: u32 = crate::inputs::pipeline::MAX_SIDE;

impl Settings {
    /// The settings kept on this device (and the key where the user chose), or the defaults.
    pub fn restore() -> Settings {
        // The site file's judge and metrics are the suggestions; what the visitor chose wins.
        // Only what they chose is stored (`persist_settings`), so the rest follows the site.
        let site = crate::ui::site::get();
        let suggested = Suggested::of(&site);
        let preset_id =
            storage::load_setting("hj.preset").unwrap_or_else(|| suggested.preset.clone());
        let offered = site.offered();
        let metric = storage::load_setting("hj.metric")
            .and_then(|m| Metric::from_id(&m))
            .filter(|m| offered.contains(m))
            .unwrap_or(offered[0]);
        Settings {
            metric: RwSignal::new(metric),
            fidelity: RwSignal::new(Fidelity::paper()),
            provider: BackendState::restore(preset_id, metric),
            max_side: RwSignal::new(load_parsed("hj.max_side", DEFAULT_MAX_SIDE)),
            form_problems: RwSignal::new(Vec::new()),
            storage_error: RwSignal::new(None),
            chosen_criteria: RwSignal::new(CriterionSet::default()),
            gamma: RwSignal::new(GAMMA_DEFAULT),
            site_note: crate::ui::site::changed_note(),
        }
    }

    /// The extensions of the selected metric that are switched on (untracked).
    pub fn fidelity_now(&self) -> Fidelity {
        let metric = self.metric.get_untracked();
        self.fidelity.with_untracked(|f| f.for_metric(metric))
    }

    /// Whether HarmonicEval is selected (what only it shows: task, γ, criteria).
    pub fn weighs_criteria(&self) -> bool {
        self.metric.get().weighs_criteria()
    }

    /// Switches provider, with the selected metric's output budget there.
    pub fn switch_provider(&self, preset_id: String) {
        self.provider
            .switch_provider(preset_id, self.metric.get_untracked());
    }
}

/// Stores setting `key` whenever `value` changes; a refused write is said at once.
fn persist(state: Settings, key: &'static str, value: impl Fn() -> String + 'static) {
    Effect::new(move |_| {
        if let Err(e) = crate::web::storage::save_setting(key, &value()) {
            state.storage_error.set(Some(e));
        }
    });
}

/// Keeps the non-secret settings across visits and the key where the user chose.
/// Provider settings are saved under the current preset, so each provider keeps its own.
pub fn persist_settings(state: Settings) {
    persist_suggested(state);
    persist_chosen(state);
    Effect::new(move |_| {
        let n = state.provider.effective_concurrency() as usize;
        state.provider.limiter.with_value(|l| l.set_limit(n));
    });
}

/// A refused write is said at once (what was not kept), not dropped.
fn kept(state: Settings) -> impl Fn(Result<(), String>) + Copy + 'static {
    move |outcome: Result<(), String>| {
        if let Err(e) = outcome {
            state.storage_error.set(Some(e));
        }
    }
}

/// The provider, metric, base URL and model: stored only where they differ from what the site
/// (or the app) suggests, so what the visitor never chose follows the site. The suggestion is
/// read when a value changes: the host's site file may arrive after the page mounted
/// (`site_follow`).
fn persist_suggested(state: Settings) {
    let kept = kept(state);
    let now = || Suggested::of(&crate::ui::site::get());
    Effect::new(move |_| {
        let preset = state.provider.preset.get();
        kept(storage::keep_setting(
            "hj.preset",
            keep(&preset, &now().preset),
        ))
    });
    Effect::new(move |_| {
        kept(storage::keep_setting(
            "hj.metric",
            keep(state.metric.get().id(), &now().metric),
        ))
    });
    let per_provider_suggested = move |name: &'static str, value: String, suggestion: String| {
        let preset = state.provider.preset.get_untracked();
        kept(storage::keep_provider_setting(
            &preset,
            name,
            keep(&value, &suggestion),
        ))
    };
    // A user:password@ typed into the base URL is refused when sending and never stored.
    Effect::new(move |_| {
        let url = crate::providers::without_credentials(&state.provider.base_url.get());
        let site = crate::ui::site::get();
        let suggestion = suggested_base_url(&site, &state.provider.preset.get_untracked());
        per_provider_suggested("base_url", url, suggestion)
    });
    Effect::new(move |_| {
        let model = state.provider.model.get();
        let site = crate::ui::site::get();
        per_provider_suggested(
            "model",
            model,
            suggested_model(&site, &state.provider.preset.get_untracked()),
        )
    });
}

/// What the visitor sets and the site never suggests: kept as they left it.
fn persist_chosen(state: Settings) {
    let kept = kept(state);
    let per_provider = move |name: &'static str, value: String| {
        kept(crate::web::storage::save_provider_setting(
            &state.provider.preset.get_untracked(),
            name,
            &value,
        ))
    };
    Effect::new(move |_| per_provider("detail", state.provider.image_detail.get().id().into()));
    Effect::new(move |_| per_provider("concurrency", state.provider.concurrency.get().to_string()));
    Effect::new(move |_| per_provider("repeatable", state.provider.repeatable.get().to_string()));
    // The budget shown is the chosen metric's on this provider: reload it when either changes,
    // and keep what the user types under both.
    Effect::new(move |_| {
        let (preset, metric) = (state.provider.preset.get(), state.metric.get());
        state
            .provider
            .max_tokens
            .set(crate::ui::state::backend::load_max_tokens(&preset, metric));
    });
    Effect::new(move |_| {
        let n = state.provider.max_tokens.get();
        let name = format!("max_tokens.{}", state.metric.get_untracked().id());
        kept(crate::web::storage::save_provider_setting(
            &state.provider.preset.get_untracked(),
            &name,
            &n.to_string(),
        ))
    });
    persist(state, "hj.max_side", move || {
        state.max_side.get().to_string()
    });
    persist(state, "hj.timeout_s", move || {
        state.provider.timeout_s.get().to_string()
    });
    persist(state, "hj.max_retries", move || {
        state.provider.max_retries.get().to_string()
    });
    persist(state, "hj.prices", move || state.provider.prices.get());
    Effect::new(move |_| {
        let (key, remember) = (
            state.provider.api_key.get(),
            state.provider.remember_key.get(),
        );
        kept(crate::web::storage::save_api_key(
            &state.provider.preset.get_untracked(),
            &key,
            remember,
        ))
    });
}
