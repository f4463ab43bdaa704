//! OpenAI-compatible `POST {base}/chat/completions` (OpenAI, llama.cpp `llama-server`, vLLM,
//! Ollama, OpenRouter): request bodies and response handling.

use serde_json::{json, Value};

use super::{
    checked_key, checked_model, get_request, json_headers, model_list, openai_base, Backend,
    ChatParams, HttpRequest, ImageDetail, Message, Method, ModelInfo, Part, Role,
};
use crate::answers::completion::{parse_chat_completion, Completion};
use crate::answers::errors::{error_body_message, JudgeError};

fn message_json(message: &Message, detail: ImageDetail) -> Value {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    // Text-only messages are sent as a plain string, which every compatible server accepts;
    // messages with an image use the content-parts array.
    if !message.has_image() {
        return json!({ "role": role, "content": message.text() });
    }
    let parts: Vec<Value> = message
        .parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => json!({ "type": "text", "text": t }),
            Part::Image(sent) => {
                let mut image = json!({ "url": sent.data_url() });
                if detail != ImageDetail::Auto {
                    image["detail"] = json!(detail.id());
                }
                json!({ "type": "image_url", "image_url": image })
            }
        })
        .collect();
    json!({ "role": role, "content": parts })
}

/// `{base}/chat/completions`, checking that the base URL is an http(s) URL.
pub fn chat_completions_url(base_url: &str) -> Result<String, JudgeError> {
    Ok(openai_base(base_url)?.url("/chat/completions"))
}

/// Builds the HTTP request for one chat completion.
pub fn chat_request(
    backend: &Backend,
    messages: &[Message],
    params: ChatParams,
) -> Result<HttpRequest, JudgeError> {
    let url = chat_completions_url(&backend.base_url)?;
    let model = checked_model(backend)?;
    let mut body = json!({
        "model": model,
        "messages": messages
            .iter()
            .map(|m| message_json(m, backend.image_detail))
            .collect::<Vec<_>>(),
        "max_tokens": params.max_tokens,
    });
    if let Some(t) = params.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = params.top_p {
        body["top_p"] = json!(p);
    }
    if let Some(k) = params.top_logprobs {
        body["logprobs"] = json!(true);
        body["top_logprobs"] = json!(k);
    }
    if let Some(seed) = params.seed {
        body["seed"] = json!(seed);
    }
    if backend.tuning.llama_cpp {
        // llama-server reuses cached prompt prefixes by default, and a prefix read from the
        // cache gives different logprobs than the same prompt computed afresh.
        body["cache_prompt"] = json!(false);
    }
    Ok(HttpRequest {
        method: Method::Post,
        url,
        headers: json_headers(bearer(backend)?),
        body: body.to_string(),
    })
}

/// `Authorization: Bearer <key>`, or nothing for a keyless local server; a key that cannot be
/// sent in a header is refused.
pub(crate) fn bearer(backend: &Backend) -> Result<Vec<(&'static str, String)>, JudgeError> {
    let key = checked_key(&backend.api_key)?;
    Ok(if key.is_empty() {
        vec![]
    } else {
        vec![("Authorization", format!("Bearer {key}"))]
    })
}

/// `GET {base}/models`.
pub fn models_request(backend: &Backend) -> Result<HttpRequest, JudgeError> {
    let base = openai_base(&backend.base_url)?;
    Ok(get_request(base.url("/models"), bearer(backend)?))
}

/// `{"data":[{"id":…}]}`. llama.cpp also sends `models[].capabilities` (e.g. `"multimodal"`)
/// and Ollama/OpenRouter other extras; vision is read where it is stated.
///
/// One pass: llama.cpp writes `models` in the order of `data`, so entry `i` of one describes
/// entry `i` of the other; only a short `models` list is searched when they differ. A hostile
/// or huge list of 100k models once took minutes when each id searched both lists.
pub fn read_models(body: &str) -> Result<Vec<ModelInfo>, JudgeError> {
    let (json, data) = model_list(body, "data")?;
    let models = json
        .get("models")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let names = |m: &Value, id: &str| {
        m.get("model").and_then(Value::as_str) == Some(id)
            || m.get("name").and_then(Value::as_str) == Some(id)
    };
    let multimodal = |m: &Value| {
        m.get("capabilities")
            .and_then(Value::as_array)
            .map(|caps| caps.iter().any(|c| c.as_str() == Some("multimodal")))
    };
    Ok(data
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some((i, m.get("id").and_then(Value::as_str)?, m)))
        .map(|(i, id, m)| {
            let same_place = models.get(i).filter(|l| names(l, id));
            let found = same_place.or_else(|| {
                (models.len() <= SEARCHED_MODELS)
                    .then(|| models.iter().find(|l| names(l, id)))
                    .flatten()
            });
            ModelInfo {
                id: id.to_string(),
                vision: found.and_then(multimodal).or_else(|| input_modalities(m)),
            }
        })
        .collect())
}

