//! Everything that can go wrong with one judge request, and the sentence a person reads.

use std::fmt;

/// Why one criterion (or one request) has no score.
#[derive(Clone, Debug, PartialEq)]
pub enum JudgeError {
    /// The user's settings cannot produce a request (empty model, bad URL, ...).
    Setting { message: String },
    /// The server answered with a non-2xx status. `message` is the server's own explanation
    /// when its body had one.
    Http {
        status: u16,
        message: Option<String>,
        retry_after: Option<String>,
    },
    /// `fetch` itself failed: nothing listening, DNS, TLS, or the browser refused the response
    /// because it lacked CORS headers (browsers do not let a page tell these apart).
    Network { url: String },
    /// The server answered with a redirect, which is never followed: custom key headers
    /// (`x-goog-api-key`, `x-api-key`) would go along to wherever it points.
    Redirect { url: String },
    /// No complete answer within the time limit; the request was aborted.
    Timeout { seconds: u32 },
    /// A 2xx body that is not the expected JSON.
    BadResponse { detail: String },
    /// The completion carried no token probabilities.
    NoLogprobs,
    /// The completion never produced a rating token; `text` is what the model wrote, and
    /// `truncated` whether it stopped at the token limit (so the rating may have come later).
    NoRating { text: String, truncated: bool },
    /// The server refused the API key (some, like Gemini, say so with HTTP 400).
    KeyRejected {
        status: u16,
        message: Option<String>,
    },
    /// The model or server does not take image input.
    NoVision {
        status: u16,
        message: Option<String>,
    },
    /// The text model lacks the special tokens its projector wraps each image in (llama.cpp
    /// answers 400 "Invalid token": SmolLM2 loaded with SmolVLM's projector).
    ImageTokens {
        status: u16,
        message: Option<String>,
    },
    /// The user pressed Cancel.
    Cancelled,
    /// A metric that asks for a printed number (FLEUR, G-VEval) got none.
    NoNumber { text: String, truncated: bool },
    /// The printed number is outside the metric's range.
    OutOfRange {
        printed: String,
        range: &'static str,
    },
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::Setting { message } => f.write_str(message),
            JudgeError::Http {
                status,
                message,
                retry_after,
            } => {
                let lead = http_lead(*status, retry_after.as_deref());
                match message {
                    Some(m) => write!(f, "{lead}. Server said: {m}"),
                    None => write!(f, "{lead}."),
                }
            }
            JudgeError::Network { url } => write!(
                f,
                "Could not reach {url}. The server is not running, the address is wrong, or it \
                 does not allow requests from this page (CORS)."
            ),
            JudgeError::Redirect { url } => write!(
                f,
                "The server at {url} answered with a redirect, not followed: the key is never \
                 sent to another address. Enter the final URL as the base URL."
            ),
            JudgeError::Timeout { seconds } => write!(
                f,
                "The server did not answer within {seconds} s, so the request was stopped. It may \
                 be overloaded or still loading the model; try again."
            ),
            JudgeError::BadResponse { detail } => {
                write!(f, "The server's answer could not be read: {detail}.")
            }
            JudgeError::KeyRejected { status, message } => {
                write!(
                    f,
                    "The API key was rejected (HTTP {status}). Check that it is the key for this \
                     provider and that it is still active"
                )?;
                end_with_server_message(f, message)
            }
            JudgeError::NoVision { status, message } => {
                write!(
                    f,
                    "This model does not accept images (HTTP {status}). Choose a vision model \
                     (for llama-server, start it with the model's --mmproj file)"
                )?;
                end_with_server_message(f, message)
            }
            JudgeError::ImageTokens { status, message } => {
                write!(
                    f,
                    "This model lacks the image tokens its projector needs (HTTP {status}): \
                     llama.cpp wraps each image in the projector's special tokens (SmolVLM's \
                     <fake_token_around_image> and <global-img>), and this model's vocabulary \
                     has none of them. Load SmolVLM's own model file with its projector (for \
                     llama-server: -m SmolVLM-256M-Instruct-Q8_0.gguf --mmproj \
                     mmproj-SmolVLM-256M-Instruct-Q8_0.gguf), not plain SmolLM2 with SmolVLM's \
                     projector"
                )?;
                end_with_server_message(f, message)
            }
            JudgeError::Cancelled => f.write_str("Cancelled."),
            JudgeError::NoNumber { text, truncated } => no_number(f, text, *truncated),
            JudgeError::OutOfRange { printed, range } => write!(
                f,
                "The model printed {printed}, outside the score range {range}, so the answer is \
                 invalid (the metric's authors discard such outputs too)."
            ),
            JudgeError::NoLogprobs => f.write_str(
                "The response has no token probabilities (logprobs). This model or endpoint \
                 does not return them, so no smoothed score can be computed; choose a model \
                 that supports logprobs.",
            ),
            JudgeError::NoRating { text, truncated } => no_rating(f, text, *truncated),
        }
    }
}

