//! Each room's state, for [`crate::ui::state::AppState`]: its results ([`MetricResults`], from
//! each room's `state.rs`) and its settings on the form ([`MetricSettings`], from its
//! `settings.rs`). Apart from the registry's `mod.rs` so that `AppState` can hold them while
//! the registry's functions take `AppState`: this file takes no `AppState`, so
//! `ui/state.rs` → here → each room's `state.rs` is one way.

use leptos::prelude::*;

use super::{fleur, g_veval, harmonic_eval, maev};

/// Each metric's results on the evaluator (`AppState::results`), from its folder's `state.rs`.
#[derive(Clone, Copy)]
pub struct MetricResults {
    pub harmonic_eval: harmonic_eval::state::State,
    pub fleur: fleur::state::State,
    pub g_veval: g_veval::state::State,
    pub maev: maev::state::State,
}

impl MetricResults {
    /// Every metric's results, none yet.
    pub fn new(settings: crate::ui::state::settings::Settings) -> MetricResults {
        MetricResults {
            harmonic_eval: harmonic_eval::state::new(settings),
            fleur: fleur::state::new(settings),
            g_veval: g_veval::state::new(settings),
            maev: maev::state::new(settings),
        }
    }
}

/// The settings of each metric the evaluator's form shows and keeps (`AppState::metric_settings`),
/// each from its folder's `settings.rs`; the lab's runs read what is kept
/// ([`stored_run_settings`]).
#[derive(Clone, Copy)]
pub struct MetricSettings {
    pub gveval: g_veval::settings::Kept,
    pub maev: maev::settings::Kept,
}

impl MetricSettings {
    /// Each metric's settings kept on this device, or its defaults.
    pub fn restore() -> MetricSettings {
        MetricSettings {
            gveval: g_veval::settings::Kept::restore(),
            maev: maev::settings::Kept::restore(),
        }
    }

    /// Keeps each metric's settings across visits; a refused write is said in `storage_error`.
    pub fn persist(self, storage_error: RwSignal<Option<String>>) {
        self.maev.persist(storage_error);
    }
}
