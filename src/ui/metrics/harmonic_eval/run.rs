//! What Evaluate, Explain and Export do for HarmonicEval: one request per chosen criterion,
//! sent concurrently; an explanation turn per criterion on demand.

use leptos::prelude::*;

use super::state::{CriterionState, RunContext};
use crate::metrics::harmonic_eval::{self, ExportInput, Input};
use crate::scoring::criteria::Criterion;
use crate::ui::run::runner::{ask_why, begin_run, explain_backend, send_one};
use crate::ui::state::{AppState, ExplainState, Progress};

/// Starts a HarmonicEval run: the criteria are requested concurrently (up to the provider's limit), and
/// each card fills in as its answer arrives. A failed criterion does not affect the others.
pub fn evaluate(state: AppState) {
    let input = input(state, state.inputs.text.get_untracked());
    let mut problems = input.problems();
    if state.inputs.task.get_untracked().needs_box()
        && state
            .inputs
            .red_box
            .get_untracked()
            .filter(|b| b.is_usable())
            .is_none()
    {
        problems.push("Drag a box on the image around the object the expression refers to.".into());
    }
    if state.has_video() {
        problems.push(crate::metrics::Metric::VIDEO_REFUSAL.into());
    }
    state.settings.form_problems.set(problems.clone());
    if !problems.is_empty() {
        return;
    }
    let backend = state.settings.provider.backend();
    // A model's answers replace the bars set by hand.
    state.results.harmonic_eval.hands.set(None);
    state.results.harmonic_eval.run.set_value(Some(RunContext {
        input: input.clone(),
        backend: backend.clone(),
    }));
    let run = begin_run(state);

    for criterion in Criterion::ALL {
        let slot = state.results.harmonic_eval.criterion(criterion);
        state
            .results
            .harmonic_eval
            .explanation(criterion)
            .set(ExplainState::Idle);
        if !input.criteria.contains(criterion) {
            // Not part of this run: not requested, and no earlier score stays to be weighed.
            slot.set(Progress::Idle);
            continue;
        }
        let request = match harmonic_eval::criterion_request(&backend, criterion, &input) {
            Ok(r) => r,
            Err(e) => {
                slot.set(Progress::Failed(e.to_string()));
                continue;
            }
        };
        let protocol = backend.protocol;
        send_one(
            state,
            &run,
            backend.clone(),
            request,
            None,
            move |p| slot.set(p),
            move |completion| harmonic_eval::interpret(completion, protocol),
        );
    }
}

/// The form as a run's input, judging `text` (the one text, or a candidate's), read untracked.
pub fn input(state: AppState, text: String) -> Input {
    Input {
        task: state.inputs.task.get_untracked(),
        text,
        question: state.inputs.question.get_untracked(),
        image: state
            .inputs
            .image_view
            .get_untracked()
            .and_then(|v| v.sent()),
        fidelity: state.settings.fidelity_now(),
        criteria: state.settings.chosen_criteria.get_untracked(),
    }
}

/// Asks the judge why it gave this criterion its score.
pub fn explain(state: AppState, criterion: Criterion) {
    let Some(run) = state.results.harmonic_eval.run.get_value() else {
        return;
    };
    let Some(score) = state
        .results
        .harmonic_eval
        .criterion(criterion)
        .with_untracked(|s| s.result().map(|r| r.score))
    else {
        return;
    };
    let slot = state.results.harmonic_eval.explanation(criterion);
    let backend = match explain_backend(state, &run.backend) {
        Ok(b) => b,
        Err(why) => {
            return slot.set(ExplainState::after_failure(
                slot.with_untracked(|s| s.stored().map(str::to_string)),
                why,
            ))
        }
    };
    let request = harmonic_eval::explain_request(&backend, criterion, &run.input, score);
    ask_why(state, slot, backend, request);
}

/// Saves the HarmonicEval run's criteria, weights and settings as JSON.
pub fn export(state: AppState) {
    crate::ui::run::runner::save_result(state, harmonic_json(state, None));
}

/// The HarmonicEval result file of the last run (export, share link), with Explain's answers
/// and, if given, an image; `None` before a run.
pub fn harmonic_json(state: AppState, image: Option<&str>) -> Option<String> {
    let run = state.results.harmonic_eval.run.get_value()?;
    let states: Vec<CriterionState> = state
        .results
        .harmonic_eval
        .criteria
        .iter()
        .map(|s| s.get_untracked())
        .collect();
    let results = std::array::from_fn(|i| match &states[i] {
        Progress::Done { result, .. } => Some(Ok(result)),
        Progress::Failed(m) => Some(Err(m.clone())),
        _ => None,
    });
    let json = harmonic_eval::export_json(&ExportInput {
        gamma: state.settings.gamma.get_untracked(),
        task: run.input.task,
        text: &run.input.text,
        question: if run.input.task.needs_question() {
            &run.input.question
        } else {
            ""
        },
        backend: &run.backend,
        results,
        fidelity: &run.input.fidelity,
        criteria: run.input.criteria,
    });
    // A result set by hand says so, and carries its bars.
    let hand = state
        .results
        .harmonic_eval
        .hands
        .with_untracked(|h| h.as_ref().and_then(|h| h.first().copied()));
    let json = match &hand {
        Some(h) => harmonic_eval::by_hand::mark(&json, h),
        None => json,
    };
    // Explain's answers travel with the result, so opening the file shows them again.
    let explained = std::array::from_fn(|i| {
        state.results.harmonic_eval.explanations[i]
            .with_untracked(|e| e.stored().map(str::to_string))
    });
    Some(crate::files::result_file::with_extras(
        &json, image, &explained, None,
    ))
}
