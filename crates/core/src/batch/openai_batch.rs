//! OpenAI's Batch API: the same chat requests, sent as one JSONL file and answered within 24 h
//! at half the price (platform.openai.com/docs/api-reference/batch and /files).
//!
//! A run goes through five calls, each built and read here so the browser only transports:
//!
//! 1. [`input_jsonl`] writes the requests (built as usual by
//!    [`crate::providers::openai::chat_request`]) as one JSONL file, one line per request,
//!    each tagged with a `custom_id`;
//! 2. [`upload_request`] says where and how the browser uploads it (`POST {base}/files`, a
//!    multipart form the browser builds with `FormData`); [`read_file_object`] reads the file id;
//! 3. [`create_request`] starts the batch; [`read_batch`] reads the batch object;
//! 4. [`status_request`] polls it until [`BatchInfo::is_terminal`];
//! 5. [`content_request`] downloads the output file (successful requests) and the error file
//!    (failed ones); [`read_output`] reads either, each line exactly as a live answer would be.
//!
//! [`cancel_request`] stops a batch. The API key goes only in the `Authorization` header.

use std::collections::HashSet;
use std::fmt;

use serde_json::{json, Value};

use crate::answers::completion::Completion;
use crate::answers::errors::{error_body_message, JudgeError};
use crate::providers::{
    get_request, json_headers, openai, openai::bearer, openai_base, Backend, BaseUrl, HttpRequest,
    Method, Protocol,
};

/// The endpoint every line of the input file targets, relative to the API root.
pub const ENDPOINT: &str = "/v1/chat/completions";

/// OpenAI's limit on requests in one batch.
pub const MAX_REQUESTS: usize = 50_000;

/// OpenAI's limit on the size of one batch input file (200 MB, counted in decimal megabytes
/// to stay on the safe side).
pub const MAX_FILE_BYTES: usize = 200_000_000;

/// The `purpose` field of the upload form.
pub const UPLOAD_PURPOSE: &str = "batch";

/// The file name the upload form gives the JSONL file.
pub const UPLOAD_FILE_NAME: &str = "harmonic-judge-batch.jsonl";

/// OpenAI bills Batch API requests at 50 % of the synchronous price (input and output tokens
/// alike), in exchange for answers within the 24-hour completion window instead of at once.
pub const BATCH_DISCOUNT: f64 = 0.5;

/// What the same requests cost through the Batch API, given their synchronous price.
pub fn batch_cost(usd_sync: f64) -> f64 {
    usd_sync * BATCH_DISCOUNT
}

// ---------------------------------------------------------------------------------------------
// The input file.
// ---------------------------------------------------------------------------------------------

/// The batch input file: one line per request,
/// `{"custom_id":…,"method":"POST","url":"/v1/chat/completions","body":{…}}`, each ending in a
/// newline. The requests must be OpenAI chat-completion requests with JSON bodies, and the
/// `custom_id`s non-empty and unique (the output is matched back by them, not by order).
/// More than [`MAX_REQUESTS`] requests or a file over [`MAX_FILE_BYTES`] is refused.
pub fn input_jsonl(requests: &[(String, HttpRequest)]) -> Result<String, JudgeError> {
    jsonl_within(requests, MAX_FILE_BYTES)
}

/// [`input_jsonl`] with the size limit as a parameter, so tests need not build 200 MB.
fn jsonl_within(
    requests: &[(String, HttpRequest)],
    max_bytes: usize,
) -> Result<String, JudgeError> {
    if requests.is_empty() {
        return Err(setting("There are no requests to send as a batch.".into()));
    }
    if requests.len() > MAX_REQUESTS {
        return Err(too_many(requests.len()));
    }
    let mut seen = HashSet::with_capacity(requests.len());
    let mut out = String::new();
    for (custom_id, request) in requests {
        if !seen.insert(custom_id.as_str()) {
            return Err(setting(format!(
                "The custom_id \u{201c}{custom_id}\u{201d} is used twice; each batch request \
                 needs its own."
            )));
        }
        out.push_str(&input_line(custom_id, request)?);
        if out.len() > max_bytes {
            return Err(too_big(max_bytes));
        }
    }
    Ok(out)
}

