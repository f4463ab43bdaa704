//! What the buttons do. Each action reads the state, calls the pure core and the thin web layer,
//! and writes the outcome back into signals.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::state::{AppState, CriterionState, ExplainState, ImageView, RunContext};
use crate::criteria::Criterion;
use crate::errors::{redact, JudgeError};
use crate::metrics::harmonic_eval::{self, ExportInput, Input};
use crate::providers::{read_chat, HttpRequest, Protocol};
use crate::web::{download, fetch, image, storage};

/// Decodes and downscales a dropped, pasted or chosen file. A file that cannot be used leaves
/// the previous image in place and says why.
pub fn load_image(state: AppState, file: web_sys::File) {
    decode_image(state, file, false);
}

/// `keep_box`: the same picture at another size keeps its (normalised) REG box.
fn decode_image(state: AppState, file: web_sys::File, keep_box: bool) {
    let name = file.name();
    state.image_loading.set(true);
    spawn_local(async move {
        match image::load(&file, state.max_side.get_untracked()).await {
            Ok(loaded) => {
                state.image.set_value(Some(loaded));
                state.image_file.set_value(Some(file));
                if !keep_box {
                    state.red_box.set(None);
                }
                state.image_error.set(None);
                refresh_encoded_image(state);
            }
            Err(message) => {
                let kept = if state.image_view.get_untracked().is_some() {
                    " The previous image is kept."
                } else {
                    ""
                };
                state
                    .image_error
                    .set(Some(format!("\u{201c}{name}\u{201d}: {message}{kept}")));
            }
        }
        state.image_loading.set(false);
    });
}

/// Re-processes the current image, e.g. after the size limit changed.
pub fn reload_image(state: AppState) {
    if let Some(file) = state.image_file.get_value() {
        decode_image(state, file, true);
    }
}

/// Re-encodes the image as it will be sent (REG: with the red box drawn in).
pub fn refresh_encoded_image(state: AppState) {
    let file_name = state
        .image_file
        .with_value(|f| f.as_ref().map(|f| f.name()))
        .unwrap_or_default();
    let red_box = if state.task.get_untracked().needs_box() {
        state.red_box.get_untracked().filter(|b| b.is_usable())
    } else {
        None
    };
    let encoded = state.image.with_value(|img| {
        img.as_ref().map(|img| {
            image::encode_jpeg(img, red_box).map(|url| {
                (
                    url,
                    img.original_size,
                    (img.canvas.width(), img.canvas.height()),
                )
            })
        })
    });
    match encoded {
        Some(Ok((data_url, original_size, sent_size))) => {
            state.image_view.set(Some(ImageView {
                data_url,
                file_name,
                original_size,
                sent_size,
            }));
        }
        Some(Err(message)) => state.image_error.set(Some(message)),
        None => {}
    }
}

/// Sends one request and reads it as a chat completion; the key never reaches a message.
async fn send_chat(
    state: AppState,
    protocol: Protocol,
    request: &HttpRequest,
    api_key: &str,
) -> Result<crate::completion::Completion, String> {
    let timeout_ms = state.timeout_s.get_untracked().saturating_mul(1000);
    let result = match fetch::send(request, timeout_ms).await {
        Ok(raw) => read_chat(protocol, raw.status, raw.retry_after, &raw.body),
        Err(e) => Err(e),
    };
    result.map_err(|e: JudgeError| redact(&e.to_string(), api_key))
}

