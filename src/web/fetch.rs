//! The one place that sends HTTP requests.

use gloo_net::http::Request;

use crate::errors::JudgeError;
use crate::providers::HttpRequest;

/// Status, the `Retry-After` header and the body text of a response.
pub struct RawResponse {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: String,
}

/// Sends `req` with `fetch`. Credentials (cookies) are never sent; the only secret is the
/// Authorization header the request already carries for its own endpoint.
pub async fn send(req: &HttpRequest) -> Result<RawResponse, JudgeError> {
    let mut builder = Request::post(&req.url)
        .credentials(web_sys::RequestCredentials::Omit)
        .referrer_policy(web_sys::ReferrerPolicy::NoReferrer);
    for (name, value) in &req.headers {
        builder = builder.header(name, value);
    }
    let request = builder
        .body(req.body.clone())
        .map_err(|e| JudgeError::Setting { message: format!("Could not build the request: {e}") })?;
    let response = request.send().await.map_err(|_| JudgeError::Network { url: req.url.clone() })?;
    let status = response.status();
    let retry_after = response.headers().get("retry-after");
    let body = response.text().await.map_err(|_| JudgeError::BadResponse {
        detail: "the connection closed before the whole answer arrived".into(),
    })?;
    Ok(RawResponse { status, retry_after, body })
}
