//! The app's state, as signals, per concern. [`Settings`] is what both pages show
//! (`state/settings.rs`: the metric, its settings, the backend of `state/backend.rs`);
//! [`AppState`], defined here, is the evaluator's page: those settings, its inputs
//! (`state/inputs.rs`), its candidate texts (`state/candidates.rs`), each metric's settings and
//! results ([`crate::ui::metrics::state::MetricResults`], from each room's `state.rs`) and the current
//! run. Both are `Copy` and provided through context; the lab provides only [`Settings`] (its
//! own state is `BatchState`). The state below this file imports no component: panels, the
//! runner and the metrics' rooms import it, never the other way. The one exception is the
//! registry's `MetricResults`, named below: each room's code takes `AppState` and `AppState`
//! holds each room's state (DESIGN.md, "Why do ui/state.rs and ui/metrics/ import each other?").

use leptos::prelude::*;

pub(crate) mod backend;
pub(crate) mod candidates;
pub(crate) mod inputs;
pub(crate) mod settings;
pub(crate) mod site_follow;

pub use crate::ui::progress::{ExplainState, Progress};
pub use backend::ConnectionState;
pub use inputs::ImageView;
pub use settings::Settings;

/// The evaluator's state: the shared [`Settings`] (`state.settings`, what the lab has too), its
/// inputs, each metric's settings and results and the current run.
#[derive(Clone, Copy)]
pub struct AppState {
    pub settings: Settings,
    /// Each metric's own settings on the form (G-VEval's mode, MAEV's trials…).
    pub metric_settings: crate::ui::metrics::state::MetricSettings,
    pub inputs: inputs::Inputs,
    /// Each metric's results, from its folder's `state.rs`.
    pub results: crate::ui::metrics::state::MetricResults,
    /// Incremented by every Evaluate, so answers from an older run are ignored.
    pub generation: StoredValue<u64>,
    /// The usage of every answer the provider billed in the current run, readable or not.
    pub billed: RwSignal<Vec<crate::answers::completion::Usage>>,
    pub export_error: RwSignal<Option<String>>,
    /// Several candidate texts for the same image (HarmonicEval; empty: one text).
    pub candidates: candidates::Candidates,
}

impl AppState {
    /// Fresh state, with the non-secret settings and the key restored from storage.
    pub fn restore() -> AppState {
        let settings = Settings::restore();
        AppState {
            settings,
            metric_settings: crate::ui::metrics::state::MetricSettings::restore(),
            inputs: inputs::Inputs::new(),
            results: crate::ui::metrics::state::MetricResults::new(settings),
            generation: StoredValue::new(0),
            billed: RwSignal::new(Vec::new()),
            export_error: RwSignal::new(None),
            candidates: candidates::Candidates::new(),
        }
    }

    /// Whether the current file is a video.
    pub fn has_video(&self) -> bool {
        self.inputs.has_video()
    }

    /// The REG box is drawn into the image only for HarmonicEval's REG task.
    pub fn box_active(&self) -> bool {
        self.settings.weighs_criteria() && self.inputs.task.get().needs_box()
    }
}
