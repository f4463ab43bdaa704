//! G-VEval's setting on the evaluator's form: its mode (the lab's runs use the default).

use leptos::prelude::*;

use crate::metrics::g_veval::Mode;

/// The mode a run starts with, and the lab's (not kept across visits: a mode needs its own
/// inputs).
pub const STORED_MODE: Mode = Mode::RefFree;

/// G-VEval's setting on the evaluator's form.
#[derive(Clone, Copy)]
pub struct Kept {
    /// Reference-free (the default), with references, video or ACCR.
    pub mode: RwSignal<Mode>,
}

impl Kept {
    /// The default mode.
    pub fn restore() -> Kept {
        Kept {
            mode: RwSignal::new(STORED_MODE),
        }
    }
}
