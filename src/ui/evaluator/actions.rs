//! What the buttons do. Each action reads the state, calls the pure core and the thin web layer,
//! and writes the outcome back into signals.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::state::{AppState, CriterionState, ExplainState, ImageView, Progress, RunContext};
use crate::criteria::Criterion;
use crate::errors::redact;
use crate::limiter::Limiter;
use crate::metrics::harmonic_eval::{self, ExportInput, Input};
use crate::retry::RetryPolicy;
use crate::web::transport::{send_chat, Answer, SendOptions};
use crate::web::{cache, download, image, storage, timing, video};

/// Decodes and downscales a dropped, pasted or chosen file. A file that cannot be used leaves
/// the previous image in place and says why.
pub fn load_image(state: AppState, file: web_sys::File) {
    decode_image(state, file, false);
}

/// `keep_box`: the same picture at another size keeps its (normalised) REG box.
fn decode_image(state: AppState, file: web_sys::File, keep_box: bool) {
    let name = file.name();
    state.image_loading.set(true);
    timing::start("hj-image-prep");
    spawn_local(async move {
        let loaded = if video::is_video(&file) {
            // The composite keeps its 1536×512 size: G-VEval's input, not a photo to shrink.
            video::composite(&file).await
        } else {
            image::load(&file, state.max_side.get_untracked()).await
        };
        match loaded {
            Ok(loaded) => {
                state.image.set_value(Some(loaded));
                state.image_file.set_value(Some(file));
                if !keep_box {
                    state.red_box.set(None);
                }
                state.image_error.set(None);
                refresh_encoded_image(state);
                timing::end("hj-image-prep");
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
    let red_box = if untrack(|| state.box_active()) {
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
                    img.note,
                )
            })
        })
    });
    match encoded {
        Some(Ok((data_url, original_size, sent_size, note))) => {
            let is_video = state
                .image_file
                .with_value(|f| f.as_ref().is_some_and(video::is_video));
            state.image_view.set(Some(ImageView {
                data_url,
                file_name,
                original_size,
                sent_size,
                is_video,
                note,
            }));
        }
        Some(Err(message)) => state.image_error.set(Some(message)),
        None => {}
    }
}

/// Options for this provider's requests, from the current settings.
pub(crate) fn send_options<'a>(
    state: AppState,
    limiter: &'a Limiter,
    cancel: Option<&'a web_sys::AbortSignal>,
) -> SendOptions<'a> {
    SendOptions {
        timeout_ms: state.timeout_s.get_untracked().saturating_mul(1000),
        policy: RetryPolicy {
            max_retries: state.max_retries.get_untracked(),
            ..RetryPolicy::default()
        },
        limiter,
        cancel,
        read_cache: !state.fresh_run.get_untracked(),
        cache_tag: None,
    }
}

/// A fresh Cancel for a new run; the previous run's is fired so nothing of it lingers.
pub(crate) fn new_cancel(state: AppState) -> Option<web_sys::AbortSignal> {
    let controller = web_sys::AbortController::new().ok();
    let signal = controller.as_ref().map(|c| c.signal());
    if let Some(old) = state.cancel.get_value() {
        old.abort();
    }
    state.cancel.set_value(controller);
    signal
}

/// A started run: answers from older runs are dropped, and Cancel reaches this one.
pub(crate) struct RunHandle {
    generation: u64,
    cancel: Option<web_sys::AbortSignal>,
}

/// Starts a new run generation with its own Cancel.
pub(crate) fn begin_run(state: AppState) -> RunHandle {
    let generation = state.generation.get_value() + 1;
    state.generation.set_value(generation);
    state.billed.set(Vec::new());
    RunHandle {
        generation,
        cancel: new_cancel(state),
    }
}