/// One line of the batch input file (its newline included): `custom_id` must be non-empty and
/// `request` an OpenAI chat-completion request with a JSON body. What [`input_jsonl`] writes
/// for each request, and what a caller writing the file as it plans uses.
pub fn input_line(custom_id: &str, request: &HttpRequest) -> Result<String, JudgeError> {
    if custom_id.is_empty() {
        return Err(setting(
            "Every batch request needs a custom_id (an empty one was given).".into(),
        ));
    }
    if request.method != Method::Post || !request.url.ends_with("/chat/completions") {
        return Err(setting(format!(
            "Request \u{201c}{custom_id}\u{201d} is not a chat-completion request, so it \
             cannot go into an OpenAI batch."
        )));
    }
    let body: Value = serde_json::from_str(&request.body).map_err(|e| {
        setting(format!(
            "Request \u{201c}{custom_id}\u{201d} has no JSON body ({e}), so it cannot go \
             into an OpenAI batch."
        ))
    })?;
    // Written by hand to keep OpenAI's documented key order; `Value` serialises compactly,
    // so a line never contains a raw newline.
    let mut out = String::with_capacity(request.body.len() + custom_id.len() + 64);
    out.push_str("{\"custom_id\":");
    out.push_str(&Value::String(custom_id.to_string()).to_string());
    out.push_str(",\"method\":\"POST\",\"url\":");
    out.push_str(&Value::String(ENDPOINT.into()).to_string());
    out.push_str(",\"body\":");
    out.push_str(&body.to_string());
    out.push_str("}\n");
    Ok(out)
}

fn too_big(max_bytes: usize) -> JudgeError {
    setting(format!(
        "The batch file would be over {} MB, OpenAI's limit for one batch. Split the dataset \
         into smaller runs or use smaller images.",
        max_bytes / 1_000_000
    ))
}

fn too_many(requests: usize) -> JudgeError {
    setting(format!(
        "A batch of {requests} requests is too large: OpenAI accepts at most {MAX_REQUESTS} \
         requests per batch. Split the dataset into smaller runs."
    ))
}

/// The limits of the runner a batch file is made for: OpenAI's Batch API has
/// [`MAX_REQUESTS`] and [`MAX_FILE_BYTES`]; vLLM's `run_batch` and the other servers none
/// (none is invented for them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub max_requests: Option<usize>,
    pub max_bytes: Option<usize>,
}

impl Limits {
    /// The limits for the provider preset `id`: OpenAI's for `openai`, none for the others.
    pub fn for_provider(id: &str) -> Limits {
        if id == "openai" {
            Limits {
                max_requests: Some(MAX_REQUESTS),
                max_bytes: Some(MAX_FILE_BYTES),
            }
        } else {
            Limits {
                max_requests: None,
                max_bytes: None,
            }
        }
    }

    /// Refuses `requests` requests in `bytes` bytes where they pass a limit.
    pub fn check(&self, requests: usize, bytes: usize) -> Result<(), JudgeError> {
        match (self.max_requests, self.max_bytes) {
            (Some(max), _) if requests > max => Err(too_many(requests)),
            (_, Some(max)) if bytes > max => Err(too_big(max)),
            _ => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Requests.
// ---------------------------------------------------------------------------------------------

/// How the browser uploads the input file: a `multipart/form-data` POST to `url` with the given
/// headers (no `Content-Type`: the browser sets it with the boundary), a `purpose` field and a
/// `file` field holding the JSONL under `file_name`. Its `Debug` output hides header values.
#[derive(Clone, PartialEq)]
pub struct UploadPlan {
    /// `{base}/files`.
    pub url: String,
    /// The `Authorization` header only.
    pub headers: Vec<(String, String)>,
    /// Always [`UPLOAD_PURPOSE`].
    pub purpose: &'static str,
    /// Always [`UPLOAD_FILE_NAME`].
    pub file_name: &'static str,
}

impl fmt::Debug for UploadPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("UploadPlan")
            .field("url", &self.url)
            .field("headers", &names)
            .field("purpose", &self.purpose)
            .field("file_name", &self.file_name)
            .finish()
    }
}

/// Where and how to upload the input file (`POST {base}/files`, purpose `batch`).
pub fn upload_request(backend: &Backend) -> Result<UploadPlan, JudgeError> {
    let base = api_base(backend)?;
    Ok(UploadPlan {
        url: base.url("/files"),
        headers: vec![auth(backend)?],
        purpose: UPLOAD_PURPOSE,
        file_name: UPLOAD_FILE_NAME,
    })
}

/// `POST {base}/batches`: starts a batch over an uploaded input file.
pub fn create_request(backend: &Backend, input_file_id: &str) -> Result<HttpRequest, JudgeError> {
    let base = api_base(backend)?;
    let input_file_id = checked_id("file", input_file_id)?;
    let body = json!({
        "input_file_id": input_file_id,
        "endpoint": ENDPOINT,
        "completion_window": "24h",
        "metadata": { "source": "harmonic-judge" },
    });
    Ok(HttpRequest {
        method: Method::Post,
        url: base.url("/batches"),
        headers: json_headers(vec![auth_ref(backend)?]),
        body: body.to_string(),
    })
}

/// `GET {base}/batches/{batch_id}`: the batch's status and counts.
pub fn status_request(backend: &Backend, batch_id: &str) -> Result<HttpRequest, JudgeError> {
    let base = api_base(backend)?;
    let batch_id = checked_id("batch", batch_id)?;
    Ok(get_request(
        base.url(&format!("/batches/{batch_id}")),
        vec![auth_ref(backend)?],
    ))
}

/// `GET {base}/files/{file_id}/content`: an output or error file's JSONL.
pub fn content_request(backend: &Backend, file_id: &str) -> Result<HttpRequest, JudgeError> {
    let base = api_base(backend)?;
    let file_id = checked_id("file", file_id)?;
    Ok(get_request(
        base.url(&format!("/files/{file_id}/content")),
        vec![auth_ref(backend)?],
    ))
}

/// `POST {base}/batches/{batch_id}/cancel` with an empty JSON object.
pub fn cancel_request(backend: &Backend, batch_id: &str) -> Result<HttpRequest, JudgeError> {
    let base = api_base(backend)?;
    let batch_id = checked_id("batch", batch_id)?;
    Ok(HttpRequest {
        method: Method::Post,
        url: base.url(&format!("/batches/{batch_id}/cancel")),
        headers: json_headers(vec![auth_ref(backend)?]),
        body: "{}".into(),
    })
}

/// The API root (`https://api.openai.com/v1`), from the base URL the user typed (a pasted
/// `…/chat/completions` is cut back). Only the OpenAI protocol has this Batch API.
fn api_base(backend: &Backend) -> Result<BaseUrl, JudgeError> {
    if backend.protocol != Protocol::OpenAi {
        return Err(setting(
            "OpenAI's Batch API needs a backend that speaks the OpenAI protocol.".into(),
        ));
    }
    openai_base(&backend.base_url)
}

fn auth_ref(backend: &Backend) -> Result<(&'static str, String), JudgeError> {
    let key = backend.api_key.trim();
    if key.is_empty() {
        return Err(setting(
            "Enter an API key: OpenAI's Batch API does not work without one.".into(),
        ));
    }
    Ok(bearer(backend)?.remove(0))
}

fn auth(backend: &Backend) -> Result<(String, String), JudgeError> {
    auth_ref(backend).map(|(n, v)| (n.to_string(), v))
}

/// An id that goes into a URL path: OpenAI's are letters, digits, `_` and `-`
/// (`file-abc123`, `batch_abc123`); anything else would change the path.
fn checked_id<'a>(what: &str, id: &'a str) -> Result<&'a str, JudgeError> {
    let id = id.trim();
    let ok = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(id)
    } else {
        Err(setting(format!(
            "\u{201c}{id}\u{201d} is not a valid OpenAI {what} id."
        )))
    }
}

