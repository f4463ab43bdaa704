//! OpenAI-compatible `POST {base}/chat/completions` (OpenAI, llama.cpp `llama-server`, vLLM,
//! Ollama, OpenRouter): request bodies and response handling.

use serde_json::{json, Value};

use super::{Backend, HttpRequest};
use crate::completion::{parse_chat_completion, Completion};
use crate::errors::{error_body_message, JudgeError};

/// Sampling settings for a judge request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChatParams {
    pub temperature: f64,
    /// `None` asks for no logprobs at all (explanations).
    pub top_logprobs: Option<u8>,
    pub max_tokens: u32,
}

impl ChatParams {
    /// Rating requests: greedy, with the 20 alternatives OpenAI allows at most. A few tokens
    /// are enough for `**Rating: 4**`.
    pub const RATING: ChatParams = ChatParams {
        temperature: 0.0,
        top_logprobs: Some(20),
        max_tokens: 20,
    };
    /// Free-text explanations.
    pub const EXPLAIN: ChatParams = ChatParams {
        temperature: 0.0,
        top_logprobs: None,
        max_tokens: 400,
    };
}

/// A content part of a chat message.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    /// A `data:image/jpeg;base64,…` URL.
    Image(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub role: &'static str,
    pub parts: Vec<Part>,
}

impl Message {
    pub fn user(parts: Vec<Part>) -> Message {
        Message {
            role: "user",
            parts,
        }
    }
    pub fn assistant(text: impl Into<String>) -> Message {
        Message {
            role: "assistant",
            parts: vec![Part::Text(text.into())],
        }
    }

    /// Text-only messages are sent as a plain string, which every compatible server accepts;
    /// messages with an image use the content-parts array.
    fn to_json(&self) -> Value {
        let has_image = self.parts.iter().any(|p| matches!(p, Part::Image(_)));
        if !has_image {
            let text: String = self
                .parts
                .iter()
                .map(|p| match p {
                    Part::Text(t) => t.as_str(),
                    Part::Image(_) => "",
                })
                .collect();
            return json!({ "role": self.role, "content": text });
        }
        let parts: Vec<Value> = self
            .parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => json!({ "type": "text", "text": t }),
                Part::Image(url) => json!({ "type": "image_url", "image_url": { "url": url } }),
            })
            .collect();
        json!({ "role": self.role, "content": parts })
    }
}

/// `{base}/chat/completions`, checking that the base URL is an http(s) URL.
pub fn chat_completions_url(base_url: &str) -> Result<String, JudgeError> {
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
    let base = base.strip_suffix("/chat/completions").unwrap_or(base);
    Ok(format!("{base}/chat/completions"))
}

/// Builds the HTTP request for one chat completion.
pub fn chat_request(
    backend: &Backend,
    messages: &[Message],
    params: ChatParams,
) -> Result<HttpRequest, JudgeError> {
    let url = chat_completions_url(&backend.base_url)?;
    let model = backend.model.trim();
    if model.is_empty() {
        return Err(JudgeError::Setting {
            message: "Enter a model name.".into(),
        });
    }
    let mut body = json!({
        "model": model,
        "messages": messages.iter().map(Message::to_json).collect::<Vec<_>>(),
        "temperature": params.temperature,
        "max_tokens": params.max_tokens,
    });
    if let Some(k) = params.top_logprobs {
        body["logprobs"] = json!(true);
        body["top_logprobs"] = json!(k);
    }
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    let key = backend.api_key.trim();
    if !key.is_empty() {
        headers.push(("Authorization".to_string(), format!("Bearer {key}")));
    }
    Ok(HttpRequest {
        url,
        headers,
        body: body.to_string(),
    })
}

/// Turns an HTTP status and body into a completion or the error a person should read.
pub fn read_response(
    status: u16,
    retry_after: Option<String>,
    body: &str,
) -> Result<Completion, JudgeError> {
    if !(200..300).contains(&status) {
        return Err(JudgeError::Http {
            status,
            message: error_body_message(body),
            retry_after,
        });
    }
    parse_chat_completion(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backend(key: &str) -> Backend {
        Backend {
            base_url: "http://127.0.0.1:8080/v1/".into(),
            model: "gpt-4o".into(),
            api_key: key.into(),
        }
    }

    #[test]
    fn rating_request_asks_for_logprobs_greedily() {
        let msgs = [Message::user(vec![Part::Text("rate".into())])];
        let req = chat_request(&backend("sk-1"), &msgs, ChatParams::RATING).unwrap();
        assert_eq!(req.url, "http://127.0.0.1:8080/v1/chat/completions");
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(body["model"], "gpt-4o");
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["logprobs"], true);
        assert_eq!(body["top_logprobs"], 20);
        assert_eq!(body["messages"][0]["content"], "rate");
        assert!(req
            .headers
            .contains(&("Authorization".into(), "Bearer sk-1".into())));
    }

    #[test]
    fn no_key_no_authorization_header_and_debug_hides_values() {
        let req = chat_request(&backend(""), &[], ChatParams::EXPLAIN).unwrap();
        assert!(req.headers.iter().all(|(n, _)| n != "Authorization"));
        let body: Value = serde_json::from_str(&req.body).unwrap();
        assert!(body.get("logprobs").is_none());
        let req = chat_request(&backend("sk-secret"), &[], ChatParams::EXPLAIN).unwrap();
        assert!(!format!("{req:?}").contains("sk-secret"));
        assert!(!format!("{:?}", backend("sk-secret")).contains("sk-secret"));
    }

    #[test]
    fn image_messages_use_content_parts() {
        let msgs = [Message::user(vec![
            Part::Text("rate".into()),
            Part::Image("data:image/jpeg;base64,AAAA".into()),
        ])];
        let req = chat_request(&backend(""), &msgs, ChatParams::RATING).unwrap();
        let body: Value = serde_json::from_str(&req.body).unwrap();
        let content = &body["messages"][0]["content"];
        assert_eq!(content[0]["type"], "text");
        assert_eq!(
            content[1]["image_url"]["url"],
            "data:image/jpeg;base64,AAAA"
        );
    }

    #[test]
    fn url_validation() {
        assert!(matches!(
            chat_completions_url(""),
            Err(JudgeError::Setting { .. })
        ));
        assert!(matches!(
            chat_completions_url("api.openai.com"),
            Err(JudgeError::Setting { .. })
        ));
        assert_eq!(
            chat_completions_url("https://x/v1/chat/completions").unwrap(),
            "https://x/v1/chat/completions"
        );
    }

    #[test]
    fn http_errors_carry_the_servers_message() {
        let err = read_response(
            404,
            None,
            r#"{"error":{"message":"The model `gpt-5x` does not exist"}}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("does not exist"));
        assert!(matches!(err, JudgeError::Http { status: 404, .. }));
    }
}
