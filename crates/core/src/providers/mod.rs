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
pub mod in_browser;
pub mod llama;
pub mod openai;
mod presets;

pub use chat::{ChatParams, Image, Message, Part, Role, Tuning, REPEATABLE_SEED};
pub use presets::{preset, BackendChoice, Preset, PRESETS};

use std::fmt;

use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;

/// The wire format a backend speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Protocol {
    #[default]
    OpenAi,
    Gemini,
    Anthropic,
}

impl Protocol {
    /// Every wire format, in the order the page lists them.
    pub const ALL: [Protocol; 3] = [Protocol::OpenAi, Protocol::Gemini, Protocol::Anthropic];

    /// The wire format `id` names: a protocol's own id (what the page's exports record), or a
    /// preset's (`custom`, `llama_server`, `in_browser`, …, as `hj`'s results record a run);
    /// `None` for anything else, which no reader may take for OpenAI's.
    pub fn from_id(id: &str) -> Option<Protocol> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.id() == id)
            .or_else(|| {
                presets::PRESETS
                    .iter()
                    .find(|p| p.id == id)
                    .map(|p| p.protocol)
            })
    }

    /// The sentence for a file that names `id` as its judge's provider where [`Protocol::from_id`]
    /// knows none; `None` where it knows one, or where the file names none.
    pub fn unknown(id: &str) -> Option<String> {
        let id = id.trim();
        (!id.is_empty() && Protocol::from_id(id).is_none()).then(|| {
            format!(
                "The file names the provider \u{201c}{id}\u{201d}, which is not one this page knows ({}, or a preset's id such as custom): its scores are shown as the file recorded them, and nothing is asked of \u{201c}{id}\u{201d}.",
                Protocol::ALL.map(Protocol::id).join(", ")
            )
        })
    }

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

    /// The detail named `id`, or the sentence every door says, naming the door's `option`
    /// (`--detail`, `image_detail`).
    pub fn checked(id: &str, option: &str) -> Result<ImageDetail, String> {
        Self::ALL
            .into_iter()
            .find(|d| d.id() == id)
            .ok_or_else(|| format!("{option} is auto, low or high, not \u{201c}{id}\u{201d}."))
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
    /// The in-page judge's backend (WebGPU or CPU) and threads when it answers: recorded in
    /// exports, the history and share links. `None` for every other provider.
    pub engine: Option<in_browser::gpu::Engine>,
    /// The provider an opened result names where this page knows none ([`Protocol::unknown`]):
    /// exported again, the result still names it, never the protocol it is shown with. `None`
    /// for every backend set up here.
    pub recorded_provider: Option<String>,
}

impl Backend {
    /// The provider an export names: the opened file's own where this page does not know it,
    /// else the protocol's id.
    pub fn provider_id(&self) -> &str {
        self.recorded_provider
            .as_deref()
            .unwrap_or(self.protocol.id())
    }

    /// The metric's parameters as they reach the engine: the user's tuning applied, and for the
    /// in-page judge the wider list of alternatives it is asked for
    /// ([`in_browser::alternatives`]). What a result file records as its settings.
    pub fn sends(&self, params: ChatParams) -> ChatParams {
        let sent = self.tuning.apply(params);
        if in_browser::handles(&self.base_url) {
            ChatParams {
                top_logprobs: sent.top_logprobs.map(in_browser::alternatives),
                ..sent
            }
        } else {
            sent
        }
    }
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

/// The headers that carry a key, in any protocol.
const KEY_HEADERS: [&str; 3] = ["authorization", "x-goog-api-key", "x-api-key"];

/// The keys a request's headers carry (values, without `Bearer `).
pub fn secrets(headers: &[(String, String)]) -> impl Iterator<Item = &str> {
    headers
        .iter()
        .filter(|(n, _)| KEY_HEADERS.contains(&n.to_ascii_lowercase().as_str()))
        .map(|(_, v)| v.strip_prefix("Bearer ").unwrap_or(v).trim())
}

/// A successful answer's body with every key the request carried replaced by `[API key]`
/// (as [`crate::answers::errors::redact`] does for error messages): a server that echoes the key, in
/// a model list or in the text it writes, must not put it on the screen, in an export or in
/// the answer cache. Applied where every answer arrives (`web::fetch`), before anything reads
/// the body.
pub fn redact_answer(body: String, headers: &[(String, String)]) -> String {
    let mut body = body;
    for secret in secrets(headers) {
        if secret.len() >= 4 && body.contains(secret) {
            body = crate::answers::errors::redact(&body, secret);
        }
    }
    body
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

/// A checked base URL: `root` is everything before its query, without trailing slashes or a
/// fragment; `query` (without the `?`) stays after whatever path is appended, so
/// `https://proxy/v1?team=a` + `/models` is `https://proxy/v1/models?team=a`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl {
    root: String,
    query: String,
}

impl BaseUrl {
    /// The root followed by `path` (which may carry its own query, put after the base's).
    pub fn url(&self, path: &str) -> String {
        let (path, own) = path.split_once('?').unwrap_or((path, ""));
        let mut out = format!("{}{path}", self.root);
        let mut separator = '?';
        for query in [self.query.as_str(), own] {
            if !query.is_empty() {
                out.push(separator);
                out.push_str(query);
                separator = '&';
            }
        }
        out
    }

