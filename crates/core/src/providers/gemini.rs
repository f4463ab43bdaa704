//! Gemini `POST {base}/models/{model}:generateContent`: request bodies and response handling.
//! The key travels only in the `x-goog-api-key` header, never in the URL, so it does not end up
//! in logs or the browser's history of request URLs.

use serde_json::{json, Value};

use super::chat::split_system;
use super::{
    checked_base, checked_key, checked_model, get_request, json_headers, model_list, Backend,
    ChatParams, HttpRequest, Message, Method, ModelInfo, Part, Role,
};
use crate::answers::completion::{check_steps, Completion, RawLogprob, TokenStep, Usage};
use crate::answers::errors::{error_body_message, JudgeError};

/// Gemini returns at most this many alternatives per step.
const MAX_LOGPROBS: u8 = 20;

fn key_header(backend: &Backend) -> Result<(&'static str, String), JudgeError> {
    let key = checked_key(&backend.api_key)?;
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
        Role::Assistant => "model",
        // System text never reaches here (see `split_system`).
        Role::User | Role::System => "user",
    };
    let parts = message
        .parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => Ok(json!({ "text": t })),
            Part::Image(image) => Ok(json!({
                "inline_data": { "mime_type": image.mime, "data": image.base64 }
            })),
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
    let (system, messages) = split_system(messages);
    let contents = messages
        .iter()
        .map(content_json)
        .collect::<Result<Vec<_>, _>>()?;
    let mut config = json!({
        "maxOutputTokens": params.max_tokens,
    });
    if let Some(t) = params.temperature {
        config["temperature"] = json!(t);
    }
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
    if let Some(p) = params.top_p {
        config["topP"] = json!(p);
    }
    if let Some(seed) = params.seed {
        config["seed"] = json!(seed);
    }
    if let Some(k) = params.top_logprobs {
        config["responseLogprobs"] = json!(true);
        config["logprobs"] = json!(k.min(MAX_LOGPROBS));
    }
    let mut body = json!({ "contents": contents, "generationConfig": config });
    if let Some(system) = system {
        body["systemInstruction"] = json!({ "parts": [{ "text": system }] });
    }
    Ok(HttpRequest {
        method: Method::Post,
        url: base.url(&format!("/models/{model}:generateContent")),
        headers: json_headers(vec![auth]),
        body: body.to_string(),
    })
}

/// `GET {base}/models?pageSize=1000` (1000 is the most Gemini returns per page).
pub fn models_request(backend: &Backend) -> Result<HttpRequest, JudgeError> {
    let base = checked_base(&backend.base_url)?;
    Ok(get_request(
        base.url("/models?pageSize=1000"),
        vec![key_header(backend)?],
    ))
}

