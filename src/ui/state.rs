//! The app's state, as signals, per concern, named here in one place: [`Settings`] is what both
//! pages show (`ui/settings.rs`: the metric, its settings, the backend of
//! `ui/backend/state.rs`); [`AppState`] is the evaluator's page (`ui/metrics/mod.rs`, beside
//! the metric dispatch, so a new metric's state is asked for there): those settings, its
//! inputs (`ui/run/inputs_state.rs`), each metric's results (`ui/metrics/<m>/state.rs`)
//! and the current run. Both are `Copy` and provided through context; the lab provides only
//! [`Settings`] (its own state is `BatchState`).

pub use crate::ui::backend::state::ConnectionState;
pub use crate::ui::run::inputs_state::ImageView;
pub use crate::ui::metrics::AppState;
pub use crate::ui::progress::{ExplainState, Progress};
pub use crate::ui::settings::Settings;
