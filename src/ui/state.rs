//! All the app's state, as signals, in one `Copy` struct provided through context.

use leptos::prelude::*;

use crate::aggregate::GAMMA_DEFAULT;
use crate::criteria::Criterion;
use crate::geometry::NormBox;
use crate::metrics::harmonic_eval::{CriterionResult, Input};
use crate::providers::{Backend, PRESETS};
use crate::task::Task;
use crate::web::image::LoadedImage;
use crate::web::storage;

/// Progress of one criterion in the current run.
#[derive(Clone, Debug, PartialEq)]
pub enum CriterionState {
    Idle,
    Running,
    Done(CriterionResult),
    Failed(String),
}

impl CriterionState {
    /// The `data-state` value of the criterion card.
    pub fn id(&self) -> &'static str {
        match self {
            CriterionState::Idle => "idle",
            CriterionState::Running => "running",
            CriterionState::Done(_) => "done",
            CriterionState::Failed(_) => "error",
        }
    }

    pub fn result(&self) -> Option<&CriterionResult> {
        match self {
            CriterionState::Done(r) => Some(r),
            _ => None,
        }
    }
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
}

/// The inputs and backend of the last run, so Explain and Export describe what was scored even
/// if the form was edited since.
#[derive(Clone, Debug)]
pub struct RunContext {
    pub input: Input,
    pub backend: Backend,
}

#[derive(Clone, Copy)]
pub struct AppState {
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
    /// Why Evaluate did not start (missing inputs), one sentence per problem.
    pub form_problems: RwSignal<Vec<String>>,
    pub export_error: RwSignal<Option<String>>,
    /// Weights per criterion (None where it has no score) and the overall score at the current
    /// γ. Five numbers, recomputed on every slider move without any request.
    pub weighting: Memo<Weighting>,
}

pub type Weighting = (Vec<Option<f64>>, Option<f64>);

pub const DEFAULT_MAX_SIDE: u32 = 1024;
/// Generous: a local server may take a while to load the model on the first request.
pub const DEFAULT_TIMEOUT_S: u32 = 120;

impl AppState {
    /// Fresh state, with the non-secret settings and the key restored from storage.
    pub fn restore() -> AppState {
        let setting = |key: &str, default: &str| {
            storage::load_setting(key).unwrap_or_else(|| default.to_string())
        };
        let default = PRESETS[0];
        let (api_key, remembered) = storage::load_api_key();
        let criteria: [RwSignal<CriterionState>; 5] =
            std::array::from_fn(|_| RwSignal::new(CriterionState::Idle));
        let gamma = RwSignal::new(GAMMA_DEFAULT);
        let weighting = Memo::new(move |_| {
            let states: Vec<CriterionState> = criteria.iter().map(|s| s.get()).collect();
            let results: Vec<Option<&CriterionResult>> =
                states.iter().map(|s| s.result()).collect();
            crate::metrics::harmonic_eval::weigh(&results, gamma.get())
        });
        AppState {
            task: RwSignal::new(Task::Ic),
            text: RwSignal::new(String::new()),
            question: RwSignal::new(String::new()),
            preset: RwSignal::new(setting("hj.preset", default.id)),
            base_url: RwSignal::new(setting("hj.base_url", default.base_url)),
            model: RwSignal::new(setting("hj.model", default.model)),
            api_key: RwSignal::new(api_key),
            remember_key: RwSignal::new(remembered),
            max_side: RwSignal::new(
                storage::load_setting("hj.max_side")
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(DEFAULT_MAX_SIDE),
            ),
            timeout_s: RwSignal::new(
                storage::load_setting("hj.timeout_s")
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(DEFAULT_TIMEOUT_S),
            ),
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
            form_problems: RwSignal::new(Vec::new()),
            export_error: RwSignal::new(None),
            weighting,
        }
    }

    pub fn backend(&self) -> Backend {
        Backend {
            protocol: crate::providers::preset(&self.preset.get_untracked()).protocol,
            base_url: self.base_url.get_untracked(),
            model: self.model.get_untracked(),
            api_key: self.api_key.get_untracked(),
            image_detail: Default::default(),
        }
    }

    pub fn criterion(&self, c: Criterion) -> RwSignal<CriterionState> {
        self.criteria[c.index()]
    }

    pub fn explanation(&self, c: Criterion) -> RwSignal<ExplainState> {
        self.explanations[c.index()]
    }
}
