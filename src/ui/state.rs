//! The app's state, as signals, per concern, named here in one place: [`Settings`] is what both
//! pages show (`ui/settings.rs`: the metric, its settings, the backend of
//! `ui/backend/state.rs`); [`AppState`] is the evaluator's page: those settings, its inputs
//! (`ui/run/inputs_state.rs`), each metric's settings and results (from `ui/metrics/<m>/`)
//! and the current run. [`AppState`] is written out in the metric registry,
//! `ui/metrics/mod.rs`: it holds each room's state, and each room's code takes it, so defining
//! it here would make this file and the registry import each other. Both are `Copy` and
//! provided through context; the lab provides only [`Settings`] (its own state is
//! `BatchState`).

pub use crate::ui::backend::state::ConnectionState;
pub use crate::ui::run::inputs_state::ImageView;
pub use crate::ui::metrics::AppState;
pub use crate::ui::progress::{ExplainState, Progress};
pub use crate::ui::settings::Settings;
