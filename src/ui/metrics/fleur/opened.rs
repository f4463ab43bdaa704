//! FLEUR / RefFLEUR: a result file shown as if it had just run (no request is sent). The file was
//! read and checked by the core (`metrics::fleur::reopen`); this only puts it into the signals.

use leptos::prelude::*;

use super::state::FleurRun;
use crate::metrics::fleur;
use crate::providers::{Backend, Image};
use crate::ui::state::{AppState, ExplainState, Progress};

/// Puts the opened result into the page; `image` is what a run or Explain of it sends.
pub(crate) fn show(
    state: AppState,
    f: fleur::reopen::Reopened,
    image: Option<Image>,
    backend: Backend,
) {
    state.inputs.text.set(f.input.caption.clone());
    // A FLEUR file has no references: none stay from the result shown before.
    state.inputs.references.set(
        f.input
            .references
            .as_ref()
            .map(|r| r.join("\n"))
            .unwrap_or_default(),
    );
    state.results.fleur.result.set(Progress::Done {
        result: f.result,
        cached: false,
    });
    state
        .results
        .fleur
        .explanation
        .set(f.explanation.map_or(ExplainState::Idle, ExplainState::Done));
    state.results.fleur.run.set_value(Some(FleurRun {
        input: fleur::Input { image, ..f.input },
        backend,
    }));
}
