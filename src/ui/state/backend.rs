//! The backend's state, the same on both pages: the chosen provider and its settings, the
//! shared limiter and Cancel, the answer cache's figures, the prices and the connection check.

use leptos::prelude::*;

use crate::metrics::Metric;
use crate::providers::{preset, Backend, BackendChoice, ImageDetail};
use crate::transport::cost::DEFAULT_PRICES;
use crate::transport::limiter::Limiter;
use crate::transport::retry::RetryPolicy;
use crate::web::storage;

/// What "Check connection" found: one line per finding, and whether the backend is usable.
#[derive(Clone, Debug, PartialEq)]
pub enum ConnectionState {
    Idle,
    Checking,
    Done { ok: bool, lines: Vec<String> },
}

/// All five criteria at once; lower it for a local server with fewer parallel slots.
pub const DEFAULT_CONCURRENCY: u32 = 5;
/// Generous: a local server may take a while to load the model on the first request.
pub const DEFAULT_TIMEOUT_S: u32 = 120;

/// A stored setting parsed, or `default` when it is missing or does not parse.
pub(crate) fn load_parsed<T: std::str::FromStr>(key: &str, default: T) -> T {
    storage::load_setting(key)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[derive(Clone, Copy)]
pub struct BackendState {
    pub preset: RwSignal<String>,
    pub base_url: RwSignal<String>,
    pub model: RwSignal<String>,
    pub api_key: RwSignal<String>,
    pub remember_key: RwSignal<bool>,
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
    /// The editable price table (see `crate::transport::cost`).
    pub prices: RwSignal<String>,
    pub connection: RwSignal<ConnectionState>,
    /// Model ids the last connection check listed, offered as suggestions.
    pub models: RwSignal<Vec<String>>,
}

impl BackendState {
    /// The stored provider `preset_id` with its settings, its output budget for `metric`.
    pub fn restore(preset_id: String, metric: Metric) -> BackendState {
        let provider = ProviderSettings::load(&preset_id);
        let max_tokens = load_max_tokens(&preset_id, metric);
        let limit = if provider.repeatable {
            1
        } else {
            provider.concurrency as usize
        };
        BackendState {
            preset: RwSignal::new(preset_id),
            base_url: RwSignal::new(provider.base_url),
            model: RwSignal::new(provider.model),
            api_key: RwSignal::new(provider.api_key),
            remember_key: RwSignal::new(provider.remember_key),
            image_detail: RwSignal::new(provider.image_detail),
            concurrency: RwSignal::new(provider.concurrency),
            max_tokens: RwSignal::new(max_tokens),
            repeatable: RwSignal::new(provider.repeatable),
            max_retries: RwSignal::new(load_parsed(
                "hj.max_retries",
                RetryPolicy::default().max_retries,
            )),
            limiter: StoredValue::new_local(Limiter::new(limit)),
            cancel: StoredValue::new_local(None),
            fresh_run: RwSignal::new(false),
            cache_count: RwSignal::new(None),
            cache_message: RwSignal::new(None),
            prices: RwSignal::new(load_parsed("hj.prices", DEFAULT_PRICES.to_string())),
            connection: RwSignal::new(ConnectionState::Idle),
            models: RwSignal::new(Vec::new()),
            timeout_s: RwSignal::new(load_parsed("hj.timeout_s", DEFAULT_TIMEOUT_S)),
        }
    }

    pub fn backend(&self) -> Backend {
        let p = preset(&self.preset.get_untracked());
        let base_url = self.base_url.get_untracked();
        // The in-page judge's backend and threads, recorded with what it answers.
        let engine = crate::providers::in_browser::handles(&base_url)
            .then(crate::web::in_browser::loaded_now)
            .flatten()
            .map(|(_, engine)| engine);
        Backend {
            engine,
            ..p.backend(BackendChoice {
                base_url: Some(base_url),
                model: Some(self.model.get_untracked()),
                api_key: self.api_key.get_untracked(),
                image_detail: self.image_detail.get_untracked(),
                max_tokens: self.max_tokens.get_untracked(),
                repeatable: Some(self.repeatable.get_untracked()),
            })
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
    /// back as the user left them (or from its preset), with its output budget for `metric`.
    pub fn switch_provider(&self, preset_id: String, metric: Metric) {
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
            .set(load_max_tokens(&self.preset.get_untracked(), metric));
        self.models.set(Vec::new());
        self.connection.set(ConnectionState::Idle);
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
        // The site file's base URL and model, where it presets this provider.
        let site = crate::ui::site::judge_for(preset_id).unwrap_or_default();
        ProviderSettings {
            base_url: p.base_url_or(get("base_url").or(site.base_url)),
            model: p.model_or(get("model").or(site.model)),
            api_key,
            remember_key,
            image_detail: ImageDetail::from_id(&get("detail").unwrap_or_default()),
            concurrency: get("concurrency")
                .and_then(|s| s.parse().ok())
                .filter(|&n| n >= 1)
                .unwrap_or(DEFAULT_CONCURRENCY),
            repeatable: p.repeatable_or(get("repeatable").map(|s| s == "true")),
        }
    }
}
