//! G-VEval: a result file shown as if it had just run (no request is sent). The file was
//! read and checked by the core (`metrics::g_veval::reopen`); this only puts it into the signals.

use leptos::prelude::*;

use super::state::GvevalRun;
use crate::metrics::g_veval;
use crate::providers::{Backend, Image};
use crate::ui::state::{AppState, Progress};

/// Puts the opened result into the page; `image` is what a run or Explain of it sends.
pub(crate) fn show(
    state: AppState,
    g: g_veval::reopen::Reopened,
    image: Option<Image>,
    backend: Backend,
) {
    state.inputs.text.set(g.input.caption.clone());
    state.inputs.references.set(g.input.references.join("\n"));
    state.metric_settings.gveval.mode.set(g.input.mode);
    state.results.g_veval.accr.set(g.input.accr);
    state.results.g_veval.result.set(Progress::Done {
        result: g.result,
        cached: false,
    });
    state.results.g_veval.run.set_value(Some(GvevalRun {
        input: g_veval::Input { image, ..g.input },
        backend,
    }));
}