fn setting(message: String) -> JudgeError {
    JudgeError::Setting { message }
}

// ---------------------------------------------------------------------------------------------
// Responses.
// ---------------------------------------------------------------------------------------------

/// The error for a non-2xx answer to any batch or file call.
fn check_http(status: u16, body: &str) -> Result<(), JudgeError> {
    if (200..300).contains(&status) {
        Ok(())
    } else {
        Err(JudgeError::from_http(
            status,
            error_body_message(body),
            None,
        ))
    }
}

fn json_object(body: &str, what: &str) -> Result<Value, JudgeError> {
    let json: Value = serde_json::from_str(body).map_err(|e| JudgeError::BadResponse {
        detail: format!("not a {what} object ({e})"),
    })?;
    if json.is_object() {
        Ok(json)
    } else {
        Err(JudgeError::BadResponse {
            detail: format!("not a {what} object"),
        })
    }
}

/// The id of the file an upload created (`{"id":"file-…","object":"file",…}`).
pub fn read_file_object(status: u16, body: &str) -> Result<String, JudgeError> {
    check_http(status, body)?;
    let json = json_object(body, "file")?;
    json.get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| JudgeError::BadResponse {
            detail: "the file object has no \"id\"".into(),
        })
}

/// A batch's `status`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatchStatus {
    /// The input file is being checked.
    Validating,
    /// The input file failed validation; nothing ran (see [`BatchInfo::errors`]).
    Failed,
    InProgress,
    /// Done running; the output files are being written.
    Finalizing,
    Completed,
    /// The 24-hour window ran out; finished requests are in the output file, the others in the
    /// error file.
    Expired,
    Cancelling,
    Cancelled,
    /// A status this version does not know, as sent.
    Other(String),
}

impl BatchStatus {
    /// Reads OpenAI's status string.
    pub fn from_id(id: &str) -> BatchStatus {
        match id {
            "validating" => BatchStatus::Validating,
            "failed" => BatchStatus::Failed,
            "in_progress" => BatchStatus::InProgress,
            "finalizing" => BatchStatus::Finalizing,
            "completed" => BatchStatus::Completed,
            "expired" => BatchStatus::Expired,
            "cancelling" => BatchStatus::Cancelling,
            "cancelled" => BatchStatus::Cancelled,
            other => BatchStatus::Other(other.to_string()),
        }
    }