/// The first sentence for an HTTP error status (without its full stop).
fn http_lead(status: u16, retry_after: Option<&str>) -> String {
    match status {
        400 => "The server refused the request (HTTP 400). The model may not accept \
                images or one of the parameters"
            .to_string(),
        401 => "The API key was rejected (HTTP 401). Check the key for this endpoint".to_string(),
        403 => "Access denied (HTTP 403). The key lacks permission for this model".to_string(),
        404 => "Not found (HTTP 404). Check the model name and the base URL (it \
                usually ends in /v1)"
            .to_string(),
        408 | 504 => format!("The server timed out (HTTP {status}). Try again"),
        413 => "The request is too large (HTTP 413). Lower the image size".to_string(),
        429 => match retry_after {
            Some(after) if crate::answers::retry_after::parse_retry_after(after).is_some() => {
                format!(
                    "Rate limited or out of quota (HTTP 429). The server asks to \
                     retry after {after} s"
                )
            }
            // The HTTP-date form.
            Some(at) => format!(
                "Rate limited or out of quota (HTTP 429). The server asks to retry \
                 at {at}"
            ),
            None => "Rate limited or out of quota (HTTP 429). Wait and try again, or \
                     check your plan's limits"
                .to_string(),
        },
        500..=599 => format!("The server failed (HTTP {status}). Try again later"),
        _ => format!("The server answered HTTP {status}"),
    }
}

/// [`JudgeError::NoNumber`]'s sentence.
fn no_number(f: &mut fmt::Formatter<'_>, text: &str, truncated: bool) -> fmt::Result {
    write!(
        f,
        "The model's answer contains no score: \u{201c}{}\u{201d}",
        clip_short(text)
    )?;
    if truncated {
        f.write_str(
            " It was cut off at the token limit before printing one: raise the \
             Output tokens setting and ask again.",
        )?;
    }
    Ok(())
}

/// [`JudgeError::NoRating`]'s sentence: the answer quoted, clipped to 120 characters.
fn no_rating(f: &mut fmt::Formatter<'_>, text: &str, truncated: bool) -> fmt::Result {
    let shown: String = text.chars().take(120).collect();
    let ellipsis = if text.chars().count() > 120 {
        "…"
    } else {
        ""
    };
    write!(
        f,
        "The model's answer contains no rating from 1 to 5: \u{201c}{shown}{ellipsis}\u{201d}"
    )?;
    if truncated {
        f.write_str(
            " It was cut off at the token limit: this model does not give the score \
             first, as the prompt asks. Raise the Output tokens setting and ask \
             again.",
        )?;
    }
    Ok(())
}

fn end_with_server_message(f: &mut fmt::Formatter<'_>, message: &Option<String>) -> fmt::Result {
    match message {
        Some(m) => write!(f, ". Server said: {m}"),
        None => f.write_str("."),
    }
}

impl std::error::Error for JudgeError {}

