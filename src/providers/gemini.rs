//! Gemini `POST {base}/models/{model}:generateContent`: request bodies and response handling.
//! The key travels only in the `x-goog-api-key` header, never in the URL, so it does not end up
//! in logs or the browser's history of request URLs.

use serde_json::{json, Value};

use super::chat::split_data_url;
use super::{
    checked_base, checked_model, json_headers, Backend, ChatParams, HttpRequest, Message, Method,
    ModelInfo, Part, Role,
};
use crate::completion::{Completion, TokenStep, Usage};
use crate::errors::{error_body_message, JudgeError};

/// Gemini returns at most this many alternatives per step.
const MAX_LOGPROBS: u8 = 20;

fn key_header(backend: &Backend) -> Result<(&'static str, String), JudgeError> {
    let key = backend.api_key.trim();
    if key.is_empty() {
        return Err(JudgeError::Setting {
            message: "Enter your Gemini API key.".into(),
        });
    }
    Ok(("x-goog-api-key", key.to_string()))
}

/// The model id without a `models/` prefix, refused when it would change the URL's path or
/// query.
fn model_id(backend: &Backend) -> Result<&str, JudgeError> {
    let model = checked_model(backend)?;
    let id = model.strip_prefix("models/").unwrap_or(model);
    if id.is_empty() || id.contains(['/', '?', '#']) || id.contains(char::is_whitespace) {
        return Err(JudgeError::Setting {
            message: format!("\u{201c}{model}\u{201d} is not a Gemini model name."),
        });
    }
    Ok(id)
}

fn content_json(message: &Message) -> Result<Value, JudgeError> {
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "model",
    };
    let parts = message
        .parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => Ok(json!({ "text": t })),
            Part::Image(url) => {
                let (mime, data) = split_data_url(url).ok_or_else(|| JudgeError::Setting {
                    message: "The image is not a base64 data URL.".into(),
                })?;
                Ok(json!({ "inline_data": { "mime_type": mime, "data": data } }))
            }
        })
        .collect::<Result<Vec<_>, JudgeError>>()?;
    Ok(json!({ "role": role, "parts": parts }))
}

/// Builds the HTTP request for one `generateContent` call.
pub fn chat_request(
    backend: &Backend,
    messages: &[Message],
    params: ChatParams,
) -> Result<HttpRequest, JudgeError> {
    let base = checked_base(&backend.base_url)?;
    let model = model_id(backend)?;
    let auth = key_header(backend)?;
    let contents = messages
        .iter()
        .map(content_json)
        .collect::<Result<Vec<_>, _>>()?;
    let mut config = json!({
        "temperature": params.temperature,
        "maxOutputTokens": params.max_tokens,
    });
    if model.contains("gemini-2.5-flash") {
        // 2.5 Flash (and Flash-Lite) think by default, and hidden thinking tokens count against
        // maxOutputTokens: a 20-token rating budget would be spent before the answer starts.
        config["thinkingConfig"] = json!({ "thinkingBudget": 0 });
    } else if model.contains("gemini-2.5") || model.contains("gemini-3") {
        // 2.5 Pro and Gemini 3 always think and cannot be told not to. Their thinking tokens
        // count against maxOutputTokens, so a small budget would leave an empty answer cut off
        // at MAX_TOKENS; give them room to think and then write the rating.
        config["maxOutputTokens"] = json!(params.max_tokens.max(1024));
    }
    if let Some(k) = params.top_logprobs {
        config["responseLogprobs"] = json!(true);
        config["logprobs"] = json!(k.min(MAX_LOGPROBS));
    }
    let body = json!({ "contents": contents, "generationConfig": config });
    Ok(HttpRequest {
        method: Method::Post,
        url: format!("{base}/models/{model}:generateContent"),
        headers: json_headers(vec![auth]),
        body: body.to_string(),
    })
}

/// `GET {base}/models?pageSize=1000` (1000 is the most Gemini returns per page).
pub fn models_request(backend: &Backend) -> Result<HttpRequest, JudgeError> {
    let base = checked_base(&backend.base_url)?;
    let (name, value) = key_header(backend)?;
    Ok(HttpRequest {
        method: Method::Get,
        url: format!("{base}/models?pageSize=1000"),
        headers: vec![(name.to_string(), value)],
        body: String::new(),
    })
}

