//! G-VEval's result on the evaluator, its ACCR switch and the last run's inputs (its mode is a
//! setting both pages share, in `Settings`).

use leptos::prelude::*;

use crate::metrics::g_veval::{self, GvevalResult};
use crate::providers::Backend;
use crate::ui::progress::Progress;

/// The inputs and backend of the last G-VEval run.
#[derive(Clone, Debug)]
pub struct GvevalRun {
    pub input: g_veval::Input,
    pub backend: Backend,
}

#[derive(Clone, Copy)]
pub struct GvevalState {
    /// ACCR's four scores instead of one (video only).
    pub accr: RwSignal<bool>,
    pub result: RwSignal<Progress<GvevalResult>>,
    pub run: StoredValue<Option<GvevalRun>>,
}

impl GvevalState {
    pub fn new() -> GvevalState {
        GvevalState {
            accr: RwSignal::new(false),
            result: RwSignal::new(Progress::Idle),
            run: StoredValue::new(None),
        }
    }
}

/// This room's results in the evaluator's state (`AppState::results.g_veval`, in the registry's `MetricResults`).
pub(crate) type State = GvevalState;

/// Fresh results, before any run.
pub(crate) fn new(settings: crate::ui::state::settings::Settings) -> State {
    let _ = settings;
    GvevalState::new()
}
