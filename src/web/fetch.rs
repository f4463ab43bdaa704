//! The one place that sends HTTP requests.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::answers::errors::JudgeError;
use crate::providers::{HttpRequest, Method};

pub use crate::web::response::RawResponse;

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
    let in_page = crate::providers::in_browser::handles(&req.url);
    // The in-page judge counts its time limit from the engine's last progress (the bridge's
    // watchdog): reading a photo's views can take minutes, all of them busy.
    let deadline = Deadline::new(if in_page { u32::MAX } else { timeout_ms }, cancel);
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
    if in_page {
        // The "In this browser" provider: the same request, answered by the engine in the page.
        return crate::web::in_browser::send(req, signal.as_ref(), timeout_ms).await;
    }
    let method = match req.method {
        Method::Get => "GET",
        Method::Post => "POST",
    };
    let body = match req.method {
        Method::Get => None,
        Method::Post => Some(JsValue::from_str(&req.body)),
    };
    let fetched = fetch(
        &req.url,
        method,
        &req.headers,
        body.as_ref(),
        web_sys::RequestMode::Cors,
        signal.as_ref(),
    );
    let response = match fetched.await {
        Ok(r) => r,
        Err(Failed::Redirect) => {
            return Err(JudgeError::Redirect {
                url: req.url.clone(),
            })
        }
        Err(_) if deadline.expired() => return Err(timed_out()),
        Err(_) => {
            return Err(JudgeError::Network {
                url: req.url.clone(),
            })
        }
    };
    let status = response.status();
    let retry_after = response.headers().get("retry-after").ok().flatten();
    let body = match text(&response).await {
        // A key the server echoes goes no further than here.
        Ok(b) => crate::providers::redact_answer(b, &req.headers),
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
    let no_headers: [(String, String); 0] = [];
    let answered = fetch(
        url,
        "GET",
        &no_headers,
        None,
        web_sys::RequestMode::NoCors,
        signal.as_ref(),
    )
    .await;
    !matches!(answered, Err(Failed::Other))
}

/// The size a server gives for a public file (a model's GGUF), asked with a HEAD request that
/// carries no header, no credentials and no key, so following its redirects (Hugging Face's
/// `resolve` URLs redirect to their CDN) sends nothing secret anywhere. `None` when the server
/// does not say, refuses this origin, or takes over 10 s.
pub async fn content_length(url: &str) -> Option<f64> {
    let deadline = Deadline::new(10_000, None);
    let init = web_sys::RequestInit::new();
    init.set_method("HEAD");
    init.set_mode(web_sys::RequestMode::Cors);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
    init.set_signal(deadline.signal().as_ref());
    let window = web_sys::window()?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .ok()?
        .unchecked_into();
    if !response.ok() {
        return None;
    }
    let length = response.headers().get("content-length").ok()??;
    length.trim().parse::<f64>().ok().filter(|n| *n > 0.0)
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
    let fetched = fetch(
        url,
        "POST",
        headers,
        Some(form.as_ref()),
        web_sys::RequestMode::Cors,
        signal.as_ref(),
    );
    let response = match fetched.await {
        Ok(r) => r,
        Err(Failed::Redirect) => {
            return Err(JudgeError::Redirect {
                url: url.to_string(),
            })
        }
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
    let retry_after = response.headers().get("retry-after").ok().flatten();
    let body = text(&response).await.map_err(|_| JudgeError::BadResponse {
        detail: "the connection closed before the whole answer arrived".into(),
    })?;
    let body = crate::providers::redact_answer(body, headers);
    Ok(RawResponse {
        status,
        retry_after,
        body,
    })
}

/// Why a `fetch` gave no response to read.
enum Failed {
    /// The server answered with a redirect, which is not followed.
    Redirect,
    /// Anything else: nothing listening, CORS, an aborted request, a header the browser refused.
    Other,
}

impl From<JsValue> for Failed {
    fn from(_: JsValue) -> Failed {
        Failed::Other
    }
}

/// One `fetch` with web-sys: never with cookies, never with a referrer, never following a
/// redirect. Browsers drop `Authorization` when a redirect crosses origins but keep custom
/// headers such as `x-goog-api-key` and `x-api-key`, so a followed redirect could carry the key
/// to another address. `redirect: "manual"` stops at the redirect itself (the browser hands back
/// an opaque answer and sends nothing further), and the caller names it; `"error"` would stop
/// it too but look exactly like a server that is down. gloo-net's request
/// builder did the same for 3.3 KB more of the first visit's gzipped download (wasm and JS
/// glue, measured by scripts/bench.py when it was replaced), so it no longer earns its bytes.
async fn fetch(
    url: &str,
    method: &str,
    headers: &[(String, String)],
    body: Option<&JsValue>,
    mode: web_sys::RequestMode,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<web_sys::Response, Failed> {
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    init.set_mode(mode);
    // Fetch refuses "manual" in no-cors mode; those probes carry no header and no key, so
    // following their redirects sends nothing secret anywhere.
    if mode == web_sys::RequestMode::Cors {
        init.set_redirect(web_sys::RequestRedirect::Manual);
    }
    init.set_credentials(web_sys::RequestCredentials::Omit);
    init.set_referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
    init.set_signal(signal);
    let h = web_sys::Headers::new()?;
    for (name, value) in headers {
        h.append(name, value)?;
    }
    init.set_headers(&h);
    if let Some(body) = body {
        init.set_body(body);
    }
    let window = web_sys::window().ok_or_else(|| JsValue::from_str("no window"))?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await?
        .unchecked_into();
    if response.type_() == web_sys::ResponseType::Opaqueredirect {
        return Err(Failed::Redirect);
    }
    Ok(response)
}

/// The whole body as text.
async fn text(response: &web_sys::Response) -> Result<String, JsValue> {
    let text = JsFuture::from(response.text()?).await?;
    text.as_string()
        .ok_or_else(|| JsValue::from_str("not text"))
}
