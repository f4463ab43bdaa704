//! MAEV's settings on the evaluator's form: trials, threshold, seed and the few-shot pool; all
//! but the seed are kept on this device, and the lab's runs use what is kept ([`stored`]).

use leptos::prelude::*;

use crate::metrics::maev::{self, RunSettings};
use crate::ui::state::backend::load_parsed;
use crate::web::storage;

/// The settings kept on this device, or the paper's defaults (seed 1).
pub fn stored() -> RunSettings {
    RunSettings {
        trials: load_parsed("hj.maev.trials", maev::DEFAULT_TRIALS),
        threshold: load_parsed("hj.maev.threshold", maev::DEFAULT_THRESHOLD),
        seed: 1,
        pool: storage::load_setting("hj.maev.pool")
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_else(maev::default_pool),
    }
}

/// MAEV's settings on the evaluator's form.
#[derive(Clone, Copy)]
pub struct Kept {
    pub trials: RwSignal<u32>,
    pub threshold: RwSignal<f64>,
    pub seed: RwSignal<u32>,
    /// The few-shot pool, editable and kept on this device.
    pub pool: RwSignal<Vec<maev::Example>>,
}

impl Kept {
    /// The settings kept on this device, or the paper's defaults.
    pub fn restore() -> Kept {
        let kept = stored();
        Kept {
            trials: RwSignal::new(kept.trials),
            threshold: RwSignal::new(kept.threshold),
            seed: RwSignal::new(kept.seed as u32),
            pool: RwSignal::new(kept.pool),
        }
    }

    /// Keeps trials, threshold and pool whenever they change; a refused write is said in
    /// `storage_error` at once.
    pub fn persist(self, storage_error: RwSignal<Option<String>>) {
        let keep = move |key: &'static str, value: String| {
            if let Err(e) = storage::save_setting(key, &value) {
                storage_error.set(Some(e));
            }
        };
        Effect::new(move |_| keep("hj.maev.trials", self.trials.get().to_string()));
        Effect::new(move |_| keep("hj.maev.threshold", self.threshold.get().to_string()));
        Effect::new(move |_| {
            keep(
                "hj.maev.pool",
                self.pool
                    .with(|p| serde_json::to_string(p).unwrap_or_default()),
            )
        });
    }
}
