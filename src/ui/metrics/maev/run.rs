//! What Evaluate, "Caption the image" and Export do for MAEV.

use leptos::prelude::*;

use super::state::MaevRun;
use crate::metrics::maev;
use crate::ui::run::runner::{begin_run, send_one};
use crate::ui::state::{AppState, ExplainState, Progress};

pub fn input(state: AppState) -> maev::Input {
    maev::Input {
        question: state.inputs.question.get_untracked(),
        caption: state.results.maev.caption.get_untracked(),
        reference: state.results.maev.reference.get_untracked(),
        answer: state.inputs.text.get_untracked(),
        trials: state.metric_settings.maev.trials.get_untracked(),
        threshold: state.metric_settings.maev.threshold.get_untracked(),
        seed: u64::from(state.metric_settings.maev.seed.get_untracked()),
        pool: state.metric_settings.maev.pool.get_untracked(),
        fidelity: state
            .settings
            .fidelity
            .with_untracked(|f| f.for_metric(crate::metrics::Metric::Maev)),
    }
}

/// Sends every trial at once (within the provider's limit); each row fills in as it answers.
pub fn evaluate(state: AppState) {
    let input = input(state);
    let fidelity = input.fidelity.clone();
    let problems = input.problems();
    state.settings.form_problems.set(problems.clone());
    if !problems.is_empty() {
        return;
    }
    let backend = state.settings.provider.backend();
    let trials = match maev::trial_requests(&backend, &input) {
        Ok(t) => t,
        Err(e) => return state.settings.form_problems.set(vec![e.to_string()]),
    };
    state.results.maev.results.set(
        trials
            .iter()
            .map(|t| (t.examples, Progress::Running))
            .collect(),
    );
    state.results.maev.run.set_value(Some(MaevRun {
        input,
        backend: backend.clone(),
    }));
    let run = begin_run(state);
    let results = state.results.maev.results;
    for (i, trial) in trials.into_iter().enumerate() {
        let set = move |p: Progress<maev::TrialReading>| {
            results.update(|rows| {
                if let Some(row) = rows.get_mut(i) {
                    row.1 = p;
                }
            })
        };
        send_one(
            state,
            &run,
            backend.clone(),
            trial.request,
            Some(format!("maev-trial-{i}")),
            set,
            {
                let fidelity = fidelity.clone();
                move |c| {
                    maev::read_completion(c, &fidelity).map_err(|message| {
                        crate::answers::errors::JudgeError::BadResponse { detail: message }
                    })
                }
            },
        );
    }
}

/// Asks the chosen VLM for a dense caption of the current image and fills the caption box.
pub fn caption_image(state: AppState) {
    let Some(image) = state
        .inputs
        .image_view
        .get_untracked()
        .and_then(|v| v.sent())
    else {
        state
            .results
            .maev
            .captioning
            .set(ExplainState::Failed("Add an image first.".into()));
        return;
    };
    let backend = state.settings.provider.backend();
    let request = match maev::caption_request(&backend, &image) {
        Ok(r) => r,
        Err(e) => {
            return state
                .results
                .maev
                .captioning
                .set(ExplainState::Failed(e.to_string()))
        }
    };
    let run = begin_run(state);
    let set = move |p: Progress<String>| match p {
        Progress::Done { result, .. } => {
            state.results.maev.caption.set(result.trim().to_string());
            state.results.maev.captioning.set(ExplainState::Idle);
        }
        Progress::Failed(m) => state.results.maev.captioning.set(ExplainState::Failed(m)),
        _ => state.results.maev.captioning.set(ExplainState::Running),
    };
    send_one(state, &run, backend, request, None, set, |c| {
        if c.text.trim().is_empty() {
            Err(crate::answers::errors::JudgeError::BadResponse {
                detail: "the model returned an empty caption".into(),
            })
        } else {
            Ok(c.text.clone())
        }
    });
}

pub fn export(state: AppState) {
    crate::ui::run::runner::save_result(state, result_json(state));
}

/// The MAEV result file of the last run (export, share link, history); `None` before a run.
pub fn result_json(state: AppState) -> Option<String> {
    let run = state.results.maev.run.get_value()?;
    let rows = state.results.maev.results.get_untracked();
    let errors: Vec<String> = rows
        .iter()
        .map(|(_, p)| p.error().unwrap_or_else(|| "not finished".into()))
        .collect();
    let trials = rows
        .iter()
        .zip(&errors)
        .map(|((examples, p), err)| (*examples, p.result().ok_or(err.as_str())))
        .collect();
    Some(maev::export_json(&maev::ExportInput {
        input: &run.input,
        backend: &run.backend,
        trials,
    }))
}