/// `{"models":[{"name":"models/…","supportedGenerationMethods":[…]}]}`: the models that can
/// `generateContent`, without the `models/` prefix. The listing does not say which take images.
pub fn read_models(body: &str) -> Result<Vec<ModelInfo>, JudgeError> {
    let (_, models) = model_list(body, "models")?;
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
/// without `logProbability`, and zero counts are missing from `usageMetadata`. A
/// `logProbability` that is there must pass [`RawLogprob::check`]: `null`, `"NaN"` or
/// `"-Infinity"` is not read as the default.
fn token_of(v: &Value) -> Result<(String, f64), JudgeError> {
    let token = v.get("token").and_then(Value::as_str).unwrap_or("");
    let logprob = RawLogprob::of(v.get("logProbability")).check(Some(0.0), token)?;
    Ok((token.to_string(), logprob))
}

fn array(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn blocked(reason: &str) -> JudgeError {
    JudgeError::BadResponse {
        detail: format!("Gemini blocked the request ({reason}) and wrote no answer"),
    }
}

/// Google sends the wait of a 429 in the body, not as a header:
/// `error.details[{"@type": "…RetryInfo", "retryDelay": "7s"}]`. Returned in seconds.
fn retry_delay_in_body(body: &str) -> Option<String> {
    let json: Value = serde_json::from_str(body).ok()?;
    json.pointer("/error/details")?
        .as_array()?
        .iter()
        .find_map(|d| d.get("retryDelay")?.as_str())
        .and_then(|d| d.strip_suffix('s'))
        .map(str::to_owned)
}

/// Turns an HTTP status and body into a completion or the error a person should read.
pub fn read_response(
    status: u16,
    retry_after: Option<String>,
    body: &str,
) -> Result<Completion, JudgeError> {
    if !(200..300).contains(&status) {
        let retry_after = retry_after.or_else(|| retry_delay_in_body(body));
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
    let refused = [
        "SAFETY",
        "RECITATION",
        "PROHIBITED_CONTENT",
        "BLOCKLIST",
        "SPII",
    ];
    if text.is_empty() && (refused.contains(&finish) || finish == "IMAGE_SAFETY") {
        return Err(blocked(finish));
    }
    let steps = match candidate.get("logprobsResult").filter(|l| l.is_object()) {
        None => None,
        Some(l) => Some(logprob_steps(l)?),
    };
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

/// A `logprobsResult`: the chosen tokens with their alternatives.
fn logprob_steps(l: &Value) -> Result<Vec<TokenStep>, JudgeError> {
    let tops = array(l.get("topCandidates"));
    // The two arrays should be the same length; a missing alternatives entry is read
    // as none, and alternatives beyond the last chosen token are dropped.
    let chosen = array(l.get("chosenCandidates"));
    let mut steps = Vec::with_capacity(chosen.len());
    for (i, chosen) in chosen.iter().enumerate() {
        let (token, logprob) = token_of(chosen)?;
        let alternatives = array(tops.get(i).and_then(|t| t.get("candidates")));
        let mut top = Vec::with_capacity(alternatives.len());
        for a in alternatives {
            top.push(token_of(a)?);
        }
        steps.push(TokenStep {
            token,
            logprob,
            top,
        });
    }
    check_steps(&steps)?;
    Ok(steps)
}

#[cfg(test)]
mod tests {

    #[test]
    fn retry_info_in_the_body_becomes_retry_after() {
        let body = r#"{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED",
            "details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}"#;
        match read_response(429, None, body) {
            Err(JudgeError::Http { retry_after, .. }) => {
                assert_eq!(retry_after.as_deref(), Some("7"))
            }
            other => panic!("{other:?}"),
        }
    }
    use super::*;
    use crate::providers::Image;

    fn backend(model: &str, key: &str) -> Backend {
        Backend {
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

    fn config(model: &str, params: ChatParams) -> Value {
        body_of(model, &[], params)["generationConfig"].clone()
    }

    // As Gemini returns a rating with logprobs (alternatives trimmed). Probability-1 tokens come
    // without `logProbability`; here `topCandidates` is one entry short of `chosenCandidates`.
    const RATED: &str = r#"{"candidates": [{
        "content": {"parts": [{"text": "**Rating: 4**"}], "role": "model"},
        "finishReason": "STOP", "avgLogprobs": -0.0872,
        "logprobsResult": {
          "topCandidates": [{"candidates": [{"token": "**"}, {"token": "Rating", "logProbability": -18.2}]},
            {"candidates": [{"token": "Rating", "logProbability": -0.0001}]},
            {"candidates": [{"token": ":"}]}, {"candidates": [{"token": " "}]},
            {"candidates": [{"token": "4", "logProbability": -0.51}, {"token": "5", "logProbability": -1.61},
              {"token": "3", "logProbability": -1.90}, {"token": "2", "logProbability": -5.3}]}],
          "chosenCandidates": [{"token": "**"}, {"token": "Rating", "logProbability": -0.0001},
            {"token": ":"}, {"token": " "}, {"token": "4", "logProbability": -0.51},
            {"token": "**", "logProbability": -0.002}],
          "logProbabilitySum": -0.5121}}],
      "usageMetadata": {"promptTokenCount": 1290, "candidatesTokenCount": 6, "totalTokenCount": 1296,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 32}, {"modality": "IMAGE", "tokenCount": 1258}]},
      "modelVersion": "gemini-2.5-flash", "responseId": "x3ZaaPmWLq2Bz7IP"}"#;

    #[test]
    fn key_goes_only_in_the_header() {
        let msgs = [Message::user(vec![Part::Text("rate".into())])];
        let b = backend("models/gemini-2.0-flash", "AIza-secret");
        let req = chat_request(&b, &msgs, ChatParams::RATING).unwrap();
        assert_eq!(req.method, Method::Post);
        let url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent";
        assert_eq!(req.url, url);
        let json = ("Content-Type".into(), "application/json".into());
        assert_eq!(
            req.headers,
            [json, ("x-goog-api-key".into(), "AIza-secret".into())]
        );
        assert!(!req.url.contains("AIza") && !req.body.contains("AIza"));
        assert!(!format!("{req:?}").contains("AIza-secret"));
    }

    #[test]
    fn missing_key_and_odd_model_names_are_setting_errors() {
        let want = JudgeError::Setting {
            message: "Enter your Gemini API key.".into(),
        };
        let err = chat_request(&backend("gemini-2.5-flash", " "), &[], ChatParams::RATING);
        assert_eq!(err.unwrap_err(), want);
        assert_eq!(models_request(&backend("", "")).unwrap_err(), want);
        for bad in ["tunedModels/x", "a?key=1", "a#b", "gemini 2", "models/"] {
            let err = chat_request(&backend(bad, "k"), &[], ChatParams::EXPLAIN).unwrap_err();
            assert!(matches!(err, JudgeError::Setting { .. }), "{bad}: {err:?}");
        }
    }

    #[test]
    fn roles_and_image_parts() {
        let image = Part::Image(Image::new("image/jpeg", "/9j/AA=="));
        let msgs = [
            Message::user(vec![Part::Text("rate".into()), image]),
            Message::assistant("4"),
        ];
        let contents = &body_of("gemini-2.0-flash", &msgs, ChatParams::RATING)["contents"];
        assert_eq!(contents[0]["role"], "user");
        assert_eq!(contents[0]["parts"][0]["text"], "rate");
        let want = json!({"inline_data": {"mime_type": "image/jpeg", "data": "/9j/AA=="}});
        assert_eq!(contents[0]["parts"][1], want);
        assert_eq!(
            contents[1],
            json!({"role": "model", "parts": [{"text": "4"}]})
        );
        // Only a base64 data URL becomes an image to send (`Image::from_data_url`).
        assert_eq!(Image::from_data_url("https://x/y.jpg"), None);
    }

    #[test]
    fn logprobs_are_asked_for_and_clamped_to_20() {
        let want = json!({"temperature": 0.0, "maxOutputTokens": 20, "responseLogprobs": true, "logprobs": 20});
        assert_eq!(config("gemini-2.0-flash", ChatParams::RATING), want);
        let many = ChatParams {
            top_p: None,
            top_logprobs: Some(50),
            ..ChatParams::RATING
        };
        assert_eq!(config("gemini-2.0-flash", many)["logprobs"], 20);
        let explain = config("gemini-2.0-flash", ChatParams::EXPLAIN);
        assert!(explain.get("responseLogprobs").is_none() && explain.get("logprobs").is_none());
    }

    #[test]
    fn thinking_is_off_for_flash_and_budgeted_for_others() {
        for flash in [
            "gemini-2.5-flash",
            "gemini-2.5-flash-lite",
            "models/gemini-2.5-flash",
        ] {
            let c = config(flash, ChatParams::RATING);
            assert_eq!(c["thinkingConfig"], json!({"thinkingBudget": 0}), "{flash}");
            assert_eq!(c["maxOutputTokens"], 20, "{flash}");
        }
        for thinker in ["gemini-2.5-pro", "gemini-3-pro-preview"] {
            let c = config(thinker, ChatParams::RATING);
            assert!(c.get("thinkingConfig").is_none(), "{thinker}");
            assert_eq!(c["maxOutputTokens"], 1024, "{thinker}");
        }
        assert!(config("gemini-2.0-flash", ChatParams::RATING)
            .get("thinkingConfig")
            .is_none());
    }

    #[test]
    fn reads_text_steps_usage_and_model() {
        let c = read_response(200, None, RATED).unwrap();
        assert_eq!(c.text, "**Rating: 4**");
        assert_eq!(c.model.as_deref(), Some("gemini-2.5-flash"));
        assert!(!c.truncated);
        let usage = c.usage.map(|u| (u.prompt_tokens, u.completion_tokens));
        assert_eq!(usage, Some((1290, 6)));
        let steps = c.steps.unwrap();
        assert_eq!(steps.len(), 6);
        assert_eq!((steps[0].token.as_str(), steps[0].logprob), ("**", 0.0));
        assert_eq!((steps[4].token.as_str(), steps[4].logprob), ("4", -0.51));
        let top: Vec<(&str, f64)> = steps[4].top.iter().map(|(t, p)| (t.as_str(), *p)).collect();
        assert_eq!(top[..3], [("4", -0.51), ("5", -1.61), ("3", -1.90)]);
        assert!(steps[5].top.is_empty());
        assert_eq!(crate::answers::rating::find_rating_step(&steps), Some(4));
    }

    #[test]
    fn thoughts_are_skipped_but_counted_and_max_tokens_truncates() {
        let body = r#"{"candidates":[{"content":{"parts":[{"text":"Let me look","thought":true},{"text":"Rat"}],
            "role":"model"},"finishReason":"MAX_TOKENS"}],
            "usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"thoughtsTokenCount":19}}"#;
        let c = read_response(200, None, body).unwrap();
        assert_eq!((c.text.as_str(), c.truncated, c.steps), ("Rat", true, None));
        assert_eq!(c.usage.unwrap().completion_tokens, 20);
    }

    #[test]
    fn blocked_and_empty_answers_are_bad_responses() {
        let prompt = r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":9}}"#;
        let candidate = r#"{"candidates":[{"finishReason":"SAFETY","index":0,"safetyRatings":[
            {"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH","blocked":true}]}]}"#;
        for (body, reason) in [(prompt, "PROHIBITED_CONTENT"), (candidate, "SAFETY")] {
            let err = read_response(200, None, body).unwrap_err();
            assert!(matches!(err, JudgeError::BadResponse { .. }));
            assert!(
                err.to_string()
                    .contains(&format!("blocked the request ({reason})")),
                "{err}"
            );
        }
        for body in [r#"{"candidates":[]}"#, "<html>"] {
            assert!(matches!(
                read_response(200, None, body),
                Err(JudgeError::BadResponse { .. })
            ));
        }
    }

    #[test]
    fn http_errors_are_classified() {
        let body = |code: u16, message: &str| {
            json!({"error": {"code": code, "message": message}}).to_string()
        };
        let err = read_response(
            400,
            None,
            &body(400, "API key not valid. Please pass a valid API key."),
        );
        assert!(
            matches!(err, Err(JudgeError::KeyRejected { status: 400, .. })),
            "{err:?}"
        );
        let err = read_response(
            400,
            None,
            &body(400, "Logprobs is not supported for the current model."),
        );
        assert_eq!(err, Err(JudgeError::NoLogprobs));
        let missing = "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.";
        let err = read_response(404, None, &body(404, missing)).unwrap_err();
        assert!(matches!(err, JudgeError::Http { status: 404, .. }));
        assert!(err.to_string().contains("models/gemini-9 is not found"));
        let quota = r#"{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED"}}"#;
        let err = read_response(429, Some("31".into()), quota).unwrap_err();
        assert!(
            err.is_transient() && err.to_string().contains("retry after 31 s"),
            "{err}"
        );
    }

    #[test]
    fn model_list_keeps_generate_content_models_without_prefix() {
        let req = models_request(&backend("", "AIza-secret")).unwrap();
        assert_eq!((req.method, req.body.as_str()), (Method::Get, ""));
        assert_eq!(
            req.url,
            "https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000"
        );
        assert_eq!(
            req.headers,
            vec![("x-goog-api-key".into(), "AIza-secret".into())]
        );
        let body = r#"{"models":[{"name":"models/gemini-2.5-flash","version":"001","displayName":"Gemini 2.5 Flash",
            "inputTokenLimit":1048576,"supportedGenerationMethods":["generateContent","countTokens"],"thinking":true},
            {"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}],"nextPageToken":"Ch5t"}"#;
        let ids: Vec<_> = read_models(body)
            .unwrap()
            .into_iter()
            .map(|m| (m.id, m.vision))
            .collect();
        assert_eq!(ids, [("gemini-2.5-flash".to_string(), None)]);
        assert!(read_models("{}").is_err());
    }

    #[test]
    fn proto3_strings_null_and_positive_logprobs_are_refused_not_read_as_one() {
        let with = |value: &str| {
            RATED.replace(
                r#""logProbability": -1.61"#,
                &format!(r#""logProbability": {value}"#),
            )
        };
        assert_ne!(with("0"), RATED, "the replacement hits the fixture");
        for bad in [
            r#""-Infinity""#,
            r#""NaN""#,
            "null",
            r#""Infinity""#,
            "0.4",
            "1e308",
            "{}",
        ] {
            let err = read_response(200, None, &with(bad)).unwrap_err();
            assert!(
                matches!(err, JudgeError::BadResponse { .. }),
                "{bad}: {err:?}"
            );
            assert!(
                err.to_string().contains("\u{201c}5\u{201d}"),
                "{bad}: {err}"
            );
            assert!(
                err.to_string().contains("probabilities can be used"),
                "{bad}: {err}"
            );
        }
        // A number written as a string is still a number (proto3 JSON allows it), and a left-out
        // logProbability is exactly 0.
        let c = read_response(200, None, &with(r#""-1.61""#)).unwrap();
        let steps = c.steps.unwrap();
        assert_eq!(steps[4].top[1], ("5".to_string(), -1.61));
        assert_eq!(steps[0].logprob, 0.0);
        // Alternatives adding up past 1 are refused as well.
        let err = read_response(200, None, &with("-0.1")).unwrap_err();
        assert!(err.to_string().contains("more than 1"), "{err}");
    }
}
