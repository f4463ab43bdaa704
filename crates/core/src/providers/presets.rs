//! Named starting points for the backend settings. The user may edit every field; settings
//! are kept per preset.

use super::{Backend, ImageDetail, Protocol, Tuning};

/// A backend the app knows how to reach.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub protocol: Protocol,
    pub base_url: &'static str,
    /// A sensible vision model with token probabilities, where the provider has one.
    pub model: &'static str,
    pub needs_key: bool,
    /// A server the user runs (often with a small open model): roomier output budgets and
    /// repeatable mode by default.
    pub local: bool,
    /// llama.cpp's `llama-server` (its own request fields, such as `cache_prompt`, apply).
    pub llama_cpp: bool,
    /// What to change when the browser is refused for lack of CORS headers.
    pub cors_fix: &'static str,
}

const GENERIC_CORS: &str = "The server must send Access-Control-Allow-Origin for this page's \
    origin (or *) and allow the Authorization and Content-Type headers.";

pub const PRESETS: [Preset; 9] = [
    Preset {
        id: "openai",
        label: "OpenAI",
        protocol: Protocol::OpenAi,
        base_url: "https://api.openai.com/v1",
        model: "gpt-4o",
        needs_key: true,
        local: false,
        llama_cpp: false,
        cors_fix: "OpenAI allows browser calls; a refusal here usually means a proxy or \
                   browser extension is blocking the request.",
    },
    Preset {
        id: "gemini",
        label: "Google Gemini",
        protocol: Protocol::Gemini,
        base_url: "https://generativelanguage.googleapis.com/v1beta",
        model: "gemini-2.5-flash",
        needs_key: true,
        local: false,
        llama_cpp: false,
        cors_fix: "The Gemini API allows browser calls; check the base URL and any proxy.",
    },
    Preset {
        id: "anthropic",
        label: "Anthropic (no probabilities: unsmoothed)",
        protocol: Protocol::Anthropic,
        base_url: "https://api.anthropic.com/v1",
        model: "claude-sonnet-4-5",
        needs_key: true,
        local: false,
        llama_cpp: false,
        cors_fix: "Anthropic allows browser calls only with the header \
                   anthropic-dangerous-direct-browser-access, which this app sends; check the \
                   base URL and any proxy.",
    },
    Preset {
        id: "openrouter",
        label: "OpenRouter",
        protocol: Protocol::OpenAi,
        base_url: "https://openrouter.ai/api/v1",
        model: "openai/gpt-4o",
        needs_key: true,
        local: false,
        llama_cpp: false,
        cors_fix: "OpenRouter allows browser calls; check the base URL and any proxy.",
    },
    Preset {
        id: "llama_server",
        label: "llama.cpp llama-server (local)",
        protocol: Protocol::OpenAi,
        base_url: "http://127.0.0.1:8080/v1",
        // llama-server serves whichever model it loaded and ignores this name.
        model: "local",
        needs_key: false,
        local: true,
        llama_cpp: true,
        cors_fix: "llama-server allows any origin by default. If it is behind a proxy, let the \
                   proxy pass CORS; if you started it with --api-key, enter that key here.",
    },
    Preset {
        id: "in_browser",
        label: "In this browser (llama.cpp)",
        protocol: Protocol::OpenAi,
        // Never contacted: web::fetch hands these requests to the engine in the page.
        base_url: super::in_browser::BASE_URL,
        model: "local",
        needs_key: false,
        local: true,
        llama_cpp: true,
        cors_fix: "The model's URL must allow this page's origin (CORS); a file picked from \
                   this computer needs nothing.",
    },
    Preset {
        id: "ollama",
        label: "Ollama (local)",
        protocol: Protocol::OpenAi,
        base_url: "http://127.0.0.1:11434/v1",
        model: "qwen2.5vl:3b",
        needs_key: false,
        local: true,
        llama_cpp: false,
        cors_fix: "Ollama only allows pages served from localhost by default: start it with \
                   OLLAMA_ORIGINS set to this page's origin (or *), e.g. OLLAMA_ORIGINS=* \
                   ollama serve.",
    },
    Preset {
        id: "vllm",
        label: "vLLM (local or hosted)",
        protocol: Protocol::OpenAi,
        base_url: "http://127.0.0.1:8000/v1",
        model: "Qwen/Qwen2.5-VL-3B-Instruct",
        needs_key: false,
        local: true,
        llama_cpp: false,
        cors_fix: "vLLM allows any origin unless started with --allowed-origins; if it was, \
                   add this page's origin to that list.",
    },
    Preset {
        id: "custom",
        label: "Other OpenAI-compatible server",
        protocol: Protocol::OpenAi,
        base_url: "",
        model: "",
        needs_key: false,
        local: false,
        llama_cpp: false,
        cors_fix: GENERIC_CORS,
    },
];