/// `{"models":[{"name":"models/…","supportedGenerationMethods":[…]}]}`: the models that can
/// `generateContent`, without the `models/` prefix. The listing does not say which take images.
pub fn read_models(body: &str) -> Result<Vec<ModelInfo>, JudgeError> {
    let json: Value = serde_json::from_str(body).map_err(|e| JudgeError::BadResponse {
        detail: format!("not a model list ({e})"),
    })?;
    let Some(models) = json.get("models").and_then(Value::as_array) else {
        return Err(JudgeError::BadResponse {
            detail: "the model list has no \"models\" array".into(),
        });
    };
    Ok(models
        .iter()
        .filter(|m| {
            m.get("supportedGenerationMethods")
                .and_then(Value::as_array)
                .is_some_and(|ms| ms.iter().any(|x| x.as_str() == Some("generateContent")))
        })
        .filter_map(|m| m.get("name").and_then(Value::as_str))
        .map(|name| ModelInfo {
            id: name.strip_prefix("models/").unwrap_or(name).to_string(),
            vision: None,
        })
        .collect())
}

/// Proto3 JSON leaves out fields at their default value: a token with probability 1 comes
/// without `logProbability`, and zero counts are missing from `usageMetadata`.
fn token_of(v: &Value) -> (String, f64) {
    let token = v.get("token").and_then(Value::as_str).unwrap_or("");
    let logprob = v
        .get("logProbability")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    (token.to_string(), logprob)
}

