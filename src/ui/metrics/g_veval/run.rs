//! What Evaluate and Export do for G-VEval.

use leptos::prelude::*;

use super::state::GvevalRun;
use crate::metrics::{g_veval, references_from_lines};
use crate::ui::run::runner::run_one;
use crate::ui::state::AppState;

/// The G-VEval input from the form: the medium follows the file (a video gives its composite).
pub fn input(state: AppState) -> g_veval::Input {
    g_veval::Input {
        image: state
            .inputs
            .image_view
            .with_untracked(|v| v.as_ref().and_then(|v| v.sent())),
        ..form(state)
    }
}

/// The input without the image itself, what the cost estimate needs (it is given the size).
pub fn form(state: AppState) -> g_veval::Input {
    let is_video = state.inputs.has_video_untracked();
    let mode = state.metric_settings.gveval.mode.get_untracked();
    g_veval::Input {
        medium: if is_video {
            g_veval::Medium::Video
        } else {
            g_veval::Medium::Image
        },
        mode,
        accr: state.results.g_veval.accr.get_untracked(),
        caption: state.inputs.text.get_untracked(),
        references: if mode.needs_references() {
            references_from_lines(&state.inputs.references.get_untracked())
        } else {
            Vec::new()
        },
        image: None,
        fidelity: state
            .settings
            .fidelity
            .with_untracked(|f| f.for_metric(crate::metrics::Metric::GVeval)),
    }
}

pub fn evaluate(state: AppState) {
    let input = input(state);
    let problems = input.problems();
    state.settings.form_problems.set(problems.clone());
    if !problems.is_empty() {
        return;
    }
    let backend = state.settings.provider.backend();
    let request = match g_veval::request(&backend, &input) {
        Ok(r) => r,
        Err(e) => {
            return state
                .results
                .g_veval
                .result
                .set(crate::ui::state::Progress::Failed(e.to_string()))
        }
    };
    let accr = input.accr;
    state.results.g_veval.run.set_value(Some(GvevalRun {
        input,
        backend: backend.clone(),
    }));
    run_one(
        state,
        state.results.g_veval.result,
        backend,
        request,
        move |c| g_veval::interpret(c, accr),
    );
}

pub fn export(state: AppState) {
    crate::ui::run::runner::save_result(state, result_json(state));
}

/// The G-VEval result file of the last run (export, share link, history); `None` before a run.
pub fn result_json(state: AppState) -> Option<String> {
    let run = state.results.g_veval.run.get_value()?;
    let progress = state.results.g_veval.result.get_untracked();
    let error = progress.error().unwrap_or_else(|| "not finished".into());
    Some(g_veval::export_json(&g_veval::ExportInput {
        input: &run.input,
        backend: &run.backend,
        result: progress.result().ok_or(error.as_str()),
    }))
}