impl JudgeError {
    /// The error for a non-2xx answer, recognising from the server's own words the refusals a
    /// person fixes differently: a bad key (Gemini answers 400 for it), a model without image
    /// input or without its projector's image tokens, an endpoint or model without logprobs.
    pub fn from_http(status: u16, message: Option<String>, retry_after: Option<String>) -> Self {
        let lower = message.as_deref().unwrap_or("").to_ascii_lowercase();
        let says = |words: &[&str]| words.iter().any(|w| lower.contains(w));
        if status == 401
            || says(&[
                "api key not valid",
                "api_key_invalid",
                "invalid x-api-key",
                "incorrect api key",
                "invalid api key",
            ])
        {
            return JudgeError::KeyRejected { status, message };
        }
        if (400..500).contains(&status) || status == 500 {
            if lower.contains("logprob")
                && says(&["not supported", "not allowed", "unsupported", "not enabled"])
            {
                return JudgeError::NoLogprobs;
            }
            // llama-server's words, and only its: a token mtmd looked up for the image's
            // delimiters is not in the text model's vocabulary (text alone never gets it).
            if status == 400 && lower.trim() == "invalid token" {
                return JudgeError::ImageTokens { status, message };
            }
            let about_images = says(&["image", "vision", "mmproj", "multimodal"]);
            if about_images
                && says(&[
                    "not supported",
                    "unsupported",
                    "does not support",
                    "only supported",
                    "not enabled",
                    "invalid content type",
                ])
            {
                return JudgeError::NoVision { status, message };
            }
        }
        JudgeError::Http {
            status,
            message,
            retry_after,
        }
    }

    /// Worth trying again after a pause: rate limits and server-side failures. An exhausted
    /// quota or billing limit (also HTTP 429 at OpenAI) will not recover by waiting.
    pub fn is_transient(&self) -> bool {
        let JudgeError::Http {
            status,
            message,
            retry_after,
        } = self
        else {
            return false;
        };
        // Gemini's per-minute limits use the same words but say when to come back.
        let out_of_quota = retry_after.is_none()
            && message.as_deref().is_some_and(|m| {
                let m = m.to_ascii_lowercase();
                m.contains("insufficient_quota")
                    || m.contains("check your plan and billing")
                    || m.contains("credit balance is too low")
            });
        !out_of_quota && (*status == 408 || *status == 429 || (500..=599).contains(status))
    }
}

/// Pulls the human-readable message out of an error body: OpenAI and llama.cpp
/// (`{"error":{"message":…}}`), Gemini (same, with `status`), FastAPI/vLLM (`{"detail":…}`),
/// or a short plain-text body. HTML pages and long bodies are not shown.
pub fn error_body_message(body: &str) -> Option<String> {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return None;
    }
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(trimmed) {
        let candidates = [
            json.pointer("/error/message"),
            json.pointer("/message"),
            json.pointer("/detail"),
            json.pointer("/error"),
        ];
        return candidates
            .into_iter()
            .flatten()
            .find_map(|v| v.as_str().map(str::to_owned))
            .map(|m| clip(&m));
    }
    if trimmed.starts_with('<') || trimmed.len() > 300 {
        return None;
    }
    Some(clip(trimmed))
}

/// At most 120 characters, with an ellipsis when cut.
fn clip_short(text: &str) -> String {
    let shown: String = text.chars().take(120).collect();
    if text.chars().count() > 120 {
        format!("{shown}…")
    } else {
        shown
    }
}

fn clip(s: &str) -> String {
    const MAX: usize = 300;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        s.chars().take(MAX).chain(std::iter::once('…')).collect()
    }
}