    /// OpenAI's status string.
    pub fn id(&self) -> &str {
        match self {
            BatchStatus::Validating => "validating",
            BatchStatus::Failed => "failed",
            BatchStatus::InProgress => "in_progress",
            BatchStatus::Finalizing => "finalizing",
            BatchStatus::Completed => "completed",
            BatchStatus::Expired => "expired",
            BatchStatus::Cancelling => "cancelling",
            BatchStatus::Cancelled => "cancelled",
            BatchStatus::Other(s) => s,
        }
    }

    /// The batch will not change any more (an unknown status is not taken as final).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            BatchStatus::Failed
                | BatchStatus::Completed
                | BatchStatus::Expired
                | BatchStatus::Cancelled
        )
    }
}

impl fmt::Display for BatchStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The parts of a batch object the app uses.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchInfo {
    pub id: String,
    pub status: BatchStatus,
    /// `request_counts` (0 while OpenAI has not counted yet).
    pub total: u64,
    pub completed: u64,
    pub failed: u64,
    /// The successful requests' answers, once there are any.
    pub output_file_id: Option<String>,
    /// The failed requests' answers, once there are any.
    pub error_file_id: Option<String>,
    /// Why the batch failed (`errors.data[].message`), prefixed `Line n: ` when OpenAI names
    /// the input line.
    pub errors: Vec<String>,
}

impl BatchInfo {
    /// The batch will not change any more.
    pub fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }
}