/// Sends one request of `run` through the transport and reports its progress to `set`, the
/// answer read by `interpret`. `cache_tag` keeps identical requests apart in the cache (MAEV's
/// trials may repeat a prompt but are independent samples).
pub(crate) fn send_one<T: 'static>(
    state: AppState,
    run: &RunHandle,
    backend: crate::providers::Backend,
    request: crate::providers::HttpRequest,
    cache_tag: Option<String>,
    set: impl Fn(Progress<T>) + Clone + 'static,
    interpret: impl FnOnce(&crate::completion::Completion) -> Result<T, crate::errors::JudgeError>
        + 'static,
) {
    let generation = run.generation;
    let cancel = run.cancel.clone();
    set(Progress::Running);
    spawn_local(async move {
        let current = move || state.generation.get_value() == generation;
        let on_wait = {
            let set = set.clone();
            move |note: String| {
                if current() {
                    set(Progress::Retrying(note));
                }
            }
        };
        let answer = fetch_answer(
            state,
            cancel,
            backend.protocol,
            request,
            cache_tag,
            Box::new(on_wait),
        )
        .await;
        if !current() {
            return;
        }
        if let Some(usage) = answer
            .as_ref()
            .ok()
            .filter(|a| !a.cached)
            .and_then(|a| a.completion.usage)
        {
            state.billed.update(|b| b.push(usage));
        }
        let outcome = answer.and_then(|a| interpret(&a.completion).map(|r| (r, a.cached)));
        set(match outcome {
            Ok((result, cached)) => Progress::Done { result, cached },
            Err(e) => Progress::Failed(redact(&e.to_string(), &backend.api_key)),
        });
        refresh_cache_count(state);
    });
}