fn array(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn blocked(reason: &str) -> JudgeError {
    JudgeError::BadResponse {
        detail: format!("Gemini blocked the request ({reason}) and wrote no answer"),
    }
}

/// Turns an HTTP status and body into a completion or the error a person should read.
pub fn read_response(
    status: u16,
    retry_after: Option<String>,
    body: &str,
) -> Result<Completion, JudgeError> {
    if !(200..300).contains(&status) {
        return Err(JudgeError::from_http(
            status,
            error_body_message(body),
            retry_after,
        ));
    }
    let json: Value = serde_json::from_str(body).map_err(|e| JudgeError::BadResponse {
        detail: format!("not a generateContent response ({e})"),
    })?;
    let reason = json.pointer("/promptFeedback/blockReason");
    if let Some(reason) = reason.and_then(Value::as_str) {
        return Err(blocked(reason));
    }
    let Some(candidate) = json.pointer("/candidates/0") else {
        let detail = error_body_message(body)
            .map(|m| format!("no candidates; the server said: {m}"))
            .unwrap_or_else(|| "the response has no candidates".into());
        return Err(JudgeError::BadResponse { detail });
    };
    // Thought summaries (sent only when asked for) are not the answer.
    let text: String = array(candidate.pointer("/content/parts"))
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    let finish = candidate
        .get("finishReason")
        .and_then(Value::as_str)
        .unwrap_or("");
    let refusals = [
        "SAFETY",
        "RECITATION",
        "PROHIBITED_CONTENT",
        "BLOCKLIST",
        "SPII",
        "IMAGE_SAFETY",
    ];
    if text.is_empty() && refusals.contains(&finish) {
        return Err(blocked(finish));
    }
    let logprobs = candidate.get("logprobsResult").filter(|l| l.is_object());
    let steps = logprobs.map(|l| {
        let tops = array(l.get("topCandidates"));
        // The two arrays should be the same length; a missing alternatives entry is read as
        // none, and alternatives beyond the last chosen token are dropped.
        array(l.get("chosenCandidates"))
            .iter()
            .enumerate()
            .map(|(i, chosen)| {
                let (token, logprob) = token_of(chosen);
                let alternatives = array(tops.get(i).and_then(|t| t.get("candidates")));
                TokenStep {
                    token,
                    logprob,
                    top: alternatives.iter().map(token_of).collect(),
                }
            })
            .collect::<Vec<_>>()
    });
    let usage = json.get("usageMetadata").map(|u| {
        let count = |name: &str| u.get(name).and_then(Value::as_u64).unwrap_or(0);
        Usage {
            prompt_tokens: count("promptTokenCount"),
            completion_tokens: count("candidatesTokenCount") + count("thoughtsTokenCount"),
        }
    });
    Ok(Completion {
        text,
        steps,
        usage,
        model: json
            .get("modelVersion")
            .and_then(Value::as_str)
            .map(str::to_owned),
        truncated: finish == "MAX_TOKENS",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backend(model: &str, key: &str) -> Backend {
        Backend {
            protocol: super::super::Protocol::Gemini,
            base_url: "https://generativelanguage.googleapis.com/v1beta/".into(),
            model: model.into(),
            api_key: key.into(),
            ..Backend::default()
        }
    }

    fn body_of(model: &str, msgs: &[Message], params: ChatParams) -> Value {
        let req = chat_request(&backend(model, "AIza-secret"), msgs, params).unwrap();
        serde_json::from_str(&req.body).unwrap()
    }

    // The shape Gemini returns for a rating request with logprobs (trimmed to three or four
    // alternatives per step). Probability-1 tokens come without `logProbability`.
    const RATED: &str = r#"{
      "candidates": [{
        "content": {"parts": [{"text": "**Rating: 4**"}], "role": "model"},
        "finishReason": "STOP",
        "avgLogprobs": -0.0872,
        "logprobsResult": {
          "topCandidates": [
            {"candidates": [{"token": "**"}, {"token": "Rating", "logProbability": -18.2}]},
            {"candidates": [{"token": "Rating", "logProbability": -0.0001}]},
            {"candidates": [{"token": ":"}]},
            {"candidates": [{"token": " "}]},
            {"candidates": [{"token": "4", "logProbability": -0.51},
                            {"token": "5", "logProbability": -1.61},
                            {"token": "3", "logProbability": -1.90},
                            {"token": "2", "logProbability": -5.3}]}
          ],
          "chosenCandidates": [
            {"token": "**"}, {"token": "Rating", "logProbability": -0.0001}, {"token": ":"},
            {"token": " "}, {"token": "4", "logProbability": -0.51},
            {"token": "**", "logProbability": -0.002}
          ],
          "logProbabilitySum": -0.5121
        }
      }],
      "usageMetadata": {"promptTokenCount": 1290, "candidatesTokenCount": 6,
        "totalTokenCount": 1296,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 32},
                                {"modality": "IMAGE", "tokenCount": 1258}]},
      "modelVersion": "gemini-2.5-flash",
      "responseId": "x3ZaaPmWLq2Bz7IP"
    }"#;

    #[test]
    fn request_url_headers_and_key_only_in_header() {
        let msgs = [Message::user(vec![Part::Text("rate".into())])];
        let req = chat_request(
            &backend("gemini-2.0-flash", "AIza-secret"),
            &msgs,
            ChatParams::RATING,
        )
        .unwrap();
        assert_eq!(req.method, Method::Post);
        assert_eq!(
            req.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent"
        );
        assert!(req
            .headers
            .contains(&("x-goog-api-key".into(), "AIza-secret".into())));
        assert!(req
            .headers
            .contains(&("Content-Type".into(), "application/json".into())));
        assert!(!req.url.contains("AIza") && !req.body.contains("AIza"));
        assert!(!format!("{req:?}").contains("AIza-secret"));
    }

    #[test]
    fn model_prefix_is_accepted_and_odd_names_refused() {
        let req = chat_request(
            &backend("models/gemini-2.0-flash", "k"),
            &[],
            ChatParams::EXPLAIN,
        );
        assert!(req
            .unwrap()
            .url
            .ends_with("/models/gemini-2.0-flash:generateContent"));
        for bad in ["tunedModels/x", "a?key=1", "a#b", "gemini 2", "models/"] {
            let err = chat_request(&backend(bad, "k"), &[], ChatParams::EXPLAIN).unwrap_err();
            assert!(matches!(err, JudgeError::Setting { .. }), "{bad}: {err:?}");
        }
    }

    #[test]
    fn missing_key_is_a_setting_error() {
        let err = chat_request(&backend("gemini-2.5-flash", " "), &[], ChatParams::RATING);
        let want = JudgeError::Setting {
            message: "Enter your Gemini API key.".into(),
        };
        assert_eq!(err.unwrap_err(), want);
        assert_eq!(models_request(&backend("", "")).unwrap_err(), want);
    }

    #[test]
    fn roles_and_image_parts() {
        let msgs = [
            Message::user(vec![
                Part::Text("rate".into()),
                Part::Image("data:image/jpeg;base64,/9j/AA==".into()),
            ]),
            Message::assistant("4"),
        ];
        let body = body_of("gemini-2.0-flash", &msgs, ChatParams::RATING);
        let contents = &body["contents"];
        assert_eq!(contents[0]["role"], "user");
        assert_eq!(contents[0]["parts"][0]["text"], "rate");
        let image = &contents[0]["parts"][1]["inline_data"];
        assert_eq!(image["mime_type"], "image/jpeg");
        assert_eq!(image["data"], "/9j/AA==");
        assert_eq!(contents[1]["role"], "model");
        assert_eq!(contents[1]["parts"][0]["text"], "4");

        let bad = [Message::user(vec![Part::Image("https://x/y.jpg".into())])];
        let err = chat_request(&backend("gemini-2.0-flash", "k"), &bad, ChatParams::RATING);
        assert!(matches!(err, Err(JudgeError::Setting { .. })));
    }

    #[test]
    fn logprobs_are_asked_for_and_clamped_to_20() {
        let config = &body_of("gemini-2.0-flash", &[], ChatParams::RATING)["generationConfig"];
        assert_eq!(config["responseLogprobs"], true);
        assert_eq!(config["logprobs"], 20);
        assert_eq!(config["temperature"], 0.0);
        assert_eq!(config["maxOutputTokens"], 20);
        let many = ChatParams {
            top_logprobs: Some(50),
            ..ChatParams::RATING
        };
        assert_eq!(
            body_of("gemini-2.0-flash", &[], many)["generationConfig"]["logprobs"],
            20
        );
        let config = &body_of("gemini-2.0-flash", &[], ChatParams::EXPLAIN)["generationConfig"];
        assert!(config.get("responseLogprobs").is_none() && config.get("logprobs").is_none());
    }

    #[test]
    fn thinking_is_off_for_flash_and_budgeted_for_others() {
        for flash in [
            "gemini-2.5-flash",
            "gemini-2.5-flash-lite",
            "models/gemini-2.5-flash",
        ] {
            let config = &body_of(flash, &[], ChatParams::RATING)["generationConfig"];
            assert_eq!(config["thinkingConfig"]["thinkingBudget"], 0, "{flash}");
            assert_eq!(config["maxOutputTokens"], 20, "{flash}");
        }
        for thinker in ["gemini-2.5-pro", "gemini-3-pro-preview"] {
            let config = &body_of(thinker, &[], ChatParams::RATING)["generationConfig"];
            assert!(config.get("thinkingConfig").is_none(), "{thinker}");
            assert_eq!(config["maxOutputTokens"], 1024, "{thinker}");
        }
        let config = &body_of("gemini-2.0-flash", &[], ChatParams::RATING)["generationConfig"];
        assert!(config.get("thinkingConfig").is_none());
        assert_eq!(config["maxOutputTokens"], 20);
    }

    #[test]
    fn reads_text_steps_usage_and_model() {
        let c = read_response(200, None, RATED).unwrap();
        assert_eq!(c.text, "**Rating: 4**");
        assert_eq!(c.model.as_deref(), Some("gemini-2.5-flash"));
        assert!(!c.truncated);
        let usage = c.usage.unwrap();
        assert_eq!((usage.prompt_tokens, usage.completion_tokens), (1290, 6));
        let steps = c.steps.unwrap();
        assert_eq!(steps.len(), 6);
        assert_eq!((steps[0].token.as_str(), steps[0].logprob), ("**", 0.0));
        assert_eq!(steps[4].token, "4");
        assert_eq!(
            steps[4].top[..3],
            [
                ("4".to_string(), -0.51),
                ("5".into(), -1.61),
                ("3".into(), -1.90)
            ]
        );
        // Fewer topCandidates than chosenCandidates: the last step has no alternatives.
        assert!(steps[5].top.is_empty());
        assert_eq!(crate::rating::find_rating_step(&steps), Some(4));
    }

    #[test]
    fn thoughts_are_skipped_and_counted_and_max_tokens_is_truncated() {
        let body = r#"{"candidates":[{"content":{"parts":[{"text":"Let me look","thought":true},
            {"text":"Rating"}],"role":"model"},"finishReason":"MAX_TOKENS"}],
            "usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"thoughtsTokenCount":19}}"#;
        let c = read_response(200, None, body).unwrap();
        assert_eq!(c.text, "Rating");
        assert!(c.truncated);
        assert_eq!(c.steps, None);
        assert_eq!(c.usage.unwrap().completion_tokens, 20);
    }

    #[test]
    fn blocked_prompts_and_candidates_are_bad_responses() {
        let body = r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},
            "usageMetadata":{"promptTokenCount":1290,"totalTokenCount":1290}}"#;
        let err = read_response(200, None, body).unwrap_err();
        assert!(matches!(err, JudgeError::BadResponse { .. }));
        assert!(
            err.to_string()
                .contains("blocked the request (PROHIBITED_CONTENT)"),
            "{err}"
        );
        let body = r#"{"candidates":[{"finishReason":"SAFETY","index":0,
            "safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH","blocked":true}]}]}"#;
        let err = read_response(200, None, body).unwrap_err();
        assert!(
            err.to_string().contains("blocked the request (SAFETY)"),
            "{err}"
        );
        assert!(matches!(
            read_response(200, None, r#"{"candidates":[]}"#),
            Err(JudgeError::BadResponse { .. })
        ));
        assert!(matches!(
            read_response(200, None, "<html>"),
            Err(JudgeError::BadResponse { .. })
        ));
    }

    #[test]
    fn http_errors_are_classified() {
        let bad_key = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#;
        let err = read_response(400, None, bad_key).unwrap_err();
        assert!(
            matches!(err, JudgeError::KeyRejected { status: 400, .. }),
            "{err:?}"
        );
        let no_logprobs = r#"{"error":{"code":400,"message":"Logprobs is not supported for the current model.","status":"INVALID_ARGUMENT"}}"#;
        assert_eq!(
            read_response(400, None, no_logprobs),
            Err(JudgeError::NoLogprobs)
        );
        let missing = r#"{"error":{"code":404,"message":"models/gemini-9 is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.","status":"NOT_FOUND"}}"#;
        let err = read_response(404, None, missing).unwrap_err();
        assert!(matches!(err, JudgeError::Http { status: 404, .. }));
        assert!(err.to_string().contains("models/gemini-9 is not found"));
        let quota = r#"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}"#;
        let err = read_response(429, Some("31".into()), quota).unwrap_err();
        assert!(err.is_transient());
        assert!(err.to_string().contains("retry after 31 s"), "{err}");
    }

    #[test]
    fn model_list_keeps_generate_content_models_without_prefix() {
        let req = models_request(&backend("", "AIza-secret")).unwrap();
        assert_eq!(req.method, Method::Get);
        assert_eq!(
            req.url,
            "https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000"
        );
        assert!(req.body.is_empty());
        assert_eq!(
            req.headers,
            vec![("x-goog-api-key".into(), "AIza-secret".into())]
        );
        let body = r#"{"models":[
          {"name":"models/gemini-2.5-flash","version":"001","displayName":"Gemini 2.5 Flash",
           "inputTokenLimit":1048576,"outputTokenLimit":65536,
           "supportedGenerationMethods":["generateContent","countTokens","createCachedContent","batchGenerateContent"],
           "temperature":1,"topP":0.95,"topK":64,"maxTemperature":2,"thinking":true},
          {"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}],
          "nextPageToken":"Ch5tb2RlbHMv"}"#;
        let want = vec![ModelInfo {
            id: "gemini-2.5-flash".into(),
            vision: None,
        }];
        assert_eq!(read_models(body).unwrap(), want);
        assert!(read_models("{}").is_err());
    }
}
