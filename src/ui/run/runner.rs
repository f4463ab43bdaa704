//! The request runner shared by every metric's run: sends a request through the transport
//! (cache, limiter, retries), reports its progress, keeps runs apart by generation, cancels,
//! and asks for explanations.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::answers::errors::redact;
use crate::transport::limiter::Limiter;
use crate::transport::retry::RetryPolicy;
use crate::ui::state::{AppState, ExplainState, Progress, Settings};
use crate::web::cache;
use crate::web::transport::{send_chat, Answer, SendOptions};

/// Options for this provider's requests, from the current settings.
pub(crate) fn send_options<'a>(
    state: Settings,
    limiter: &'a Limiter,
    cancel: Option<&'a web_sys::AbortSignal>,
) -> SendOptions<'a> {
    SendOptions {
        timeout_ms: state
            .provider
            .timeout_s
            .get_untracked()
            .saturating_mul(1000),
        policy: RetryPolicy {
            max_retries: state.provider.max_retries.get_untracked(),
            ..RetryPolicy::default()
        },
        limiter,
        cancel,
        read_cache: !state.provider.fresh_run.get_untracked(),
        cache_tag: None,
    }
}

/// A fresh Cancel for a new run; the previous run's is fired so nothing of it lingers.
pub(crate) fn new_cancel(state: AppState) -> Option<web_sys::AbortSignal> {
    let controller = web_sys::AbortController::new().ok();
    let signal = controller.as_ref().map(|c| c.signal());
    if let Some(old) = state.settings.provider.cancel.get_value() {
        old.abort();
    }
    state.settings.provider.cancel.set_value(controller);
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
    // The views an export records are those the in-page judge read for this run's answers.
    crate::web::in_browser::forget_image_views();
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
    interpret: impl FnOnce(
            &crate::answers::completion::Completion,
        ) -> Result<T, crate::answers::errors::JudgeError>
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
            state.settings,
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
        refresh_cache_count(state.settings);
    });
}

/// Sends one chat request through the transport (cache, limiter, fetch, retries, Cancel), as
/// one boxed future used by every caller (each metric's [`send_one`], Explain, the batch run):
/// left generic, the whole transport was compiled once per caller, about 10 KB of wasm each.
pub(crate) fn fetch_answer(
    state: Settings,
    cancel: Option<web_sys::AbortSignal>,
    protocol: crate::providers::Protocol,
    request: crate::providers::HttpRequest,
    cache_tag: Option<String>,
    on_wait: Box<dyn Fn(String)>,
) -> std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Answer, crate::answers::errors::JudgeError>>>,
> {
    Box::pin(async move {
        let limiter = state.provider.limiter.get_value();
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
    interpret: impl FnOnce(
            &crate::answers::completion::Completion,
        ) -> Result<T, crate::answers::errors::JudgeError>
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
    if let Some(c) = state.settings.provider.cancel.get_value() {
        c.abort();
    }
}

/// Sends an explanation request of the current run into `slot` (any metric's Explain).
/// The backend Explain asks: the run's own, or, for an opened result (whose file's base URL and
/// key are never kept), the one configured now, once it is set up.
pub(crate) fn explain_backend(
    state: AppState,
    run: &crate::providers::Backend,
) -> Result<crate::providers::Backend, String> {
    if !run.base_url.trim().is_empty() {
        return Ok(run.clone());
    }
    if let Some(missing) = crate::ui::run::guidance::missing_key(state) {
        return Err(missing);
    }
    Ok(state.settings.provider.backend())
}

pub(crate) fn ask_why(
    state: AppState,
    slot: RwSignal<ExplainState>,
    backend: crate::providers::Backend,
    request: Result<crate::providers::HttpRequest, crate::answers::errors::JudgeError>,
) {
    // What is shown now (an opened result's stored explanation, an earlier answer) is never
    // wiped by a failed ask: it stays, with the reason beside it.
    let previous = slot.with_untracked(|s| s.stored().map(str::to_string));
    let request = match request {
        Ok(r) => r,
        Err(e) => return slot.set(ExplainState::after_failure(previous, e.to_string())),
    };
    slot.set(ExplainState::Running);
    let generation = state.generation.get_value();
    let cancel = state
        .settings
        .provider
        .cancel
        .get_value()
        .map(|c| c.signal());
    spawn_local(async move {
        let outcome = fetch_answer(
            state.settings,
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
            Ok(_) => ExplainState::after_failure(
                previous,
                "The model returned an empty explanation.".into(),
            ),
            Err(e) => {
                ExplainState::after_failure(previous, redact(&e.to_string(), &backend.api_key))
            }
        });
    });
}

/// Re-reads how many answers the cache holds.
pub fn refresh_cache_count(state: Settings) {
    spawn_local(async move {
        state.provider.cache_count.set(cache::count().await);
    });
}

/// Empties the answer cache.
pub fn clear_cache(state: Settings) {
    spawn_local(async move {
        let message = match cache::clear().await {
            Ok(()) => "Cache cleared: the next run asks the model again.".to_string(),
            Err(e) => e,
        };
        state.provider.cache_message.set(Some(message));
        state.provider.cache_count.set(cache::count().await);
    });
}

/// Export: saves the last run's result file, named after its metric, its text's start and the
/// local time; before a run, says there is nothing yet.
pub(crate) fn save_result(state: AppState, json: Option<String>) {
    let Some(json) = json else {
        return state.export_error.set(Some(
            "Evaluate first: there is nothing to export yet.".into(),
        ));
    };
    // The in-page judge's image views (its `engine` record; other providers' files have none).
    let json = match crate::web::in_browser::image_views_now() {
        Some(views) => views.record(&json),
        None => json,
    };
    let name = crate::files::export_name::for_result(&json, crate::web::download::local_now());
    let outcome = crate::web::download::download_text(&name, "application/json", &json);
    state.export_error.set(outcome.err());
}
