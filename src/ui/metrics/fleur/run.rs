//! What Evaluate, Explain and Export do for FLEUR and RefFLEUR: one scoring request, then an
//! optional explanation turn.

use leptos::prelude::*;

use super::state::FleurRun;
use crate::metrics::fleur::{self, ExportInput, Input};
use crate::ui::run::runner::{ask_why, run_one};
use crate::ui::state::{AppState, ExplainState, Progress};

pub fn input(state: AppState) -> Input {
    Input {
        caption: state.inputs.text.get_untracked(),
        references: (state.settings.metric.get_untracked() == crate::metrics::Metric::RefFleur)
            .then(|| fleur::references_from_lines(&state.inputs.references.get_untracked())),
        image: state
            .inputs
            .image_view
            .get_untracked()
            .and_then(|v| v.sent()),
    }
}

pub fn evaluate(state: AppState) {
    let input = input(state);
    let mut problems = input.problems();
    if state.has_video() {
        problems.push(crate::metrics::Metric::VIDEO_REFUSAL.into());
    }
    state.settings.form_problems.set(problems.clone());
    if !problems.is_empty() {
        return;
    }
    let backend = state.settings.provider.backend();
    let request = match fleur::score_request(&backend, &input) {
        Ok(r) => r,
        Err(e) => {
            state
                .results
                .fleur
                .result
                .set(Progress::Failed(e.to_string()));
            return;
        }
    };
    state.results.fleur.run.set_value(Some(FleurRun {
        input,
        backend: backend.clone(),
    }));
    state.results.fleur.explanation.set(ExplainState::Idle);
    run_one(
        state,
        state.results.fleur.result,
        backend,
        request,
        fleur::interpret,
    );
}

/// Asks why: the smoothed score goes back as the judge's answer.
pub fn explain(state: AppState) {
    let Some(run) = state.results.fleur.run.get_value() else {
        return;
    };
    let Some(score) = state
        .results
        .fleur
        .result
        .with_untracked(|s| s.result().map(|r| r.smoothed.score))
    else {
        return;
    };
    let slot = state.results.fleur.explanation;
    let backend = match crate::ui::run::runner::explain_backend(state, &run.backend) {
        Ok(b) => b,
        Err(why) => {
            return slot.set(ExplainState::after_failure(
                slot.with_untracked(|s| s.stored().map(str::to_string)),
                why,
            ))
        }
    };
    let request = fleur::explain_request(&backend, &run.input, score);
    ask_why(state, slot, backend, request);
}

pub fn export(state: AppState) {
    crate::ui::run::runner::save_result(state, result_json(state));
}

/// The FLEUR / RefFLEUR result file of the last run (export, share link, history), with
/// Explain's answer; `None` before a run.
pub fn result_json(state: AppState) -> Option<String> {
    let run = state.results.fleur.run.get_value()?;
    let progress = state.results.fleur.result.get_untracked();
    let error = progress.error().unwrap_or_else(|| "not finished".into());
    let result = progress.result().ok_or(error.as_str());
    let explanation = state
        .results
        .fleur
        .explanation
        .with_untracked(|e| e.stored().map(str::to_string));
    Some(fleur::export_json(&ExportInput {
        caption: &run.input.caption,
        references: run.input.references.as_deref(),
        backend: &run.backend,
        result,
        explanation: explanation.as_deref(),
    }))
}