/// Starts a run: the five criteria are requested at the same time, and each card fills in as
/// its answer arrives. A failed criterion does not affect the others.
pub fn evaluate(state: AppState) {
    let image_data_url = state.image_view.get_untracked().map(|v| v.data_url);
    let input = Input {
        task: state.task.get_untracked(),
        text: state.text.get_untracked(),
        question: state.question.get_untracked(),
        image_data_url,
    };
    let mut problems = input.problems();
    if state.task.get_untracked().needs_box()
        && state
            .red_box
            .get_untracked()
            .filter(|b| b.is_usable())
            .is_none()
    {
        problems.push("Drag a box on the image around the object the expression refers to.".into());
    }
    state.form_problems.set(problems.clone());
    if !problems.is_empty() {
        return;
    }
    let backend = state.backend();
    state.run.set_value(Some(RunContext {
        input: input.clone(),
        backend: backend.clone(),
    }));
    let generation = state.generation.get_value() + 1;
    state.generation.set_value(generation);

    for criterion in Criterion::ALL {
        let slot = state.criterion(criterion);
        state.explanation(criterion).set(ExplainState::Idle);
        let request = match harmonic_eval::criterion_request(&backend, criterion, &input) {
            Ok(r) => r,
            Err(e) => {
                slot.set(CriterionState::Failed(e.to_string()));
                continue;
            }
        };
        slot.set(CriterionState::Running);
        let key = backend.api_key.clone();
        let backend = backend.clone();
        spawn_local(async move {
            let outcome = send_chat(state, backend.protocol, &request, &key)
                .await
                .and_then(|c| {
                    harmonic_eval::interpret(&c).map_err(|e| redact(&e.to_string(), &key))
                });
            if state.generation.get_value() != generation {
                return; // a newer run replaced this one
            }
            slot.set(match outcome {
                Ok(result) => CriterionState::Done(result),
                Err(message) => CriterionState::Failed(message),
            });
        });
    }
}

/// Asks the judge why it gave this criterion its score.
pub fn explain(state: AppState, criterion: Criterion) {
    let Some(run) = state.run.get_value() else {
        return;
    };
    let Some(score) = state
        .criterion(criterion)
        .with_untracked(|s| s.result().map(|r| r.score))
    else {
        return;
    };
    let slot = state.explanation(criterion);
    let request = match harmonic_eval::explain_request(&run.backend, criterion, &run.input, score) {
        Ok(r) => r,
        Err(e) => {
            slot.set(ExplainState::Failed(e.to_string()));
            return;
        }
    };
    slot.set(ExplainState::Running);
    let generation = state.generation.get_value();
    spawn_local(async move {
        let outcome = send_chat(state, run.backend.protocol, &request, &run.backend.api_key).await;
        if state.generation.get_value() != generation {
            return;
        }
        slot.set(match outcome {
            Ok(c) if !c.text.trim().is_empty() => ExplainState::Done(c.text),
            Ok(_) => ExplainState::Failed("The model returned an empty explanation.".into()),
            Err(message) => ExplainState::Failed(message),
        });
    });
}

/// Saves the whole result as JSON. The API key is not part of the document.
pub fn export(state: AppState) {
    let Some(run) = state.run.get_value() else {
        state.export_error.set(Some(
            "Evaluate first: there is nothing to export yet.".into(),
        ));
        return;
    };
    let states: Vec<CriterionState> = state.criteria.iter().map(|s| s.get_untracked()).collect();
    let results = std::array::from_fn(|i| match &states[i] {
        CriterionState::Done(r) => Some(Ok(r)),
        CriterionState::Failed(m) => Some(Err(m.clone())),
        _ => None,
    });
    let json = harmonic_eval::export_json(&ExportInput {
        gamma: state.gamma.get_untracked(),
        task: run.input.task,
        text: &run.input.text,
        question: if run.input.task.needs_question() {
            &run.input.question
        } else {
            ""
        },
        backend: &run.backend,
        results,
    });
    let outcome = download::download_text("harmonic-eval.json", "application/json", &json);
    state.export_error.set(outcome.err());
}

/// Keeps the non-secret settings across visits and the key where the user chose.
pub fn persist_settings(state: AppState) {
    Effect::new(move |_| storage::save_setting("hj.preset", &state.preset.get()));
    Effect::new(move |_| storage::save_setting("hj.base_url", &state.base_url.get()));
    Effect::new(move |_| storage::save_setting("hj.model", &state.model.get()));
    Effect::new(move |_| storage::save_setting("hj.max_side", &state.max_side.get().to_string()));
    Effect::new(move |_| storage::save_setting("hj.timeout_s", &state.timeout_s.get().to_string()));
    Effect::new(move |_| storage::save_api_key(&state.api_key.get(), state.remember_key.get()));
}
