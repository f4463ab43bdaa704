//! Anthropic Messages API, `POST {base}/messages`: request bodies and response handling.
//!
//! The API returns no token probabilities, so ratings from it are parsed from the text and
//! marked unsmoothed (`Protocol::has_logprobs`); `steps` is always `None`.

use serde_json::{json, Value};

use super::chat::split_system;
use super::{
    checked_base, checked_key, checked_model, get_request, json_headers, model_list, Backend,
    ChatParams, HttpRequest, Message, Method, ModelInfo, Part, Role,
};
use crate::answers::completion::{Completion, Usage};
use crate::answers::errors::{error_body_message, JudgeError};

const API_VERSION: &str = "2023-06-01";

/// The key, the API version, and the header without which Anthropic refuses browser (CORS)
/// requests.
fn auth_headers(backend: &Backend) -> Result<Vec<(&'static str, String)>, JudgeError> {
    let key = checked_key(&backend.api_key)?;
    if key.is_empty() {
        return Err(JudgeError::Setting {
            message: "Enter your Anthropic API key.".into(),
        });
    }
    Ok(vec![
        ("x-api-key", key.to_string()),
        ("anthropic-version", API_VERSION.to_string()),
        (
            "anthropic-dangerous-direct-browser-access",
            "true".to_string(),
        ),
    ])
}

fn message_json(message: &Message) -> Result<Value, JudgeError> {
    let role = match message.role {
        Role::Assistant => "assistant",
        // System text never reaches here (see `split_system`).
        Role::User | Role::System => "user",
    };
    let content = message
        .parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => Ok(json!({ "type": "text", "text": t })),
            Part::Image(image) => {
                let source =
                    json!({ "type": "base64", "media_type": image.mime, "data": image.base64 });
                Ok(json!({ "type": "image", "source": source }))
            }
        })
        .collect::<Result<Vec<_>, JudgeError>>()?;
    Ok(json!({ "role": role, "content": content }))
}

/// Builds the HTTP request for one message. `params.top_logprobs` is ignored: the Messages API
/// has no logprobs parameter and would reject an unknown field.
pub fn chat_request(
    backend: &Backend,
    messages: &[Message],
    params: ChatParams,
) -> Result<HttpRequest, JudgeError> {
    let base = checked_base(&backend.base_url)?;
    let model = checked_model(backend)?;
    let auth = auth_headers(backend)?;
    let (system, messages) = split_system(messages);
    let messages = messages
        .iter()
        .map(message_json)
        .collect::<Result<Vec<_>, _>>()?;
    let mut body = json!({
        "model": model,
        "max_tokens": params.max_tokens,
        "messages": messages,
    });
    if let Some(t) = params.temperature {
        // Anthropic accepts temperatures from 0 to 1 only.
        body["temperature"] = json!(t.clamp(0.0, 1.0));
    }
    if let Some(system) = system {
        body["system"] = json!(system);
    }
    if let Some(p) = params.top_p {
        // Recent Claude models refuse temperature and top_p together; top_p is the one asked.
        body["top_p"] = json!(p);
        if let Some(map) = body.as_object_mut() {
            map.remove("temperature");
        }
    }
    Ok(HttpRequest {
        method: Method::Post,
        url: base.url("/messages"),
        headers: json_headers(auth),
        body: body.to_string(),
    })
}

/// `GET {base}/models?limit=1000` (1000 is the most one page holds).
pub fn models_request(backend: &Backend) -> Result<HttpRequest, JudgeError> {
    let base = checked_base(&backend.base_url)?;
    Ok(get_request(
        base.url("/models?limit=1000"),
        auth_headers(backend)?,
    ))
}

/// `{"data":[{"type":"model","id":…}],"has_more":…}`. Every current Claude model accepts
/// images, so they are all marked as vision models.
pub fn read_models(body: &str) -> Result<Vec<ModelInfo>, JudgeError> {
    let (_, data) = model_list(body, "data")?;
    Ok(data
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_str))
        .map(|id| ModelInfo {
            id: id.to_string(),
            vision: Some(true),
        })
        .collect())
}

