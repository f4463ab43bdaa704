//! MAEV's texts and trials on the evaluator and the last run's inputs (its trials, threshold,
//! seed and few-shot pool are settings both pages share, in `Settings`).

use leptos::prelude::*;

use crate::metrics::maev;
use crate::providers::Backend;
use crate::ui::progress::ExplainState;
use crate::ui::progress::Progress;

/// The inputs and backend of the last MAEV run.
#[derive(Clone, Debug)]
pub struct MaevRun {
    pub input: maev::Input,
    pub backend: Backend,
}

/// One MAEV trial: its examples (pool indices) and its progress.
pub type MaevTrial = ((usize, usize), Progress<maev::TrialReading>);

#[derive(Clone, Copy)]
pub struct MaevState {
    pub caption: RwSignal<String>,
    pub reference: RwSignal<String>,
    pub results: RwSignal<Vec<MaevTrial>>,
    pub run: StoredValue<Option<MaevRun>>,
    /// The "caption the image first" helper's progress.
    pub captioning: RwSignal<ExplainState>,
}

impl MaevState {
    pub fn new() -> MaevState {
        MaevState {
            caption: RwSignal::new(String::new()),
            reference: RwSignal::new(String::new()),
            results: RwSignal::new(Vec::new()),
            run: StoredValue::new(None),
            captioning: RwSignal::new(ExplainState::Idle),
        }
    }
}

/// This room's results in the evaluator's state (`AppState::results.maev`, in the registry's `MetricResults`).
pub(crate) type State = MaevState;

/// Fresh results, before any run.
pub(crate) fn new(settings: crate::ui::state::settings::Settings) -> State {
    let _ = settings;
    MaevState::new()
}