/// Removes every occurrence of `secret` from `text`, so that a server which echoes the API key
/// in its error message does not make the page display or export it.
pub fn redact(text: &str, secret: &str) -> String {
    let secret = secret.trim();
    if secret.len() < 4 {
        return text.to_string();
    }
    text.replace(secret, "[API key]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_401_message_is_extracted() {
        let body = r#"{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
        let err = JudgeError::Http {
            status: 401,
            message: error_body_message(body),
            retry_after: None,
        };
        let text = err.to_string();
        assert!(
            text.starts_with("The API key was rejected (HTTP 401)."),
            "{text}"
        );
        assert!(text.contains("Incorrect API key provided"));
    }

    #[test]
    fn llama_cpp_and_fastapi_bodies() {
        assert_eq!(
            error_body_message(r#"{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}"#)
                .as_deref(),
            Some("Invalid API Key")
        );
        assert_eq!(
            error_body_message(r#"{"detail":"Not Found"}"#).as_deref(),
            Some("Not Found")
        );
        assert_eq!(error_body_message("<html><body>502</body></html>"), None);
        assert_eq!(error_body_message("   "), None);
    }

    #[test]
    fn retry_after_is_mentioned() {
        let e = JudgeError::Http {
            status: 429,
            message: None,
            retry_after: Some("7".into()),
        };
        assert!(e.to_string().contains("retry after 7 s"));
        let dated = JudgeError::Http {
            status: 429,
            message: None,
            retry_after: Some("Wed, 21 Oct 2026 07:28:00 GMT".into()),
        };
        assert!(dated
            .to_string()
            .ends_with("The server asks to retry at Wed, 21 Oct 2026 07:28:00 GMT."));
    }

    #[test]
    fn no_rating_quotes_the_answer_clipped() {
        let cut = JudgeError::NoRating {
            text: "The caption".into(),
            truncated: true,
        };
        assert!(cut.to_string().contains("cut off at the token limit"));
        let e = JudgeError::NoRating {
            text: "x".repeat(500),
            truncated: false,
        };
        let s = e.to_string();
        assert!(s.contains("no rating from 1 to 5"));
        assert!(s.chars().count() < 250);
    }

    #[test]
    fn timeout_names_the_limit() {
        assert!(JudgeError::Timeout { seconds: 120 }
            .to_string()
            .contains("within 120 s"));
    }

    #[test]
    fn refusals_are_told_apart_by_the_servers_words() {
        let gemini_bad_key = error_body_message(
            r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#,
        );
        let e = JudgeError::from_http(400, gemini_bad_key, None);
        assert!(
            matches!(e, JudgeError::KeyRejected { status: 400, .. }),
            "{e:?}"
        );
        assert!(e
            .to_string()
            .starts_with("The API key was rejected (HTTP 400)."));

        let e = JudgeError::from_http(
            400,
            Some("Logprobs is not supported for the current model.".into()),
            None,
        );
        assert_eq!(e, JudgeError::NoLogprobs);

        // llama-server started without --mmproj.
        let e = JudgeError::from_http(
            500,
            Some("image input is not supported - hint: if this is unexpected, you may need to provide the mmproj".into()),
            None,
        );
        assert!(matches!(e, JudgeError::NoVision { .. }), "{e:?}");
        assert!(e.to_string().contains("does not accept images"));

        let e = JudgeError::from_http(
            400,
            Some("Invalid content type. image_url is only supported by certain models.".into()),
            None,
        );
        assert!(matches!(e, JudgeError::NoVision { .. }), "{e:?}");

        // llama-server with plain SmolLM2 and SmolVLM's projector, to any image: its body byte
        // for byte (tests/e2e/test_vision_model.py asserts the same one).
        let body =
            r#"{"error":{"code":400,"message":"Invalid token","type":"invalid_request_error"}}"#;
        let e = JudgeError::from_http(400, error_body_message(body), None);
        assert!(
            matches!(e, JudgeError::ImageTokens { status: 400, .. }),
            "{e:?}"
        );
        let said = e.to_string();
        for part in [
            "lacks the image tokens",
            "<fake_token_around_image> and <global-img>",
            "SmolVLM's own model file with its projector",
            "Server said: Invalid token",
        ] {
            assert!(said.contains(part), "{part}: {said}");
        }
        assert!(!e.is_transient());
        // Other words, or another status, stay what they were.
        let e = JudgeError::from_http(400, Some("Prompt contains invalid tokens".into()), None);
        assert!(matches!(e, JudgeError::Http { .. }), "{e:?}");
        let e = JudgeError::from_http(500, Some("Invalid token".into()), None);
        assert!(matches!(e, JudgeError::Http { .. }), "{e:?}");

        let e = JudgeError::from_http(503, Some("overloaded".into()), Some("2".into()));
        assert!(e.is_transient());
        assert!(!JudgeError::from_http(404, None, None).is_transient());
        assert!(JudgeError::from_http(429, None, None).is_transient());
        // OpenAI's exhausted quota is a 429 too, but waiting will not fix it.
        let quota = Some(
            "You exceeded your current quota, please check your plan and billing details.".into(),
        );
        assert!(!JudgeError::from_http(429, quota.clone(), None).is_transient());
        assert!(JudgeError::from_http(429, quota, Some("7".into())).is_transient());
    }

    #[test]
    fn redact_removes_the_key() {
        assert_eq!(
            redact("bad key sk-secret123 here", "sk-secret123"),
            "bad key [API key] here"
        );
        assert_eq!(redact("abc", ""), "abc");
    }
}