/// Sends one chat request through the transport (cache, limiter, fetch, retries, Cancel), as
/// one boxed future used by every caller (each metric's [`send_one`], Explain, the batch run):
/// left generic, the whole transport was compiled once per caller, about 10 KB of wasm each.
pub(crate) fn fetch_answer(
    state: AppState,
    cancel: Option<web_sys::AbortSignal>,
    protocol: crate::providers::Protocol,
    request: crate::providers::HttpRequest,
    cache_tag: Option<String>,
    on_wait: Box<dyn Fn(String)>,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Answer, crate::errors::JudgeError>>>>
{
    Box::pin(async move {
        let limiter = state.limiter.get_value();
        let mut options = send_options(state, &limiter, cancel.as_ref());
        options.cache_tag = cache_tag;
        send_chat(protocol, &request, &options, on_wait).await
    })
}

/// Runs a one-request metric (FLEUR, G-VEval) into `slot`.
pub(crate) fn run_one<T>(
    state: AppState,
    slot: RwSignal<Progress<T>>,
    backend: crate::providers::Backend,
    request: crate::providers::HttpRequest,
    interpret: impl FnOnce(&crate::completion::Completion) -> Result<T, crate::errors::JudgeError>
        + 'static,
) where
    T: Clone + Send + Sync + 'static,
{
    let run = begin_run(state);
    send_one(
        state,
        &run,
        backend,
        request,
        None,
        move |p| slot.set(p),
        interpret,
    );
}

/// Stops every request of the current run; criteria already scored keep their scores.
pub fn cancel(state: AppState) {
    if let Some(c) = state.cancel.get_value() {
        c.abort();
    }
}

/// Said when a video is given to a metric that judges images.
pub(crate) const VIDEO_NEEDS_G_VEVAL: &str =
    "This metric judges images; for a video, choose G-VEval (or drop an image).";

/// Starts a run of the selected metric.
pub fn evaluate(state: AppState) {
    // One run at a time: the button is disabled while its run is in flight, and a click that
    // slips through (a double click before the page redraws) starts nothing.
    if state.running() {
        return;
    }
    // A provider that needs a key gets one before anything is sent (not five 401s after).
    if let Some(m) = crate::ui::guidance::missing_key(state) {
        state.form_problems.set(vec![m]);
        return;
    }
    if state.is_harmonic() {
        evaluate_harmonic(state);
    } else if state.is_gveval() {
        crate::ui::gveval_run::evaluate(state);
    } else if state.is_maev() {
        crate::ui::maev_run::evaluate(state);
    } else {
        crate::ui::fleur_run::evaluate(state);
    }
}

/// Starts a HarmonicEval run: the criteria are requested concurrently (up to the provider's limit), and
/// each card fills in as its answer arrives. A failed criterion does not affect the others.
fn evaluate_harmonic(state: AppState) {
    let image_data_url = state.image_view.get_untracked().map(|v| v.data_url);
    let input = Input {
        task: state.task.get_untracked(),
        text: state.text.get_untracked(),
        question: state.question.get_untracked(),
        image_data_url,
        fidelity: state.fidelity_now(),
        criteria: state.he_criteria.get_untracked(),
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
    if state.has_video() {
        problems.push(VIDEO_NEEDS_G_VEVAL.into());
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
    state.billed.set(Vec::new());
    let cancel = new_cancel(state);

    for criterion in Criterion::ALL {
        let slot = state.criterion(criterion);
        state.explanation(criterion).set(ExplainState::Idle);
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
        let run = RunHandle {
            generation,
            cancel: cancel.clone(),
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
    let request = harmonic_eval::explain_request(&run.backend, criterion, &run.input, score);
    ask_why(state, state.explanation(criterion), run.backend, request);
}

/// Sends an explanation request of the current run into `slot` (any metric's Explain).
pub(crate) fn ask_why(
    state: AppState,
    slot: RwSignal<ExplainState>,
    backend: crate::providers::Backend,
    request: Result<crate::providers::HttpRequest, crate::errors::JudgeError>,
) {
    let request = match request {
        Ok(r) => r,
        Err(e) => return slot.set(ExplainState::Failed(e.to_string())),
    };
    slot.set(ExplainState::Running);
    let generation = state.generation.get_value();
    let cancel = state.cancel.get_value().map(|c| c.signal());
    spawn_local(async move {
        let outcome = fetch_answer(
            state,
            cancel,
            backend.protocol,
            request,
            None,
            Box::new(|_| {}),
        )
        .await;
        if state.generation.get_value() != generation {
            return;
        }
        slot.set(match outcome {
            Ok(a) if !a.completion.text.trim().is_empty() => ExplainState::Done(a.completion.text),
            Ok(_) => ExplainState::Failed("The model returned an empty explanation.".into()),
            Err(e) => ExplainState::Failed(redact(&e.to_string(), &backend.api_key)),
        });
    });
}

/// Re-reads how many answers the cache holds.
pub fn refresh_cache_count(state: AppState) {
    spawn_local(async move {
        state.cache_count.set(cache::count().await);
    });
}

/// Empties the answer cache.
pub fn clear_cache(state: AppState) {
    spawn_local(async move {
        let message = match cache::clear().await {
            Ok(()) => "Cache cleared: the next run asks the model again.".to_string(),
            Err(e) => e,
        };
        state.cache_message.set(Some(message));
        state.cache_count.set(cache::count().await);
    });
}

/// Saves the selected metric's result as JSON. The API key is not part of the document.
pub fn export(state: AppState) {
    if state.is_gveval() {
        return crate::ui::gveval_run::export(state);
    }
    if state.is_maev() {
        return crate::ui::maev_run::export(state);
    }
    if !state.is_harmonic() {
        return crate::ui::fleur_run::export(state);
    }
    let Some(json) = harmonic_json(state, None) else {
        state.export_error.set(Some(
            "Evaluate first: there is nothing to export yet.".into(),
        ));
        return;
    };
    let outcome = download::download_text("harmonic-eval.json", "application/json", &json);
    state.export_error.set(outcome.err());
}

/// The HarmonicEval result file of the last run (export, share link), with Explain's answers
/// and, if given, an image; `None` before a run.
pub fn harmonic_json(state: AppState, image: Option<&str>) -> Option<String> {
    let run = state.run.get_value()?;
    let states: Vec<CriterionState> = state.criteria.iter().map(|s| s.get_untracked()).collect();
    let results = std::array::from_fn(|i| match &states[i] {
        Progress::Done { result, .. } => Some(Ok(result)),
        Progress::Failed(m) => Some(Err(m.clone())),
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
        fidelity: &run.input.fidelity,
        criteria: run.input.criteria,
    });
    // Explain's answers travel with the result, so opening the file shows them again.
    let explained = std::array::from_fn(|i| match state.explanations[i].get_untracked() {
        crate::ui::state::ExplainState::Done(t) => Some(t),
        _ => None,
    });
    Some(crate::result_file::with_extras(&json, image, &explained, None))
}

/// Keeps the non-secret settings across visits and the key where the user chose.
/// Provider settings are saved under the current preset, so each provider keeps its own.
pub fn persist_settings(state: AppState) {
    // A refused write is said at once (what was not kept), not dropped.
    let kept = move |outcome: Result<(), String>| {
        if let Err(e) = outcome {
            state.storage_error.set(Some(e));
        }
    };
    let per_provider = move |name: &'static str, value: String| {
        kept(storage::save_provider_setting(
            &state.preset.get_untracked(),
            name,
            &value,
        ))
    };
    Effect::new(move |_| kept(storage::save_setting("hj.preset", &state.preset.get())));
    Effect::new(move |_| kept(storage::save_setting("hj.metric", &state.metric.get())));
    // A user:password@ typed into the base URL is refused when sending and never stored.
    Effect::new(move |_| {
        let url = crate::providers::without_credentials(&state.base_url.get());
        per_provider("base_url", url)
    });
    Effect::new(move |_| per_provider("model", state.model.get()));
    Effect::new(move |_| per_provider("detail", state.image_detail.get().id().into()));
    Effect::new(move |_| per_provider("concurrency", state.concurrency.get().to_string()));
    Effect::new(move |_| per_provider("repeatable", state.repeatable.get().to_string()));
    // The budget shown is the chosen metric's on this provider: reload it when either changes,
    // and keep what the user types under both.
    Effect::new(move |_| {
        let (preset, metric) = (state.preset.get(), state.metric.get());
        state
            .max_tokens
            .set(crate::ui::state::load_max_tokens(&preset, &metric));
    });
    Effect::new(move |_| {
        let n = state.max_tokens.get();
        let name = format!("max_tokens.{}", state.metric.get_untracked());
        kept(storage::save_provider_setting(
            &state.preset.get_untracked(),
            &name,
            &n.to_string(),
        ))
    });
    Effect::new(move |_| {
        kept(storage::save_setting(
            "hj.max_side",
            &state.max_side.get().to_string(),
        ))
    });
    Effect::new(move |_| {
        kept(storage::save_setting(
            "hj.timeout_s",
            &state.timeout_s.get().to_string(),
        ))
    });
    Effect::new(move |_| {
        kept(storage::save_setting(
            "hj.max_retries",
            &state.max_retries.get().to_string(),
        ))
    });
    Effect::new(move |_| kept(storage::save_setting("hj.prices", &state.prices.get())));
    Effect::new(move |_| {
        kept(storage::save_setting(
            "hj.maev.trials",
            &state.maev_trials.get().to_string(),
        ))
    });
    Effect::new(move |_| {
        kept(storage::save_setting(
            "hj.maev.threshold",
            &state.maev_threshold.get().to_string(),
        ))
    });
    Effect::new(move |_| {
        let pool = state
            .maev_pool
            .with(|p| serde_json::to_string(p).unwrap_or_default());
        kept(storage::save_setting("hj.maev.pool", &pool))
    });
    Effect::new(move |_| {
        let (key, remember) = (state.api_key.get(), state.remember_key.get());
        kept(storage::save_api_key(
            &state.preset.get_untracked(),
            &key,
            remember,
        ))
    });
    Effect::new(move |_| {
        let n = state.effective_concurrency() as usize;
        state.limiter.with_value(|l| l.set_limit(n));
    });
}
