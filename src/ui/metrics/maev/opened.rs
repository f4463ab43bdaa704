//! MAEV: a result file shown as if it had just run (no request is sent). The file was
//! read and checked by the core (`metrics::maev::reopen`); this only puts it into the signals.

use leptos::prelude::*;

use super::state::MaevRun;
use crate::metrics::maev;
use crate::providers::{Backend, Image};
use crate::ui::state::{AppState, ExplainState, Progress};

/// Puts the opened result into the page; MAEV judges text only, so the file's image is not sent.
pub(crate) fn show(
    state: AppState,
    m: maev::reopen::Reopened,
    _image: Option<Image>,
    backend: Backend,
) {
    state.inputs.question.set(m.input.question.clone());
    state.results.maev.caption.set(m.input.caption.clone());
    state.results.maev.reference.set(m.input.reference.clone());
    state.inputs.text.set(m.input.answer.clone());
    state.metric_settings.maev.threshold.set(m.input.threshold);
    state.results.maev.captioning.set(ExplainState::Idle);
    state.results.maev.results.set(
        m.trials
            .into_iter()
            .map(|(examples, r)| {
                (
                    examples,
                    r.map_or_else(Progress::Failed, |result| Progress::Done {
                        result,
                        cached: false,
                    }),
                )
            })
            .collect(),
    );
    // The pool the trials point at stays with the run; the user's own pool is not touched.
    state.results.maev.run.set_value(Some(MaevRun {
        input: m.input,
        backend,
    }));
}
