//! The judge, as both pages show it: one line that says who judges and how, and folds the
//! settings (`judge_settings.rs`): the fidelity, each metric's named extensions asked of the
//! registry (`fidelity_panel.rs`), and the backend (`ui/backend/`). Above `backend/`, `metrics/`
//! and `run/`, which it puts together; only the pages name it.

pub(crate) mod fidelity_panel;
pub(crate) mod judge_settings;
