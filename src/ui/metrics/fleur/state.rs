//! FLEUR / RefFLEUR's result on the evaluator, its explanation and the last run's inputs.

use leptos::prelude::*;

use crate::metrics::fleur::{self, FleurResult};
use crate::providers::Backend;
use crate::ui::progress::ExplainState;
use crate::ui::progress::Progress;

/// The inputs and backend of the last FLEUR / RefFLEUR run.
#[derive(Clone, Debug)]
pub struct FleurRun {
    pub input: fleur::Input,
    pub backend: Backend,
}

#[derive(Clone, Copy)]
pub struct FleurState {
    pub result: RwSignal<Progress<FleurResult>>,
    pub explanation: RwSignal<ExplainState>,
    pub run: StoredValue<Option<FleurRun>>,
}

impl FleurState {
    pub fn new() -> FleurState {
        FleurState {
            result: RwSignal::new(Progress::Idle),
            explanation: RwSignal::new(ExplainState::Idle),
            run: StoredValue::new(None),
        }
    }
}

/// This room's results in the evaluator's state (`AppState::results.fleur`, in the registry's `MetricResults`).
pub(crate) type State = FleurState;

/// Fresh results, before any run.
pub(crate) fn new(settings: crate::ui::state::settings::Settings) -> State {
    let _ = settings;
    FleurState::new()
}
