//! Backends the judge can talk to. Request building and response reading are pure; only the
//! transport in `crate::web::fetch` touches the network.

pub mod openai;

use std::fmt;

/// Where requests go and as whom. The key is sent only to `base_url`.
#[derive(Clone, PartialEq, Default)]
pub struct Backend {
    pub base_url: String,
    pub model: String,
    pub api_key: String,
}

impl fmt::Debug for Backend {
    // Never print the key, even in a debug log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Backend")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field(
                "api_key",
                &if self.api_key.is_empty() { "" } else { "[set]" },
            )
            .finish()
    }
}

/// A ready-to-send HTTP request. Its `Debug` output hides header values.
#[derive(Clone, PartialEq)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpRequest")
            .field("url", &self.url)
            .field("headers", &names)
            .field("body_bytes", &self.body.len())
            .finish()
    }
}

/// A named starting point for the backend settings; the user may edit every field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub base_url: &'static str,
    pub model: &'static str,
    pub needs_key: bool,
}

pub const PRESETS: [Preset; 2] = [
    Preset {
        id: "openai",
        label: "OpenAI",
        base_url: "https://api.openai.com/v1",
        model: "gpt-4o",
        needs_key: true,
    },
    Preset {
        id: "llama_server",
        label: "llama.cpp llama-server (local)",
        base_url: "http://127.0.0.1:8080/v1",
        // llama-server serves whichever model it loaded and ignores this name.
        model: "local",
        needs_key: false,
    },
];