/// Turns an HTTP status and body into a completion or the error a person should read.
pub fn read_response(
    status: u16,
    retry_after: Option<String>,
    body: &str,
) -> Result<Completion, JudgeError> {
    if !(200..300).contains(&status) {
        // `{"type":"error","error":{"type":"…","message":"…"}}` is read by error_body_message.
        return Err(JudgeError::from_http(
            status,
            error_body_message(body),
            retry_after,
        ));
    }
    let json: Value = serde_json::from_str(body).map_err(|e| JudgeError::BadResponse {
        detail: format!("not a Messages API response ({e})"),
    })?;
    let kind = json.get("type").and_then(Value::as_str);
    if kind == Some("error") || json.get("content").is_none() {
        let detail = error_body_message(body)
            .map(|m| format!("the server said: {m}"))
            .unwrap_or_else(|| "the response has no content".into());
        return Err(JudgeError::BadResponse { detail });
    }
    let text: String = json["content"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let stop = json.get("stop_reason").and_then(Value::as_str);
    if text.is_empty() && stop == Some("refusal") {
        return Err(JudgeError::BadResponse {
            detail: "Claude declined to answer (stop_reason \"refusal\")".into(),
        });
    }
    let usage = json.get("usage").map(|u| {
        let count = |name: &str| u.get(name).and_then(Value::as_u64).unwrap_or(0);
        Usage {
            prompt_tokens: count("input_tokens"),
            completion_tokens: count("output_tokens"),
        }
    });
    Ok(Completion {
        text,
        steps: None,
        usage,
        model: json.get("model").and_then(Value::as_str).map(str::to_owned),
        truncated: stop == Some("max_tokens"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::Image;

    fn backend(key: &str) -> Backend {
        Backend {
            base_url: "https://api.anthropic.com/v1/".into(),
            model: "claude-sonnet-4-5".into(),
            api_key: key.into(),
            ..Backend::default()
        }
    }

    fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
        let found = req.headers.iter().find(|(n, _)| n == name);
        found.map(|(_, v)| v.as_str())
    }

    const ANSWER: &str = r#"{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant",
        "model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"**Rating: 4**"}],
        "stop_reason":"end_turn","stop_sequence":null,
        "usage":{"input_tokens":1585,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,
        "output_tokens":9,"service_tier":"standard"}}"#;

    #[test]
    fn request_url_headers_and_key_only_in_header() {
        let msgs = [Message::user(vec![Part::Text("rate".into())])];
        let req = chat_request(&backend("sk-ant-secret"), &msgs, ChatParams::RATING).unwrap();
        assert_eq!(req.method, Method::Post);
        assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(header(&req, "x-api-key"), Some("sk-ant-secret"));
        assert_eq!(header(&req, "anthropic-version"), Some("2023-06-01"));
        let cors = header(&req, "anthropic-dangerous-direct-browser-access");
        assert_eq!(cors, Some("true"));
        assert_eq!(header(&req, "Content-Type"), Some("application/json"));
        assert!(!req.url.contains("sk-ant") && !req.body.contains("sk-ant"));
        assert!(!format!("{req:?}").contains("sk-ant-secret"));
    }

    #[test]
    fn body_has_no_logprobs_and_content_arrays() {
        let image = Part::Image(Image::new("image/png", "iVBORw0K"));
        let msgs = [
            Message::user(vec![Part::Text("rate".into()), image]),
            Message::assistant("4"),
        ];
        let req = chat_request(&backend("k"), &msgs, ChatParams::RATING).unwrap();
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(body["model"], "claude-sonnet-4-5");
        assert_eq!(
            (body["max_tokens"].as_u64(), body["temperature"].as_f64()),
            (Some(20), Some(0.0))
        );
        assert!(body.get("logprobs").is_none() && body.get("top_logprobs").is_none());
        let user = &body["messages"][0];
        assert_eq!(user["role"], "user");
        assert_eq!(user["content"][0], json!({"type": "text", "text": "rate"}));
        let source = json!({"type": "base64", "media_type": "image/png", "data": "iVBORw0K"});
        assert_eq!(
            user["content"][1],
            json!({"type": "image", "source": source})
        );
        let assistant = json!({"role": "assistant", "content": [{"type": "text", "text": "4"}]});
        assert_eq!(body["messages"][1], assistant);
        // Only a base64 data URL becomes an image to send (`Image::from_data_url`).
        assert_eq!(Image::from_data_url("file:///x.png"), None);
    }

    #[test]
    fn missing_key_is_a_setting_error() {
        let want = JudgeError::Setting {
            message: "Enter your Anthropic API key.".into(),
        };
        let err = chat_request(&backend(""), &[], ChatParams::RATING).unwrap_err();
        assert_eq!(err, want);
        assert_eq!(models_request(&backend("  ")).unwrap_err(), want);
    }

    #[test]
    fn reads_text_usage_and_model_without_steps() {
        let c = read_response(200, None, ANSWER).unwrap();
        assert_eq!(c.text, "**Rating: 4**");
        assert_eq!(c.steps, None);
        assert!(!c.truncated);
        assert_eq!(c.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
        let usage = c.usage.unwrap();
        assert_eq!((usage.prompt_tokens, usage.completion_tokens), (1585, 9));
    }

    #[test]
    fn max_tokens_truncates_and_only_text_blocks_count() {
        let body = r#"{"type":"message","content":[{"type":"thinking","thinking":"hm","signature":"x"},
            {"type":"text","text":"The image"}],"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":20}}"#;
        let c = read_response(200, None, body).unwrap();
        assert_eq!((c.text.as_str(), c.truncated), ("The image", true));
    }

    #[test]
    fn error_bodies_are_classified() {
        let body = |kind: &str, message: &str| {
            json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
        };
        let err = read_response(
            401,
            None,
            &body("authentication_error", "invalid x-api-key"),
        );
        let err = err.unwrap_err();
        assert!(matches!(err, JudgeError::KeyRejected { status: 401, .. }));
        assert!(err.to_string().contains("invalid x-api-key"), "{err}");
        let err = read_response(529, None, &body("overloaded_error", "Overloaded")).unwrap_err();
        assert!(
            err.is_transient() && err.to_string().contains("Overloaded"),
            "{err}"
        );
        let limited = body(
            "rate_limit_error",
            "Number of request tokens has exceeded your rate limit",
        );
        let err = read_response(429, Some("12".into()), &limited).unwrap_err();
        assert!(matches!(err, JudgeError::Http { status: 429, .. }));
        assert!(err.to_string().contains("retry after 12 s"), "{err}");
        let err = read_response(200, None, &body("api_error", "Internal server error"));
        let err = err.unwrap_err();
        assert!(matches!(err, JudgeError::BadResponse { .. }));
        assert!(err.to_string().contains("Internal server error"), "{err}");
        assert!(read_response(200, None, "<html>").is_err());
    }

    #[test]
    fn model_list_ids_are_vision_models() {
        let req = models_request(&backend("sk-ant-secret")).unwrap();
        assert_eq!((req.method, req.body.as_str()), (Method::Get, ""));
        assert_eq!(req.url, "https://api.anthropic.com/v1/models?limit=1000");
        assert_eq!(header(&req, "x-api-key"), Some("sk-ant-secret"));
        assert_eq!(header(&req, "anthropic-version"), Some("2023-06-01"));
        let cors = header(&req, "anthropic-dangerous-direct-browser-access");
        assert_eq!(cors, Some("true"));
        let body = r#"{"data":[{"type":"model","id":"claude-sonnet-4-5-20250929","display_name":"Claude Sonnet 4.5",
            "created_at":"2025-09-29T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-5-20250929",
            "last_id":"claude-sonnet-4-5-20250929"}"#;
        let want = vec![ModelInfo {
            id: "claude-sonnet-4-5-20250929".into(),
            vision: Some(true),
        }];
        assert_eq!(read_models(body).unwrap(), want);
        assert!(read_models(r#"{"type":"error"}"#).is_err());
    }
}
