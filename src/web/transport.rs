//! One provider request with everything around it: the answer cache, the per-provider
//! concurrency limit, retries with backoff for rate limits and server failures, the time limit
//! and the run's Cancel. Every metric sends through here.

use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;
use crate::providers::{read_chat, HttpRequest, Protocol};
use crate::transport::limiter::Limiter;
use crate::transport::request_key::{request_key, with_engine};
use crate::transport::retry::RetryPolicy;
use crate::web::{cache, fetch};

pub struct SendOptions<'a> {
    pub timeout_ms: u32,
    pub policy: RetryPolicy,
    pub limiter: &'a Limiter,
    pub cancel: Option<&'a web_sys::AbortSignal>,
    /// Answer from the cache when it has this exact request.
    pub read_cache: bool,
    /// Added to the cache key, so identical requests meant as independent samples are cached
    /// apart.
    pub cache_tag: Option<String>,
}

/// A completion and how it was obtained.
pub struct Answer {
    pub completion: Completion,
    /// Answered from the local cache: no request was sent, nothing was billed.
    pub cached: bool,
}

/// Sends a chat request and reads the answer. `on_wait` hears, in one sentence, why the
/// request is waiting before a retry.
pub async fn send_chat(
    protocol: Protocol,
    request: &HttpRequest,
    options: &SendOptions<'_>,
    on_wait: impl Fn(String),
) -> Result<Answer, JudgeError> {
    let mut key = request_key(protocol, request);
    // The in-page judge or a host: decided once here (`web/fetch.rs` routes by the same URL).
    let in_page = crate::providers::in_browser::handles(&request.url);
    if in_page {
        // What is loaded, as the engine last said (no call to it: that lives in its chunk).
        let loaded = crate::web::in_browser::loaded_now();
        key = with_engine(&key, loaded.as_ref().map(|(identity, _)| identity.as_str()));
    }
    if let Some(tag) = &options.cache_tag {
        key.push(':');
        key.push_str(tag);
    }
    // The cache is read without a time limit of its own: its database's open fails when blocked
    // (`cache::database`) and a read's transaction ends by itself, so it cannot hang; a 3 s race
    // around it cost a five-request evaluation about 15 ms (round 53, measured against a build
    // without it in one session).
    if options.read_cache {
        if let Some(body) = cache::get(&key).await {
            if let Ok(completion) = read_chat(protocol, 200, None, &body) {
                return Ok(Answer {
                    completion,
                    cached: true,
                });
            }
        }
    }
    // The in-page judge times its requests from here, queue included (`judge-timing`).
    let _queued = in_page.then(crate::web::in_browser::queued);
    let cancelled = || options.cancel.is_some_and(|c| c.aborted());
    let mut retries = 0;
    loop {
        let permit = options.limiter.acquire().await;
        if cancelled() {
            return Err(JudgeError::Cancelled);
        }
        let outcome = fetch::send(request, options.timeout_ms, options.cancel).await;
        drop(permit);
        let error = match outcome {
            Ok(raw) => match read_chat(protocol, raw.status, raw.retry_after, &raw.body) {
                Ok(completion) => {
                    if let Err(sentence) = cache::put(&key, &raw.body).await {
                        cache::report_write_error(sentence);
                    }
                    return Ok(Answer {
                        completion,
                        cached: false,
                    });
                }
                Err(e) => e,
            },
            Err(e) => e,
        };
        if cancelled() {
            return Err(JudgeError::Cancelled);
        }
        let Some(wait) = options.policy.next_wait(
            retries,
            &error,
            js_sys::Math::random(),
            js_sys::Date::now() / 1000.0,
        ) else {
            return Err(error);
        };
        retries += 1;
        on_wait(wait.sentence);
        if fetch::sleep(wait.ms, options.cancel).await {
            return Err(JudgeError::Cancelled);
        }
    }
}
