//! HarmonicEval: a result file shown as if it had just run (no request is sent). The file was
//! read and checked by the core (`metrics::harmonic_eval::reopen`); this only puts it into the signals.

use leptos::prelude::*;

use super::state::RunContext;
use crate::metrics::harmonic_eval::reopen::Reopened;
use crate::metrics::harmonic_eval::Input;
use crate::providers::{Backend, Image};
use crate::ui::state::{AppState, ExplainState, Progress};

/// Puts the opened result into the page; `image` is what a run or Explain of it sends.
pub(crate) fn show(state: AppState, h: Reopened, image: Option<Image>, backend: Backend) {
    state.inputs.task.set(h.task);
    state.inputs.text.set(h.text.clone());
    state.inputs.question.set(h.question.clone());
    state.settings.chosen_criteria.set(h.criteria_set);
    state.settings.gamma.set(h.gamma);
    for (i, r) in h.results.iter().enumerate() {
        state.results.harmonic_eval.criteria[i].set(match r {
            Some(Ok(result)) => Progress::Done {
                result: result.clone(),
                cached: false,
            },
            Some(Err(m)) => Progress::Failed(m.clone()),
            None => Progress::Idle,
        });
        state.results.harmonic_eval.explanations[i].set(match &h.explanations[i] {
            Some(t) => ExplainState::Done(t.clone()),
            None => ExplainState::Idle,
        });
    }
    // A file set by hand opens with its bars (its slots come from them, as they did).
    match h.by_hand {
        Some(hand) => super::by_hand::put_all(state, hand),
        None => state.results.harmonic_eval.hands.set(None),
    }
    state.results.harmonic_eval.run.set_value(Some(RunContext {
        input: Input {
            task: h.task,
            text: h.text,
            question: h.question,
            image,
            fidelity: h.fidelity,
            criteria: h.criteria_set,
        },
        backend,
    }));
}