/// llama.cpp lists the one model it loaded; a `models` list longer than this that does not
/// follow `data` is not searched per id (that would be quadratic).
const SEARCHED_MODELS: usize = 64;

/// OpenRouter lists `architecture.input_modalities` per model.
fn input_modalities(model: &Value) -> Option<bool> {
    let modalities = model
        .pointer("/architecture/input_modalities")?
        .as_array()?;
    Some(modalities.iter().any(|m| m.as_str() == Some("image")))
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
    parse_chat_completion(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::Image;

    fn backend(key: &str) -> Backend {
        Backend {
            base_url: "http://127.0.0.1:8080/v1/".into(),
            model: "gpt-4o".into(),
            api_key: key.into(),
            ..Backend::default()
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
            Part::Image(Image::new("image/jpeg", "AAAA")),
        ])];
        let req = chat_request(&backend(""), &msgs, ChatParams::RATING).unwrap();
        let body: Value = serde_json::from_str(&req.body).unwrap();
        let content = &body["messages"][0]["content"];
        assert_eq!(content[0]["type"], "text");
        assert_eq!(
            content[1]["image_url"]["url"],
            "data:image/jpeg;base64,AAAA"
        );
        // "auto" is OpenAI's default and is left out; low/high are sent.
        assert!(content[1]["image_url"].get("detail").is_none());
        let low = Backend {
            image_detail: ImageDetail::Low,
            ..backend("")
        };
        let body: Value =
            serde_json::from_str(&chat_request(&low, &msgs, ChatParams::RATING).unwrap().body)
                .unwrap();
        assert_eq!(
            body["messages"][0]["content"][1]["image_url"]["detail"],
            "low"
        );
    }

    #[test]
    fn model_lists_from_openai_llama_cpp_and_openrouter() {
        let req = models_request(&backend("sk-1")).unwrap();
        assert_eq!(req.method, Method::Get);
        assert_eq!(req.url, "http://127.0.0.1:8080/v1/models");
        let openai = r#"{"object":"list","data":[{"id":"gpt-4o","object":"model","created":1715367049,"owned_by":"system"}]}"#;
        assert_eq!(
            read_models(openai).unwrap(),
            vec![ModelInfo {
                id: "gpt-4o".into(),
                vision: None
            }]
        );
        let llama = r#"{"models":[{"name":"smolvlm.gguf","model":"smolvlm.gguf","capabilities":["completion","multimodal"]}],
            "object":"list","data":[{"id":"smolvlm.gguf","object":"model","created":1,"owned_by":"llamacpp","meta":{"n_ctx_train":8192}}]}"#;
        assert_eq!(read_models(llama).unwrap()[0].vision, Some(true));
        let router = r#"{"data":[{"id":"openai/gpt-4o","architecture":{"input_modalities":["text","image"]}},
            {"id":"x/text-only","architecture":{"input_modalities":["text"]}}]}"#;
        let models = read_models(router).unwrap();
        assert_eq!(models[0].vision, Some(true));
        assert_eq!(models[1].vision, Some(false));
        assert!(read_models("{}").is_err());
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

    #[test]
    fn a_hundred_thousand_models_are_read_in_one_pass() {
        // llama.cpp's shape (both lists) at 100k entries: each id used to search both lists,
        // 10^10 comparisons; now two hash-map passes.
        let n = 100_000;
        let data: Vec<String> = (0..n).map(|i| format!(r#"{{"id":"m{i}"}}"#)).collect();
        let models: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    r#"{{"model":"m{i}","capabilities":["completion"{}]}}"#,
                    if i % 2 == 0 { r#","multimodal""# } else { "" }
                )
            })
            .collect();
        let body = format!(
            r#"{{"data":[{}],"models":[{}]}}"#,
            data.join(","),
            models.join(",")
        );
        let started = std::time::Instant::now();
        let list = read_models(&body).unwrap();
        assert_eq!(list.len(), n);
        assert_eq!(list[0].vision, Some(true));
        assert_eq!(list[n - 1].vision, Some(false));
        // Generous for a debug build on a loaded machine (about 1 s idle, 5.5 s under a
        // parallel build); the quadratic reader needs 10^10 comparisons, far beyond it.
        assert!(
            started.elapsed().as_secs_f64() < 30.0,
            "{:?}",
            started.elapsed()
        );
    }
}
