//! Backends the judge can talk to. Request building and response reading are pure; only the
//! transport in `crate::web::fetch` touches the network.
//!
//! Three wire protocols cover every backend: OpenAI-compatible chat completions (OpenAI,
//! OpenRouter, vLLM, Ollama, llama.cpp `llama-server`), Gemini `generateContent`, and
//! Anthropic Messages. Each adapter module offers the same four functions:
//! `chat_request`, `read_response`, `models_request` and `read_models`.

pub mod anthropic;
pub mod chat;
pub mod check;
pub mod gemini;
pub mod llama;
pub mod openai;
mod presets;

pub use chat::{ChatParams, Message, Part, Role, Tuning, REPEATABLE_SEED};
pub use presets::{preset, Preset, PRESETS};

use std::fmt;

use crate::completion::Completion;
use crate::errors::JudgeError;

/// The wire format a backend speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Protocol {
    #[default]
    OpenAi,
    Gemini,
    Anthropic,
}

impl Protocol {
    pub fn id(self) -> &'static str {
        match self {
            Protocol::OpenAi => "openai",
            Protocol::Gemini => "gemini",
            Protocol::Anthropic => "anthropic",
        }
    }

    /// Whether ratings come with token probabilities. Anthropic's API has none, so its scores
    /// are parsed from the text and marked unsmoothed.
    pub fn has_logprobs(self) -> bool {
        !matches!(self, Protocol::Anthropic)
    }
}

/// OpenAI's `image_url.detail`: how many image tokens the model spends (SPEC §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ImageDetail {
    #[default]
    Auto,
    Low,
    High,
}

impl ImageDetail {
    pub const ALL: [ImageDetail; 3] = [ImageDetail::Auto, ImageDetail::Low, ImageDetail::High];

    pub fn id(self) -> &'static str {
        match self {
            ImageDetail::Auto => "auto",
            ImageDetail::Low => "low",
            ImageDetail::High => "high",
        }
    }

    pub fn from_id(id: &str) -> ImageDetail {
        Self::ALL
            .into_iter()
            .find(|d| d.id() == id)
            .unwrap_or_default()
    }
}

/// Where requests go and as whom. The key is sent only to `base_url`.
#[derive(Clone, PartialEq, Default)]
pub struct Backend {
    pub protocol: Protocol,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
    /// Sent only by the OpenAI protocol, and only when not `Auto` (OpenAI's default).
    pub image_detail: ImageDetail,
    /// Output budget, llama.cpp's prompt cache and repeatable mode.
    pub tuning: Tuning,
}

impl fmt::Debug for Backend {
    // Never print the key, even in a debug log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Backend")
            .field("protocol", &self.protocol)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field(
                "api_key",
                &if self.api_key.is_empty() { "" } else { "[set]" },
            )
            .field("image_detail", &self.image_detail)
            .field("tuning", &self.tuning)
            .finish()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

/// A ready-to-send HTTP request. Its `Debug` output hides header values.
#[derive(Clone, PartialEq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// Empty for GET.
    pub body: String,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &names)
            .field("body_bytes", &self.body.len())
            .finish()
    }
}

/// A model a backend offers, as its model list describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    pub id: String,
    /// Whether it accepts images, when the listing says so.
    pub vision: Option<bool>,
}

/// Builds one chat request in the backend's protocol.
pub fn chat_request(
    backend: &Backend,
    messages: &[Message],
    params: ChatParams,
) -> Result<HttpRequest, JudgeError> {
    let params = backend.tuning.apply(params);
    match backend.protocol {
        Protocol::OpenAi => openai::chat_request(backend, messages, params),
        Protocol::Gemini => gemini::chat_request(backend, messages, params),
        Protocol::Anthropic => anthropic::chat_request(backend, messages, params),
    }
}

/// Reads an HTTP answer to [`chat_request`] as a completion or the error a person should read.
pub fn read_chat(
    protocol: Protocol,
    status: u16,
    retry_after: Option<String>,
    body: &str,
) -> Result<Completion, JudgeError> {
    match protocol {
        Protocol::OpenAi => openai::read_response(status, retry_after, body),
        Protocol::Gemini => gemini::read_response(status, retry_after, body),
        Protocol::Anthropic => anthropic::read_response(status, retry_after, body),
    }
}

/// The request that lists the backend's models.
pub fn models_request(backend: &Backend) -> Result<HttpRequest, JudgeError> {
    match backend.protocol {
        Protocol::OpenAi => openai::models_request(backend),
        Protocol::Gemini => gemini::models_request(backend),
        Protocol::Anthropic => anthropic::models_request(backend),
    }
}

/// Reads a model list (HTTP status already checked).
pub fn read_models(protocol: Protocol, body: &str) -> Result<Vec<ModelInfo>, JudgeError> {
    match protocol {
        Protocol::OpenAi => openai::read_models(body),
        Protocol::Gemini => gemini::read_models(body),
        Protocol::Anthropic => anthropic::read_models(body),
    }
}

/// The base URL without trailing slashes, checked to be an http(s) URL.
pub fn checked_base(base_url: &str) -> Result<&str, JudgeError> {
    let base = base_url.trim().trim_end_matches('/');
    if base.is_empty() {
        return Err(JudgeError::Setting {
            message: "Enter the backend's base URL.".into(),
        });
    }
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(JudgeError::Setting {
            message: format!(
                "The base URL must start with http:// or https:// (got \u{201c}{base}\u{201d})."
            ),
        });
    }
    Ok(base)
}

/// The model name, trimmed, or the sentence asking for one.
pub fn checked_model(backend: &Backend) -> Result<&str, JudgeError> {
    let model = backend.model.trim();
    if model.is_empty() {
        return Err(JudgeError::Setting {
            message: "Enter a model name.".into(),
        });
    }
    Ok(model)
}

/// The base URL of an OpenAI-compatible server: checked, and without a pasted
/// `/chat/completions`.
pub fn openai_base(base_url: &str) -> Result<&str, JudgeError> {
    let base = checked_base(base_url)?;
    Ok(base.strip_suffix("/chat/completions").unwrap_or(base))
}

/// A GET request (model lists, status polls) with the given headers.
pub(crate) fn get_request(url: String, headers: Vec<(&str, String)>) -> HttpRequest {
    HttpRequest {
        method: Method::Get,
        url,
        headers: headers
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect(),
        body: String::new(),
    }
}

/// A model list's JSON and its `key` array (`data` or `models`), or why it is not one.
pub(crate) fn model_list(
    body: &str,
    key: &str,
) -> Result<(serde_json::Value, Vec<serde_json::Value>), JudgeError> {
    let json: serde_json::Value =
        serde_json::from_str(body).map_err(|e| JudgeError::BadResponse {
            detail: format!("not a model list ({e})"),
        })?;
    let Some(list) = json.get(key).and_then(serde_json::Value::as_array).cloned() else {
        return Err(JudgeError::BadResponse {
            detail: format!("the model list has no \"{key}\" array"),
        });
    };
    Ok((json, list))
}

/// A JSON content-type header plus whatever auth headers the protocol wants.
pub(crate) fn json_headers(auth: Vec<(&str, String)>) -> Vec<(String, String)> {
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    headers.extend(auth.into_iter().map(|(n, v)| (n.to_string(), v)));
    headers
}