impl Preset {
    /// Whether this is the in-page engine: the one test every door uses, by the preset's base
    /// URL (`in_browser::handles`, the same test `web::fetch` applies to each request).
    pub fn in_page(&self) -> bool {
        super::in_browser::handles(self.base_url)
    }
}

/// The preset with this id, or the generic OpenAI-compatible one.
pub fn preset(id: &str) -> &'static Preset {
    PRESETS
        .iter()
        .find(|p| p.id == id)
        .unwrap_or(&PRESETS[PRESETS.len() - 1])
}

/// What a door chose for a backend on a preset; each `None` is the preset's default. (No
/// `Debug`: it holds the key.)
#[derive(Clone, Default, PartialEq)]
pub struct BackendChoice {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key: String,
    pub image_detail: ImageDetail,
    /// The output budget of scoring requests: the door's, or the metric's default on this
    /// preset (`MetricInfo::default_max_tokens(preset.local)`); at least 1.
    pub max_tokens: u32,
    pub repeatable: Option<bool>,
}

impl Preset {
    /// The base URL chosen, or the preset's.
    pub fn base_url_or(&self, chosen: Option<String>) -> String {
        chosen.unwrap_or_else(|| self.base_url.to_string())
    }

    /// The model chosen, or the preset's.
    pub fn model_or(&self, chosen: Option<String>) -> String {
        chosen.unwrap_or_else(|| self.model.to_string())
    }

    /// Repeatable mode as chosen, or the preset's default: on for the servers users run.
    pub fn repeatable_or(&self, chosen: Option<bool>) -> bool {
        chosen.unwrap_or(self.local)
    }

    /// The backend every door builds on this preset: its protocol and llama.cpp's fields, the
    /// choices made, the preset's defaults for the rest. No in-page engine (the page adds the
    /// one that answers).
    pub fn backend(&self, chosen: BackendChoice) -> Backend {
        Backend {
            protocol: self.protocol,
            base_url: self.base_url_or(chosen.base_url),
            model: self.model_or(chosen.model),
            api_key: chosen.api_key,
            image_detail: chosen.image_detail,
            tuning: Tuning {
                max_tokens: Some(chosen.max_tokens.max(1)),
                llama_cpp: self.llama_cpp,
                repeatable: self.repeatable_or(chosen.repeatable),
            },
            engine: None,
            recorded_provider: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_servers_are_the_ones_users_run() {
        let local: Vec<&str> = PRESETS.iter().filter(|p| p.local).map(|p| p.id).collect();
        assert_eq!(local, ["llama_server", "in_browser", "ollama", "vllm"]);
        assert!(preset("llama_server").llama_cpp && !preset("ollama").llama_cpp);
        let page = preset("in_browser");
        assert!(page.llama_cpp && !page.needs_key);
        assert!(super::super::in_browser::handles(page.base_url));
        // One in-page preset, known by its base URL; an unknown id (the generic preset) is not it.
        let in_page: Vec<&str> = PRESETS
            .iter()
            .filter(|p| p.in_page())
            .map(|p| p.id)
            .collect();
        assert_eq!(in_page, ["in_browser"]);
        assert!(!preset("no-such-provider").in_page());
    }

    #[test]
    fn ids_are_unique_and_unknown_ids_fall_back_to_custom() {
        for (i, a) in PRESETS.iter().enumerate() {
            assert!(PRESETS[i + 1..].iter().all(|b| b.id != a.id), "{}", a.id);
        }
        assert_eq!(preset("nope").id, "custom");
        assert_eq!(preset("gemini").protocol, Protocol::Gemini);
    }

    #[test]
    fn a_backend_takes_its_presets_defaults_where_nothing_was_chosen() {
        let llama = preset("llama_server").backend(BackendChoice::default());
        assert_eq!(llama.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(llama.model, "local");
        assert_eq!(llama.protocol, Protocol::OpenAi);
        assert_eq!(
            llama.tuning,
            Tuning {
                max_tokens: Some(1),
                llama_cpp: true,
                repeatable: true,
            }
        );
        let gemini = preset("gemini").backend(BackendChoice {
            base_url: Some("http://proxy/v1beta".into()),
            model: Some("gemini-x".into()),
            api_key: "k".into(),
            image_detail: ImageDetail::High,
            max_tokens: 20,
            repeatable: Some(true),
        });
        assert_eq!(gemini.protocol, Protocol::Gemini);
        assert_eq!(
            (
                gemini.base_url.as_str(),
                gemini.model.as_str(),
                gemini.api_key.as_str()
            ),
            ("http://proxy/v1beta", "gemini-x", "k")
        );
        assert_eq!(gemini.image_detail, ImageDetail::High);
        assert_eq!(gemini.tuning.max_tokens, Some(20));
        assert!(gemini.tuning.repeatable && !gemini.tuning.llama_cpp);
        assert!(!preset("openai").repeatable_or(None) && preset("vllm").repeatable_or(None));
        assert!(!preset("vllm").repeatable_or(Some(false)));
    }
}
