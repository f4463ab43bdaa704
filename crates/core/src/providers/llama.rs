//! llama.cpp `llama-server` extras beyond the OpenAI-compatible API: `GET /props` names the
//! loaded model and says whether it was started with a vision projector (`--mmproj`).

use serde_json::Value;

use super::openai::bearer;
use super::{get_request, openai_base, Backend, HttpRequest};
use crate::answers::errors::JudgeError;

/// What `/props` tells about the running server.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LlamaProps {
    /// The GGUF file the server loaded.
    pub model_path: Option<String>,
    /// `modalities.vision`; absent on builds older than multimodal support.
    pub vision: Option<bool>,
    pub build_info: Option<String>,
    pub context_size: Option<u64>,
}

/// `GET {server}/props`: the base URL without its `/v1` suffix.
pub fn props_request(backend: &Backend) -> Result<HttpRequest, JudgeError> {
    let root = openai_base(&backend.base_url)?.without_suffix("/v1");
    Ok(get_request(root.url("/props"), bearer(backend)?))
}

/// Reads `/props`; `None` when the body is not llama.cpp's (another server on that port).
pub fn read_props(body: &str) -> Option<LlamaProps> {
    let json: Value = serde_json::from_str(body).ok()?;
    if json.get("default_generation_settings").is_none() && json.get("model_path").is_none() {
        return None;
    }
    let text = |p: &str| json.pointer(p).and_then(Value::as_str).map(str::to_owned);
    Some(LlamaProps {
        model_path: text("/model_path"),
        vision: json.pointer("/modalities/vision").and_then(Value::as_bool),
        build_info: text("/build_info"),
        context_size: json
            .pointer("/default_generation_settings/n_ctx")
            .and_then(Value::as_u64),
    })
}

impl LlamaProps {
    /// The model's file name without its directory.
    pub fn model_name(&self) -> Option<&str> {
        let path = self.model_path.as_deref()?;
        Some(path.rsplit(['/', '\\']).next().unwrap_or(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn props_url_drops_the_v1_suffix() {
        let b = Backend {
            base_url: "http://127.0.0.1:8080/v1/".into(),
            ..Backend::default()
        };
        assert_eq!(
            props_request(&b).unwrap().url,
            "http://127.0.0.1:8080/props"
        );
    }

    #[test]
    fn reads_a_multimodal_server() {
        let body = r#"{"default_generation_settings":{"id":0,"n_ctx":4096,"params":{"n_predict":-1}},
            "total_slots":1,"model_path":"/models/SmolVLM-500M-Instruct-Q8_0.gguf",
            "chat_template":"...","modalities":{"vision":true,"audio":false},
            "build_info":"b6100-abcdef0"}"#;
        let p = read_props(body).unwrap();
        assert_eq!(p.model_name(), Some("SmolVLM-500M-Instruct-Q8_0.gguf"));
        assert_eq!(p.vision, Some(true));
        assert_eq!(p.context_size, Some(4096));
        assert_eq!(read_props(r#"{"object":"list"}"#), None);
        assert_eq!(read_props("<html>"), None);
    }
}
