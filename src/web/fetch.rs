//! The one place that sends HTTP requests.

use gloo_net::http::Request;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::errors::JudgeError;
use crate::providers::{HttpRequest, Method};

/// Status, the `Retry-After` header and the body text of a response.
pub struct RawResponse {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: String,
}

/// Aborts the request when the time limit passes, so a silent server never leaves a card
/// spinning forever, or when the run's cancel signal fires. Dropping it cancels the timer and
/// unhooks it from the run.
struct Deadline {
    controller: Option<web_sys::AbortController>,
    handle: Option<i32>,
    _on_timeout: Option<Closure<dyn FnMut()>>,
    cancel: Option<(web_sys::AbortSignal, Closure<dyn FnMut()>)>,
}

impl Deadline {
    fn new(timeout_ms: u32, cancel: Option<&web_sys::AbortSignal>) -> Deadline {
        let controller = web_sys::AbortController::new().ok();
        let window = web_sys::window();
        let (handle, closure) = match (&controller, &window) {
            (Some(c), Some(w)) => {
                let c = c.clone();
                let closure = Closure::<dyn FnMut()>::new(move || c.abort());
                let handle = w
                    .set_timeout_with_callback_and_timeout_and_arguments_0(
                        closure.as_ref().unchecked_ref(),
                        timeout_ms.min(i32::MAX as u32) as i32,
                    )
                    .ok();
                (handle, Some(closure))
            }
            _ => (None, None),
        };
        // Forward the run's Cancel to this request.
        let cancel = match (cancel, &controller) {
            (Some(run), Some(c)) => {
                let c = c.clone();
                let forward = Closure::<dyn FnMut()>::new(move || c.abort());
                let _ =
                    run.add_event_listener_with_callback("abort", forward.as_ref().unchecked_ref());
                Some((run.clone(), forward))
            }
            _ => None,
        };
        Deadline {
            controller,
            handle,
            _on_timeout: closure,
            cancel,
        }
    }

    fn signal(&self) -> Option<web_sys::AbortSignal> {
        self.controller.as_ref().map(|c| c.signal())
    }

    fn expired(&self) -> bool {
        self.controller
            .as_ref()
            .is_some_and(|c| c.signal().aborted())
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        if let (Some(h), Some(w)) = (self.handle, web_sys::window()) {
            w.clear_timeout_with_handle(h);
        }
        if let Some((run, forward)) = &self.cancel {
            let _ =
                run.remove_event_listener_with_callback("abort", forward.as_ref().unchecked_ref());
        }
    }
}

/// Resolves after `ms`, or early when `cancel` fires; returns whether it was cancelled.
pub async fn sleep(ms: u32, cancel: Option<&web_sys::AbortSignal>) -> bool {
    if cancel.is_some_and(|c| c.aborted()) {
        return true;
    }
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                &resolve,
                ms.min(i32::MAX as u32) as i32,
            );
        }
        if let Some(c) = cancel {
            let _ = c.add_event_listener_with_callback("abort", &resolve);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    cancel.is_some_and(|c| c.aborted())
}

/// Sends `req` with `fetch`, giving up after `timeout_ms` (headers and body together) or when
/// `cancel` fires. Credentials (cookies) are never sent; the only secret is the auth header
/// the request already carries for its own endpoint.
pub async fn send(
    req: &HttpRequest,
    timeout_ms: u32,
    cancel: Option<&web_sys::AbortSignal>,
) -> Result<RawResponse, JudgeError> {
    if cancel.is_some_and(|c| c.aborted()) {
        return Err(JudgeError::Cancelled);
    }
    let deadline = Deadline::new(timeout_ms, cancel);
    let cancelled = || cancel.is_some_and(|c| c.aborted());
    let timed_out = || {
        if cancelled() {
            JudgeError::Cancelled
        } else {
            JudgeError::Timeout {
                seconds: timeout_ms / 1000,
            }
        }
    };
    let signal = deadline.signal();
    let builder = match req.method {
        Method::Get => Request::get(&req.url),
        Method::Post => Request::post(&req.url),
    };
    let mut builder = builder
        .credentials(web_sys::RequestCredentials::Omit)
        .referrer_policy(web_sys::ReferrerPolicy::NoReferrer)
        .abort_signal(signal.as_ref());
    for (name, value) in &req.headers {
        builder = builder.header(name, value);
    }
    let request = match req.method {
        Method::Get => builder.build(),
        Method::Post => builder.body(req.body.clone()),
    }
    .map_err(|e| JudgeError::Setting {
        message: format!("Could not build the request: {e}"),
    })?;
    let response = match request.send().await {
        Ok(r) => r,
        Err(_) if deadline.expired() => return Err(timed_out()),
        Err(_) => {
            return Err(JudgeError::Network {
                url: req.url.clone(),
            })
        }
    };
    let status = response.status();
    let retry_after = response.headers().get("retry-after");
    let body = match response.text().await {
        Ok(b) => b,
        Err(_) if deadline.expired() => return Err(timed_out()),
        Err(_) => {
            return Err(JudgeError::BadResponse {
                detail: "the connection closed before the whole answer arrived".into(),
            })
        }
    };
    Ok(RawResponse {
        status,
        retry_after,
        body,
    })
}

/// Whether anything answers at `url` when CORS is not asked for (an opaque `no-cors` GET).
/// After a CORS request failed, `true` means the server is up but refuses this page's origin;
/// `false` means nothing is listening there (or the network is down).
pub async fn reachable_without_cors(url: &str, timeout_ms: u32) -> bool {
    let deadline = Deadline::new(timeout_ms, None);
    let signal = deadline.signal();
    let Ok(request) = Request::get(url)
        .mode(web_sys::RequestMode::NoCors)
        .credentials(web_sys::RequestCredentials::Omit)
        .referrer_policy(web_sys::ReferrerPolicy::NoReferrer)
        .abort_signal(signal.as_ref())
        .build()
    else {
        return false;
    };
    request.send().await.is_ok()
}

/// POSTs a multipart form (a file upload) with the given headers; the browser writes the
/// multipart body and its boundary.
pub async fn send_form(
    url: &str,
    headers: &[(String, String)],
    form: &web_sys::FormData,
    timeout_ms: u32,
) -> Result<RawResponse, JudgeError> {
    let deadline = Deadline::new(timeout_ms, None);
    let signal = deadline.signal();
    let mut builder = Request::post(url)
        .credentials(web_sys::RequestCredentials::Omit)
        .referrer_policy(web_sys::ReferrerPolicy::NoReferrer)
        .abort_signal(signal.as_ref());
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    let request = builder
        .body(wasm_bindgen::JsValue::from(form.clone()))
        .map_err(|e| JudgeError::Setting {
            message: format!("Could not build the upload: {e}"),
        })?;
    let response = match request.send().await {
        Ok(r) => r,
        Err(_) if deadline.expired() => {
            return Err(JudgeError::Timeout {
                seconds: timeout_ms / 1000,
            })
        }
        Err(_) => {
            return Err(JudgeError::Network {
                url: url.to_string(),
            })
        }
    };
    let status = response.status();
    let retry_after = response.headers().get("retry-after");
    let body = response.text().await.map_err(|_| JudgeError::BadResponse {
        detail: "the connection closed before the whole answer arrived".into(),
    })?;
    Ok(RawResponse {
        status,
        retry_after,
        body,
    })
}