    /// The root with `suffix` cut off its end, when it ends so (a pasted
    /// `/chat/completions`, llama.cpp's `/v1`).
    pub fn without_suffix(mut self, suffix: &str) -> BaseUrl {
        if let Some(cut) = self.root.strip_suffix(suffix) {
            self.root.truncate(cut.len());
        }
        self
    }
}

/// Where the authority (`user:pass@host:port`) of an http(s) URL ends: at the first `/`, `\`
/// (browsers read it as `/`), `?` or `#` after the scheme.
fn authority_range(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let len = url[start..]
        .find(['/', '\\', '?', '#'])
        .unwrap_or(url.len() - start);
    Some((start, start + len))
}

/// The URL without a `user:pass@` part: what may be stored or exported of a base URL the user
/// typed, whatever else is wrong with it.
pub fn without_credentials(url: &str) -> String {
    match authority_range(url) {
        Some((start, end)) => match url[start..end].bytes().rposition(|b| b == b'@') {
            Some(at) => format!("{}{}", &url[..start], &url[start + at + 1..]),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// The base URL checked to be an http(s) URL without credentials in it, split into root and
/// query.
pub fn checked_base(base_url: &str) -> Result<BaseUrl, JudgeError> {
    let base = base_url.trim();
    if base.is_empty() {
        return Err(JudgeError::Setting {
            message: "Enter the backend's base URL.".into(),
        });
    }
    let lower = base.get(..8).unwrap_or(base).to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(JudgeError::Setting {
            message: format!(
                "The base URL must start with http:// or https:// (got \u{201c}{base}\u{201d})."
            ),
        });
    }
    if let Some((start, end)) = authority_range(base) {
        if base[start..end].contains('@') {
            return Err(JudgeError::Setting {
                message: format!(
                    "The base URL contains a user name or password: remove it (the address \
                     without it is {}).",
                    without_credentials(base)
                ),
            });
        }
    }
    let base = base.split('#').next().unwrap_or(base);
    let (root, query) = base.split_once('?').unwrap_or((base, ""));
    Ok(BaseUrl {
        root: root.trim_end_matches('/').to_string(),
        query: query.to_string(),
    })
}

/// The API key, trimmed, checked to be sendable in an HTTP header: header values are
/// ISO-8859-1 bytes without control characters, and a key with anything else (a curly quote, a
/// zero-width space or a line break picked up when copying it) would make the browser refuse the
/// request before sending it. The offending character is named by position, not the key.
pub fn checked_key(key: &str) -> Result<&str, JudgeError> {
    let key = key.trim();
    let bad = key
        .chars()
        .enumerate()
        .find(|(_, c)| u32::from(*c) > 0xFF || c.is_control());
    if let Some((i, c)) = bad {
        return Err(JudgeError::Setting {
            message: format!(
                "The API key is malformed: its character {} (code {}) cannot go in an HTTP \
                 header. Paste the key again.",
                i + 1,
                u32::from(c)
            ),
        });
    }
    Ok(key)
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
pub fn openai_base(base_url: &str) -> Result<BaseUrl, JudgeError> {
    Ok(checked_base(base_url)?.without_suffix("/chat/completions"))
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
    let mut json: serde_json::Value =
        serde_json::from_str(body).map_err(|e| JudgeError::BadResponse {
            detail: format!("not a model list ({e})"),
        })?;
    // Taken out, not cloned: a list of 100k models is copied nowhere.
    let list = json.get_mut(key).map(serde_json::Value::take);
    let Some(serde_json::Value::Array(list)) = list else {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn backend(protocol: Protocol, base_url: &str, key: &str) -> Backend {
        Backend {
            protocol,
            base_url: base_url.into(),
            model: "m".into(),
            api_key: key.into(),
            ..Backend::default()
        }
    }

    #[test]
    fn an_image_detail_is_named_or_refused_with_a_sentence() {
        // The sentence lists the ids in ALL's order.
        let named = ["auto", "low", "high"].map(|id| ImageDetail::checked(id, "image_detail"));
        assert_eq!(named, ImageDetail::ALL.map(Ok));
        let refused = ImageDetail::checked("max", "--detail").unwrap_err();
        assert_eq!(
            refused,
            "--detail is auto, low or high, not \u{201c}max\u{201d}."
        );
    }

    #[test]
    fn the_in_page_judge_is_sent_and_records_its_wider_list_of_alternatives() {
        let page = backend(Protocol::OpenAi, in_browser::BASE_URL, "");
        let server = backend(Protocol::OpenAi, "http://127.0.0.1:8080/v1", "");
        assert_eq!(page.sends(ChatParams::RATING).top_logprobs, Some(64));
        assert_eq!(server.sends(ChatParams::RATING).top_logprobs, Some(20));
        let five = ChatParams {
            top_logprobs: Some(5),
            ..ChatParams::RATING
        };
        assert_eq!(
            page.sends(five).top_logprobs,
            Some(5),
            "a paper's 5 stays 5"
        );
        let none = ChatParams {
            top_logprobs: None,
            ..ChatParams::RATING
        };
        assert_eq!(page.sends(none).top_logprobs, None);
        // The tuning still applies: the user's output budget.
        let mut tuned = page.clone();
        tuned.tuning.max_tokens = Some(7);
        assert_eq!(tuned.sends(ChatParams::RATING).max_tokens, 7);
    }

    const ALL: [Protocol; 3] = Protocol::ALL;

    #[test]
    fn a_provider_id_is_read_strictly_and_an_unknown_one_is_said() {
        for p in Protocol::ALL {
            assert_eq!(Protocol::from_id(p.id()), Some(p));
        }
        assert_eq!(Protocol::from_id("custom"), Some(Protocol::OpenAi));
        assert_eq!(Protocol::from_id("in_browser"), Some(Protocol::OpenAi));
        assert_eq!(Protocol::from_id("llama_server"), Some(Protocol::OpenAi));
        for unknown in ["mistral", "OpenAI", "openai ", "", "gemini2"] {
            assert_eq!(Protocol::from_id(unknown), None, "{unknown:?}");
        }
        let said = Protocol::unknown("mistral").expect("a sentence");
        assert!(
            said.contains("\u{201c}mistral\u{201d}") && said.contains("openai, gemini, anthropic")
        );
        assert_eq!(Protocol::unknown("gemini"), None);
        assert_eq!(Protocol::unknown("vllm"), None);
        assert_eq!(
            Protocol::unknown("  "),
            None,
            "a file that names none is not refused"
        );
    }

    #[test]
    fn an_opened_results_unknown_provider_is_what_its_exports_name() {
        let shown = Backend {
            recorded_provider: Some("mistral".into()),
            ..Backend::default()
        };
        assert_eq!(
            shown.protocol,
            Protocol::OpenAi,
            "shown with the default wire format"
        );
        assert_eq!(shown.provider_id(), "mistral");
        assert_eq!(crate::batch::kept::judge(&shown).provider, "mistral");
        let set_up_here = Backend {
            protocol: Protocol::Gemini,
            ..Backend::default()
        };
        assert_eq!(set_up_here.provider_id(), "gemini");
    }

    #[test]
    fn a_query_in_the_base_url_stays_after_the_appended_path() {
        let b = checked_base("https://proxy.example/v1/?team=a&x=1#frag").unwrap();
        assert_eq!(
            b.url("/models"),
            "https://proxy.example/v1/models?team=a&x=1"
        );
        assert_eq!(
            b.url("/models?pageSize=1000"),
            "https://proxy.example/v1/models?team=a&x=1&pageSize=1000"
        );
        let chat = openai::chat_completions_url("http://h/v1/chat/completions?k=v").unwrap();
        assert_eq!(chat, "http://h/v1/chat/completions?k=v");
        let no_query = checked_base("http://h/v1/").unwrap();
        assert_eq!(no_query.url("/messages"), "http://h/v1/messages");
        for p in ALL {
            let b = backend(p, "http://h/v1?team=a", "k");
            let msgs = [Message::user(vec![Part::Text("rate".into())])];
            let chat = chat_request(&b, &msgs, ChatParams::RATING).unwrap();
            assert!(chat.url.starts_with("http://h/v1/"), "{}", chat.url);
            assert!(chat.url.contains("?team=a"), "{}", chat.url);
            assert!(!chat.url.contains("team=a/"), "{}", chat.url);
            let list = models_request(&b).unwrap();
            assert!(
                list.url.starts_with("http://h/v1/models?team=a"),
                "{}",
                list.url
            );
        }
        let props = llama::props_request(&backend(Protocol::OpenAi, "http://h:8080/v1?x=y", ""));
        assert_eq!(props.unwrap().url, "http://h:8080/props?x=y");
    }

    #[test]
    fn credentials_in_the_base_url_are_refused_and_never_kept() {
        for url in [
            "http://user:pass@127.0.0.1:8080/v1",
            "https://token@api.example/v1",
            "HTTP://u:p@h",
            "http://a@b\\@h/v1",
        ] {
            let err = checked_base(url).unwrap_err();
            assert!(err.to_string().contains("user name or password"), "{err}");
            assert!(!err.to_string().contains("pass@"), "{err}");
            for p in ALL {
                assert!(chat_request(&backend(p, url, "k"), &[], ChatParams::RATING).is_err());
                assert!(models_request(&backend(p, url, "k")).is_err());
            }
        }
        assert_eq!(
            without_credentials("http://user:pass@127.0.0.1:8080/v1?q=a@b"),
            "http://127.0.0.1:8080/v1?q=a@b"
        );
        assert_eq!(without_credentials("http://h/v1"), "http://h/v1");
        assert_eq!(without_credentials("not a url"), "not a url");
        // An @ after the authority (a path or query) is not a credential.
        assert!(checked_base("http://h/v1/@team?x=a@b").is_ok());
    }

    #[test]
    fn a_key_that_cannot_go_in_a_header_is_named_malformed_before_sending() {
        for key in [
            "sk-abc\u{201d}",
            "sk-\u{200b}abc",
            "AIza\u{0100}x",
            "sk-a\nb",
            "sk-\u{7f}",
        ] {
            let err = checked_key(key).unwrap_err();
            assert!(err.to_string().contains("malformed"), "{err}");
            assert!(
                !err.to_string().contains("sk-a"),
                "the key is not echoed: {err}"
            );
            for p in ALL {
                let b = backend(p, "http://h/v1", key);
                let chat = chat_request(&b, &[], ChatParams::RATING).unwrap_err();
                assert!(chat.to_string().contains("malformed"), "{p:?}: {chat}");
                let list = models_request(&b).unwrap_err();
                assert!(list.to_string().contains("malformed"), "{p:?}: {list}");
            }
        }
        // Latin-1 and plain keys pass; surrounding whitespace is trimmed as before.
        assert_eq!(checked_key("  sk-proj-AbC_09  ").unwrap(), "sk-proj-AbC_09");
        assert_eq!(checked_key("caf\u{e9}").unwrap(), "caf\u{e9}");
        assert_eq!(checked_key("").unwrap(), "");
    }
}

#[cfg(test)]
mod redaction_tests {
    use super::*;

    #[test]
    fn a_key_echoed_in_a_successful_answer_is_redacted_before_anything_reads_it() {
        for protocol in [Protocol::OpenAi, Protocol::Gemini, Protocol::Anthropic] {
            let backend = Backend {
                protocol,
                base_url: "http://h/v1".into(),
                model: "m".into(),
                api_key: "sk-echoed-SECRET-42".into(),
                ..Backend::default()
            };
            let req = chat_request(&backend, &[], ChatParams::RATING).unwrap();
            assert_eq!(
                secrets(&req.headers).collect::<Vec<_>>(),
                ["sk-echoed-SECRET-42"]
            );
            let body = r#"{"choices":[{"message":{"content":"Your key sk-echoed-SECRET-42 is 4"}}],
                "data":[{"id":"sk-echoed-SECRET-42"}]}"#;
            let clean = redact_answer(body.to_string(), &req.headers);
            assert!(!clean.contains("SECRET"), "{clean}");
            assert_eq!(clean.matches("[API key]").count(), 2);
            // Still JSON, and what the answer says is kept around the key.
            let c = crate::answers::completion::parse_chat_completion(&clean).unwrap();
            assert_eq!(c.text, "Your key [API key] is 4");
        }
        // No key, or a body without it: untouched.
        assert_eq!(redact_answer("{\"a\":1}".into(), &[]), "{\"a\":1}");
    }
}
