//! Sending one request natively, as the page's transport does (`web/transport.rs`): the same
//! retry policy (`transport::retry`, Retry-After honoured as the least wait), a time limit, no
//! redirect followed (the key never goes to another address), an echoed key redacted before the
//! answer is read (`providers::redact_answer`), and the answer read by the provider's reader.

use std::io::Read;
use std::time::Duration;

use harmonic_judge_core::answers::completion::Completion;
use harmonic_judge_core::answers::errors::JudgeError;
use harmonic_judge_core::providers::{read_chat, redact_answer, HttpRequest, Method, Protocol};
use harmonic_judge_core::transport::retry::RetryPolicy;

/// A client for one run: its time limit and retries.
pub struct Client {
    agent: ureq::Agent,
    pub timeout_s: u32,
    pub policy: RetryPolicy,
}

/// What the server sent back.
pub struct Raw {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: String,
}

/// Answers over this size are not ours (a judge's answer is a few kilobytes).
const MAX_BODY: u64 = 64 << 20;

impl Client {
    pub fn new(timeout_s: u32, max_retries: u32) -> Client {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(u64::from(timeout_s.max(1)))))
            .user_agent(concat!("harmonic-judge/", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            agent: config.into(),
            timeout_s,
            policy: RetryPolicy {
                max_retries,
                ..RetryPolicy::default()
            },
        }
    }

    /// One attempt.
    pub fn send(&self, req: &HttpRequest) -> Result<Raw, JudgeError> {
        let mut builder = match req.method {
            Method::Get => ureq::http::Request::get(&req.url),
            Method::Post => ureq::http::Request::post(&req.url),
        };
        for (name, value) in &req.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let sent = match req.method {
            Method::Get => builder.body(()).map_err(|_| bad_url(req)).and_then(|r| {
                self.agent
                    .run(r)
                    .map_err(|e| failed(req, e, self.timeout_s))
            }),
            Method::Post => builder
                .body(req.body.clone())
                .map_err(|_| bad_url(req))
                .and_then(|r| {
                    self.agent
                        .run(r)
                        .map_err(|e| failed(req, e, self.timeout_s))
                }),
        };
        let mut response = sent?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            return Err(JudgeError::Redirect {
                url: req.url.clone(),
            });
        }
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut bytes = Vec::new();
        response
            .body_mut()
            .as_reader()
            .take(MAX_BODY)
            .read_to_end(&mut bytes)
            .map_err(|_| JudgeError::Network {
                url: req.url.clone(),
            })?;
        let body = redact_answer(String::from_utf8_lossy(&bytes).into_owned(), &req.headers);
        Ok(Raw {
            status,
            retry_after,
            body,
        })
    }

    /// A chat request with retries: `on_wait` hears why it waits before each retry.
    pub fn chat(
        &self,
        protocol: Protocol,
        req: &HttpRequest,
        on_wait: &dyn Fn(String),
    ) -> Result<Completion, JudgeError> {
        let mut retries = 0;
        loop {
            let error = match self.send(req) {
                Ok(raw) => match read_chat(protocol, raw.status, raw.retry_after, &raw.body) {
                    Ok(c) => return Ok(c),
                    Err(e) => e,
                },
                Err(e) => e,
            };
            let Some(wait) = self.policy.next_wait(retries, &error, jitter(), now_s()) else {
                return Err(error);
            };
            retries += 1;
            on_wait(wait.sentence);
            std::thread::sleep(Duration::from_millis(u64::from(wait.ms)));
        }
    }
}

fn bad_url(req: &HttpRequest) -> JudgeError {
    JudgeError::Setting {
        message: format!(
            "\u{201c}{}\u{201d} is not a URL a request can go to: check the base URL.",
            req.url
        ),
    }
}

fn failed(req: &HttpRequest, e: ureq::Error, timeout_s: u32) -> JudgeError {
    match e {
        ureq::Error::Timeout(_) => JudgeError::Timeout { seconds: timeout_s },
        ureq::Error::BadUri(_) => bad_url(req),
        _ => JudgeError::Network {
            url: req.url.clone(),
        },
    }
}

fn now_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// A number in [0, 1) for the backoff's jitter (not for anything secret).
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}