/// Reads a batch object (the answer to create, status and cancel requests).
pub fn read_batch(status: u16, body: &str) -> Result<BatchInfo, JudgeError> {
    check_http(status, body)?;
    let json = json_object(body, "batch")?;
    let id = json
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .ok_or_else(|| JudgeError::BadResponse {
            detail: "the batch object has no \"id\"".into(),
        })?;
    let batch_status =
        json.get("status")
            .and_then(Value::as_str)
            .ok_or_else(|| JudgeError::BadResponse {
                detail: "the batch object has no \"status\"".into(),
            })?;
    let count = |name: &str| {
        json.pointer(&format!("/request_counts/{name}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let file_id = |name: &str| {
        json.get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let errors = json
        .pointer("/errors/data")
        .and_then(Value::as_array)
        .map(|data| data.iter().filter_map(batch_error_text).collect())
        .unwrap_or_default();
    Ok(BatchInfo {
        id: id.to_string(),
        status: BatchStatus::from_id(batch_status),
        total: count("total"),
        completed: count("completed"),
        failed: count("failed"),
        output_file_id: file_id("output_file_id"),
        error_file_id: file_id("error_file_id"),
        errors,
    })
}

/// One `errors.data[]` entry as a sentence: its message (or code), with its line when given.
fn batch_error_text(entry: &Value) -> Option<String> {
    let text = entry
        .get("message")
        .and_then(Value::as_str)
        .filter(|m| !m.trim().is_empty())
        .or_else(|| entry.get("code").and_then(Value::as_str))?;
    Some(match entry.get("line").and_then(Value::as_u64) {
        Some(line) => format!("Line {line}: {text}"),
        None => text.to_string(),
    })
}

/// Reads an output or error file: one `(custom_id, result)` per non-blank line, in file order
/// (which need not be the input's). A line's `response` (`status_code` and `body`) is read by
/// [`openai::read_response`], exactly as a live answer; a line with only an `error` (the
/// request never ran: `batch_expired`, `batch_cancelled`, …) becomes an error; a line that
/// cannot be read becomes a [`JudgeError::BadResponse`] naming its 1-based line number, with
/// its `custom_id` when one can be read and `""` otherwise.
pub fn read_output(jsonl: &str) -> Vec<(String, Result<Completion, JudgeError>)> {
    jsonl
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| read_output_line(i + 1, line))
        .collect()
}

/// One line of an output or error file (its 1-based `number`), as [`read_output`] reads it: for
/// a reader that goes a line at a time (`native::batch_files::read_answers`).
pub fn read_output_line(number: usize, line: &str) -> (String, Result<Completion, JudgeError>) {
    let bad = |detail: String| JudgeError::BadResponse {
        detail: format!("line {number} of the batch results {detail}"),
    };
    let json: Value = match serde_json::from_str(line.trim()) {
        Ok(v) => v,
        Err(e) => return (String::new(), Err(bad(format!("is not JSON ({e})")))),
    };
    let Some(custom_id) = json.get("custom_id").and_then(Value::as_str) else {
        return (String::new(), Err(bad("has no custom_id".into())));
    };
    let custom_id = custom_id.to_string();
    let result = match json.get("response").filter(|r| !r.is_null()) {
        Some(response) => {
            let status = response
                .get("status_code")
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok());
            match (status, response.get("body")) {
                (Some(status), Some(body)) => {
                    // A plain-text error body arrives as a JSON string; pass its text.
                    let body = match body {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    openai::read_response(status, None, &body)
                }
                (None, _) => Err(bad("has a response without a status_code".into())),
                (Some(_), None) => Err(bad("has a response without a body".into())),
            }
        }
        None => match json.get("error").filter(|e| !e.is_null()) {
            Some(error) => Err(line_error(error)),
            None => Err(bad("has neither a response nor an error".into())),
        },
    };
    (custom_id, result)
}

/// A request the batch never ran.
fn line_error(error: &Value) -> JudgeError {
    let code = error.get("code").and_then(Value::as_str).unwrap_or("");
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    if code == "batch_cancelled" {
        return JudgeError::Cancelled;
    }
    let detail = match (code.is_empty(), message.is_empty()) {
        (false, false) => format!("the batch did not run this request ({code}: {message})"),
        (false, true) => format!("the batch did not run this request ({code})"),
        (true, false) => format!("the batch did not run this request ({message})"),
        (true, true) => "the batch did not run this request".to_string(),
    };
    JudgeError::BadResponse { detail }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::{ChatParams, Message, Part};

    const KEY: &str = "sk-test-batch-0123456789";

    fn backend() -> Backend {
        Backend {
            base_url: "https://api.openai.com/v1/".into(),
            model: "gpt-4o".into(),
            api_key: KEY.into(),
            ..Backend::default()
        }
    }

    fn chat(text: &str) -> HttpRequest {
        let msgs = [Message::user(vec![Part::Text(text.into())])];
        openai::chat_request(&backend(), &msgs, ChatParams::RATING).unwrap()
    }

    fn key_only_in_authorization(req: &HttpRequest) {
        assert!(!req.url.contains(KEY), "{}", req.url);
        assert!(!req.body.contains(KEY));
        for (name, value) in &req.headers {
            assert!(
                name == "Authorization" || !value.contains(KEY),
                "{name} carries the key"
            );
        }
        assert!(req
            .headers
            .contains(&("Authorization".into(), format!("Bearer {KEY}"))));
        assert!(!format!("{req:?}").contains(KEY));
    }

    #[test]
    fn input_lines_have_openais_shape() {
        let requests = vec![
            (
                "item1/correctness".to_string(),
                chat("rate \"this\"\nplease"),
            ),
            ("item1/fluency".to_string(), chat("rate")),
        ];
        let jsonl = input_jsonl(&requests).unwrap();
        assert!(jsonl.ends_with('\n'));
        let lines: Vec<&str> = jsonl.lines().collect();
        assert_eq!(lines.len(), 2);
        let body: Value = serde_json::from_str(&requests[1].1.body).unwrap();
        assert_eq!(
            lines[1],
            format!(
                "{{\"custom_id\":\"item1/fluency\",\"method\":\"POST\",\
                 \"url\":\"/v1/chat/completions\",\"body\":{body}}}"
            )
        );
        let first: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(first["custom_id"], "item1/correctness");
        assert_eq!(first["method"], "POST");
        assert_eq!(first["url"], "/v1/chat/completions");
        assert_eq!(first["body"]["model"], "gpt-4o");
        assert_eq!(first["body"]["logprobs"], true);
        assert_eq!(
            first["body"]["messages"][0]["content"],
            "rate \"this\"\nplease"
        );
        assert!(!jsonl.contains(KEY));
    }

    #[test]
    fn input_refuses_duplicates_and_what_openai_would() {
        let dup = vec![("a".to_string(), chat("x")), ("a".to_string(), chat("y"))];
        let err = input_jsonl(&dup).unwrap_err();
        assert!(matches!(err, JudgeError::Setting { .. }));
        assert!(err.to_string().contains("used twice"), "{err}");

        assert!(matches!(input_jsonl(&[]), Err(JudgeError::Setting { .. })));
        assert!(input_jsonl(&[(String::new(), chat("x"))]).is_err());

        let mut models = chat("x");
        models.url = "https://api.openai.com/v1/models".into();
        assert!(input_jsonl(&[("a".into(), models)]).is_err());
        let mut not_json = chat("x");
        not_json.body = "not json".into();
        assert!(input_jsonl(&[("a".into(), not_json)]).is_err());

        let one = chat("x");
        let many: Vec<(String, HttpRequest)> = (0..=MAX_REQUESTS)
            .map(|i| (i.to_string(), one.clone()))
            .collect();
        let err = input_jsonl(&many).unwrap_err();
        assert!(matches!(err, JudgeError::Setting { .. }));
        assert!(err.to_string().contains("at most 50000 requests"), "{err}");
        assert!(input_jsonl(&many[..MAX_REQUESTS]).is_ok());

        // Over the size limit (tried with a 2 MB limit rather than building 200 MB).
        assert_eq!(MAX_FILE_BYTES, 200_000_000);
        let big = chat(&"A".repeat(1_000_000));
        let heavy: Vec<(String, HttpRequest)> =
            (0..3).map(|i| (i.to_string(), big.clone())).collect();
        assert!(jsonl_within(&heavy[..2], 2_100_000).is_ok());
        let err = jsonl_within(&heavy, 2_100_000).unwrap_err();
        assert!(matches!(err, JudgeError::Setting { .. }));
        assert!(err.to_string().contains("over 2 MB"), "{err}");
    }

    #[test]
    fn every_request_sends_the_key_only_in_the_authorization_header() {
        let b = backend();
        let plan = upload_request(&b).unwrap();
        assert_eq!(plan.url, "https://api.openai.com/v1/files");
        assert_eq!(
            plan.headers,
            vec![("Authorization".to_string(), format!("Bearer {KEY}"))]
        );
        assert_eq!(plan.purpose, "batch");
        assert_eq!(plan.file_name, "harmonic-judge-batch.jsonl");
        assert!(!format!("{plan:?}").contains(KEY));

        let create = create_request(&b, "file-abc123").unwrap();
        assert_eq!(create.method, Method::Post);
        assert_eq!(create.url, "https://api.openai.com/v1/batches");
        assert!(create
            .headers
            .contains(&("Content-Type".into(), "application/json".into())));
        let body: Value = serde_json::from_str(&create.body).unwrap();
        assert_eq!(
            body,
            json!({
                "input_file_id": "file-abc123",
                "endpoint": "/v1/chat/completions",
                "completion_window": "24h",
                "metadata": {"source": "harmonic-judge"},
            })
        );
        key_only_in_authorization(&create);

        let status = status_request(&b, "batch_abc123").unwrap();
        assert_eq!(status.method, Method::Get);
        assert_eq!(status.url, "https://api.openai.com/v1/batches/batch_abc123");
        assert!(status.body.is_empty());
        assert_eq!(status.headers.len(), 1);
        key_only_in_authorization(&status);

        let content = content_request(&b, "file-xyz").unwrap();
        assert_eq!(content.method, Method::Get);
        assert_eq!(
            content.url,
            "https://api.openai.com/v1/files/file-xyz/content"
        );
        assert_eq!(content.headers.len(), 1);
        key_only_in_authorization(&content);

        let cancel = cancel_request(&b, "batch_abc123").unwrap();
        assert_eq!(cancel.method, Method::Post);
        assert_eq!(
            cancel.url,
            "https://api.openai.com/v1/batches/batch_abc123/cancel"
        );
        assert_eq!(cancel.body, "{}");
        key_only_in_authorization(&cancel);
    }

    #[test]
    fn requests_check_backend_key_and_ids() {
        // A pasted chat-completions URL is cut back to the API root.
        let pasted = Backend {
            base_url: "http://127.0.0.1:9/v1/chat/completions".into(),
            ..backend()
        };
        assert_eq!(
            status_request(&pasted, "batch_1").unwrap().url,
            "http://127.0.0.1:9/v1/batches/batch_1"
        );
        let keyless = Backend {
            api_key: "  ".into(),
            ..backend()
        };
        assert!(matches!(
            upload_request(&keyless),
            Err(JudgeError::Setting { .. })
        ));
        assert!(create_request(&keyless, "file-1").is_err());
        let gemini = Backend {
            protocol: Protocol::Gemini,
            ..backend()
        };
        assert!(status_request(&gemini, "batch_1").is_err());
        let bad_url = Backend {
            base_url: "api.openai.com".into(),
            ..backend()
        };
        assert!(upload_request(&bad_url).is_err());
        for id in ["", "../models", "batch_1?x=1", "a/b", "b c"] {
            assert!(
                matches!(
                    status_request(&backend(), id),
                    Err(JudgeError::Setting { .. })
                ),
                "{id:?}"
            );
            assert!(content_request(&backend(), id).is_err());
            assert!(cancel_request(&backend(), id).is_err());
            assert!(create_request(&backend(), id).is_err());
        }
    }

    #[test]
    fn file_objects() {
        let uploaded = r#"{
  "object": "file",
  "id": "file-6F2ksmvXxt4VdoqmHRw6kL",
  "purpose": "batch",
  "filename": "harmonic-judge-batch.jsonl",
  "bytes": 1843,
  "created_at": 1730000000,
  "expires_at": null,
  "status": "processed",
  "status_details": null
}"#;
        assert_eq!(
            read_file_object(200, uploaded).unwrap(),
            "file-6F2ksmvXxt4VdoqmHRw6kL"
        );
        assert!(matches!(
            read_file_object(200, r#"{"object":"file"}"#),
            Err(JudgeError::BadResponse { .. })
        ));
        assert!(matches!(
            read_file_object(200, "[]"),
            Err(JudgeError::BadResponse { .. })
        ));
        let refused = r#"{
    "error": {
        "message": "Invalid file format for Batch API. Must be .jsonl",
        "type": "invalid_request_error",
        "param": null,
        "code": null
    }
}"#;
        let err = read_file_object(400, refused).unwrap_err();
        assert!(matches!(err, JudgeError::Http { status: 400, .. }));
        assert!(err.to_string().contains("Must be .jsonl"));
        let err = read_file_object(
            401,
            r#"{"error":{"message":"Incorrect API key provided: sk-test-***9","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
        )
        .unwrap_err();
        assert!(matches!(err, JudgeError::KeyRejected { status: 401, .. }));
    }

    fn batch_json(status: &str, extra: &str) -> String {
        format!(
            r#"{{
  "id": "batch_6720aa1e5e5c8190a5b1c4b3a0f0e2d4",
  "object": "batch",
  "endpoint": "/v1/chat/completions",
  "errors": null,
  "input_file_id": "file-6F2ksmvXxt4VdoqmHRw6kL",
  "completion_window": "24h",
  "status": "{status}",
  "output_file_id": null,
  "error_file_id": null,
  "created_at": 1730000000,
  "in_progress_at": null,
  "expires_at": 1730086400,
  "finalizing_at": null,
  "completed_at": null,
  "failed_at": null,
  "expired_at": null,
  "cancelling_at": null,
  "cancelled_at": null,
  "request_counts": {{"total": 0, "completed": 0, "failed": 0}},
  "metadata": {{"source": "harmonic-judge"}}{extra}
}}"#
        )
    }

    #[test]
    fn batch_objects_in_every_status() {
        let cases = [
            ("validating", BatchStatus::Validating, false),
            ("failed", BatchStatus::Failed, true),
            ("in_progress", BatchStatus::InProgress, false),
            ("finalizing", BatchStatus::Finalizing, false),
            ("completed", BatchStatus::Completed, true),
            ("expired", BatchStatus::Expired, true),
            ("cancelling", BatchStatus::Cancelling, false),
            ("cancelled", BatchStatus::Cancelled, true),
            ("paused", BatchStatus::Other("paused".into()), false),
        ];
        for (id, status, terminal) in cases {
            let info = read_batch(200, &batch_json(id, "")).unwrap();
            assert_eq!(info.id, "batch_6720aa1e5e5c8190a5b1c4b3a0f0e2d4");
            assert_eq!(info.status, status);
            assert_eq!(info.status.id(), id);
            assert_eq!(info.is_terminal(), terminal, "{id}");
            assert_eq!((info.total, info.completed, info.failed), (0, 0, 0));
            assert_eq!(info.output_file_id, None);
            assert!(info.errors.is_empty());
        }

        let completed = batch_json("completed", "")
            .replace(
                r#""output_file_id": null"#,
                r#""output_file_id": "file-out123""#,
            )
            .replace(
                r#""error_file_id": null"#,
                r#""error_file_id": "file-err456""#,
            )
            .replace(
                r#""total": 0, "completed": 0, "failed": 0"#,
                r#""total": 10, "completed": 8, "failed": 2"#,
            );
        let info = read_batch(200, &completed).unwrap();
        assert_eq!((info.total, info.completed, info.failed), (10, 8, 2));
        assert_eq!(info.output_file_id.as_deref(), Some("file-out123"));
        assert_eq!(info.error_file_id.as_deref(), Some("file-err456"));

        let failed = batch_json("failed", "").replace(
            r#""errors": null"#,
            r#""errors": {"object": "list", "data": [
                {"code": "invalid_json_line", "message": "This line is not parseable as valid JSON.", "param": null, "line": 3},
                {"code": "token_limit_exceeded", "message": "Enqueued token limit reached for gpt-4o.", "param": null, "line": null},
                {"code": "empty_file", "param": null, "line": null}
            ]}"#,
        );
        let info = read_batch(200, &failed).unwrap();
        assert!(info.is_terminal());
        assert_eq!(
            info.errors,
            vec![
                "Line 3: This line is not parseable as valid JSON.".to_string(),
                "Enqueued token limit reached for gpt-4o.".to_string(),
                "empty_file".to_string(),
            ]
        );

        // Counts may be absent early on.
        let info = read_batch(
            200,
            r#"{"id":"batch_1","object":"batch","status":"validating","request_counts":null}"#,
        )
        .unwrap();
        assert_eq!(info.total, 0);

        assert!(matches!(
            read_batch(200, r#"{"object":"batch","status":"completed"}"#),
            Err(JudgeError::BadResponse { .. })
        ));
        assert!(matches!(
            read_batch(200, r#"{"id":"batch_1"}"#),
            Err(JudgeError::BadResponse { .. })
        ));
        assert!(read_batch(200, "<html>").is_err());
        let err = read_batch(
            404,
            r#"{"error":{"message":"No batch found with id 'batch_x'.","type":"invalid_request_error","param":null,"code":null}}"#,
        )
        .unwrap_err();
        assert!(matches!(err, JudgeError::Http { status: 404, .. }));
        assert!(err.to_string().contains("No batch found"));
    }

    fn completion(content: &str) -> String {
        json!({
            "id": "chatcmpl-AbC123",
            "object": "chat.completion",
            "created": 1730000100,
            "model": "gpt-4o-2024-08-06",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": null},
                "logprobs": {"content": [{
                    "token": content,
                    "logprob": -0.1,
                    "bytes": [52],
                    "top_logprobs": [{"token": content, "logprob": -0.1, "bytes": [52]}]
                }], "refusal": null},
                "finish_reason": "stop"
            }],
            "usage": {"prompt_tokens": 512, "completion_tokens": 1, "total_tokens": 513},
            "system_fingerprint": "fp_50cad350e4"
        })
        .to_string()
    }

    #[test]
    fn output_lines_are_read_like_live_answers() {
        let ok = format!(
            r#"{{"id": "batch_req_1", "custom_id": "item1/correctness", "response": {{"status_code": 200, "request_id": "req_1", "body": {}}}, "error": null}}"#,
            completion("4")
        );
        let limited = r#"{"id": "batch_req_2", "custom_id": "item1/fluency", "response": {"status_code": 429, "request_id": "req_2", "body": {"error": {"message": "Rate limit reached for gpt-4o in organization org-test on tokens per min (TPM).", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}}, "error": null}"#;
        let expired = r#"{"id": "batch_req_3", "custom_id": "item2/clarity", "response": null, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}"#;
        let cancelled = r#"{"id": "batch_req_4", "custom_id": "item2/fluency", "response": null, "error": {"code": "batch_cancelled", "message": "This request was cancelled."}}"#;
        let text_body = r#"{"id": "batch_req_5", "custom_id": "item3/fluency", "response": {"status_code": 500, "request_id": "req_5", "body": "upstream failed"}, "error": null}"#;
        let jsonl = [
            ok.as_str(),
            limited,
            "",
            "{not json",
            expired,
            r#"{"id": "batch_req_9", "response": null, "error": null}"#,
            r#"{"custom_id": "item3/clarity", "response": null, "error": null}"#,
            r#"{"custom_id": "item3/correctness", "response": {"body": {}}, "error": null}"#,
            cancelled,
            text_body,
        ]
        .join("\n");
        let out = read_output(&jsonl);
        assert_eq!(out.len(), 9, "blank lines are skipped, malformed ones kept");

        assert_eq!(out[0].0, "item1/correctness");
        let c = out[0].1.as_ref().unwrap();
        assert_eq!(c.text, "4");
        assert_eq!(c.model.as_deref(), Some("gpt-4o-2024-08-06"));
        assert_eq!(c.steps.as_ref().unwrap()[0].top[0].0, "4");
        assert_eq!(c.usage.unwrap().prompt_tokens, 512);
        // Exactly what the live reader makes of the same body.
        assert_eq!(out[0].1, openai::read_response(200, None, &completion("4")));

        assert_eq!(out[1].0, "item1/fluency");
        let err = out[1].1.as_ref().unwrap_err();
        assert!(
            matches!(
                err,
                JudgeError::Http {
                    status: 429,
                    retry_after: None,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.is_transient());
        assert!(err.to_string().contains("Rate limit reached"));

        assert_eq!(out[2].0, "");
        let err = out[2].1.as_ref().unwrap_err();
        assert!(matches!(err, JudgeError::BadResponse { .. }));
        assert!(err.to_string().contains("line 4 "), "{err}");

        assert_eq!(out[3].0, "item2/clarity");
        let err = out[3].1.as_ref().unwrap_err();
        assert!(err.to_string().contains("batch_expired"), "{err}");
        assert!(err.to_string().contains("completion window expired"));

        assert_eq!(out[4].0, "");
        assert!(out[4]
            .1
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("line 6 "));
        assert_eq!(out[5].0, "item3/clarity");
        assert!(out[5]
            .1
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("line 7 "));
        assert_eq!(out[6].0, "item3/correctness");
        assert!(out[6]
            .1
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("status_code"));
        assert_eq!(out[7].1, Err(JudgeError::Cancelled));

        let err = out[8].1.as_ref().unwrap_err();
        assert!(matches!(err, JudgeError::Http { status: 500, .. }));
        assert!(err.to_string().contains("upstream failed"));

        assert!(read_output("").is_empty());
        assert!(read_output("\n  \n").is_empty());
    }

    #[test]
    fn batch_discount() {
        assert_eq!(BATCH_DISCOUNT, 0.5);
        assert_eq!(batch_cost(3.0), 1.5);
        assert_eq!(batch_cost(0.0), 0.0);
    }
}
