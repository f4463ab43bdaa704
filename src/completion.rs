//! Parsing an OpenAI-format chat completion (OpenAI, llama.cpp `llama-server`, vLLM, ...)
//! into the generated text and its per-token probabilities.
//!
//! Only the fields the metrics need are read; unknown fields are ignored so that servers which
//! add their own (llama.cpp's `timings`, OpenAI's `service_tier`) parse the same.

use serde::{Deserialize, Serialize};

use crate::errors::JudgeError;

/// One generated token with the alternatives the server reported at that step.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenStep {
    pub token: String,
    pub logprob: f64,
    /// `(token, logprob)` of the top-k alternatives, most likely first as the server sent them.
    pub top: Vec<(String, f64)>,
}

/// Token counts the provider reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
}

/// The parts of a chat completion the metrics use.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub text: String,
    /// `None` when the server sent no `logprobs` at all.
    pub steps: Option<Vec<TokenStep>>,
    pub usage: Option<Usage>,
    pub model: Option<String>,
    /// The server stopped at `max_tokens` (`finish_reason: "length"`).
    pub truncated: bool,
}

#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct WireChoice {
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    logprobs: Option<WireLogprobs>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct WireLogprobs {
    #[serde(default)]
    content: Option<Vec<WireToken>>,
}

#[derive(Deserialize)]
struct WireToken {
    token: String,
    logprob: f64,
    #[serde(default)]
    top_logprobs: Vec<WireTop>,
}

#[derive(Deserialize)]
struct WireTop {
    token: String,
    logprob: f64,
}

/// Parses a successful (HTTP 2xx) chat completion body.
pub fn parse_chat_completion(body: &str) -> Result<Completion, JudgeError> {
    let wire: Wire = serde_json::from_str(body).map_err(|e| JudgeError::BadResponse {
        detail: format!("not a chat completion ({e})"),
    })?;
    let Some(choice) = wire.choices.into_iter().next() else {
        // Some proxies answer 200 with an error object instead of an error status.
        let detail = crate::errors::error_body_message(body)
            .map(|m| format!("no choices; the server said: {m}"))
            .unwrap_or_else(|| "the response has no choices".into());
        return Err(JudgeError::BadResponse { detail });
    };
    let truncated = choice.finish_reason.as_deref() == Some("length");
    let text = choice.message.and_then(|m| m.content).unwrap_or_default();
    let steps = choice.logprobs.and_then(|l| l.content).map(|tokens| {
        tokens
            .into_iter()
            .map(|t| TokenStep {
                token: t.token,
                logprob: t.logprob,
                top: t
                    .top_logprobs
                    .into_iter()
                    .map(|a| (a.token, a.logprob))
                    .collect(),
            })
            .collect::<Vec<_>>()
    });
    Ok(Completion {
        text,
        steps,
        usage: wire.usage,
        model: wire.model,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Shape as OpenAI returns it (fields trimmed to one top alternative per step).
    const OPENAI: &str = r#"{
      "id": "chatcmpl-AbC", "object": "chat.completion", "created": 1732000000,
      "model": "gpt-4o-2024-08-06",
      "choices": [{
        "index": 0,
        "message": {"role": "assistant", "content": "4", "refusal": null, "annotations": []},
        "logprobs": {"content": [{"token": "4", "logprob": -0.3, "bytes": [52],
          "top_logprobs": [{"token": "4", "logprob": -0.3, "bytes": [52]},
                           {"token": "5", "logprob": -1.5, "bytes": [53]}]}],
          "refusal": null},
        "finish_reason": "stop"}],
      "usage": {"prompt_tokens": 321, "completion_tokens": 1, "total_tokens": 322},
      "service_tier": "default", "system_fingerprint": "fp_x"
    }"#;

    #[test]
    fn reads_text_tokens_and_usage() {
        let c = parse_chat_completion(OPENAI).unwrap();
        assert_eq!(c.text, "4");
        assert_eq!(c.model.as_deref(), Some("gpt-4o-2024-08-06"));
        let steps = c.steps.unwrap();
        assert_eq!(steps.len(), 1);
        assert_eq!(
            steps[0].top,
            vec![("4".to_string(), -0.3), ("5".to_string(), -1.5)]
        );
        assert_eq!(c.usage.unwrap().prompt_tokens, 321);
        assert!(!c.truncated);
    }

    #[test]
    fn missing_logprobs_is_none_not_error() {
        let body = r#"{"choices":[{"message":{"content":"4"},"logprobs":null}]}"#;
        assert_eq!(parse_chat_completion(body).unwrap().steps, None);
        let body = r#"{"choices":[{"message":{"content":"4"}}]}"#;
        assert_eq!(parse_chat_completion(body).unwrap().steps, None);
    }

    #[test]
    fn error_object_with_status_200_is_reported() {
        let err =
            parse_chat_completion(r#"{"error":{"message":"upstream overloaded"}}"#).unwrap_err();
        assert!(err.to_string().contains("upstream overloaded"), "{err}");
    }

    #[test]
    fn garbage_and_empty_choices_are_errors() {
        assert!(matches!(
            parse_chat_completion("<html>"),
            Err(JudgeError::BadResponse { .. })
        ));
        assert!(matches!(
            parse_chat_completion(r#"{"choices":[]}"#),
            Err(JudgeError::BadResponse { .. })
        ));
    }
}
