//! MAEV's texts and trials on the evaluator and the last run's inputs (its trials, threshold,
//! seed and few-shot pool are settings both pages share, in `Settings`).

use leptos::prelude::*;

use crate::metrics::maev;
use crate::providers::Backend;
use crate::ui::progress::Progress;
use crate::ui::progress::ExplainState;
use crate::ui::signal::{new_signal, new_stored};

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
            caption: new_signal(String::new()),
            reference: new_signal(String::new()),
            results: new_signal(Vec::new()),
            run: new_stored(None),
            captioning: new_signal(ExplainState::Idle),
        }
    }
}
