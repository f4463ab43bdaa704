//! The "In this browser (llama.cpp)" provider: llama.cpp compiled to WebAssembly (npm
//! `@wllama/wllama`, which runs llama-server's own request handling in a worker). It speaks the
//! OpenAI/llama.cpp wire format like `llama-server`, so the request is built by
//! `providers::chat_request` and the answer read by `providers::read_chat`; only the transport
//! differs (`web::in_browser`). Everything that decides a request, a refusal or a sentence for
//! it is here, pure and tested natively.

use serde_json::{json, Value};

use crate::answers::errors::JudgeError;
use crate::inputs::sniff::{sniff, Kind};

pub mod gguf;
pub mod gpu;
pub mod gpu_check;
pub mod images;
pub mod meter;
pub mod placement;
pub mod stop;

/// The preset's base URL: requests built for it never reach the network. `.invalid` is
/// reserved (RFC 2606) and never resolves, so a stray request could go nowhere.
pub const BASE_URL: &str = "http://in-browser.invalid/v1";

/// Alternatives asked for when a metric asks for as many as the APIs allow (20): the engine
/// has no such limit, and a wider list covers more of the rating tokens' probability.
pub const ALTERNATIVES: u8 = 64;

/// What the in-page engine is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Chat,
    Models,
    Props,
    Unknown,
}

/// Whether this request is for the in-page engine.
pub fn handles(url: &str) -> bool {
    url.get(..BASE_URL.len() - 2)
        .is_some_and(|head| head.eq_ignore_ascii_case(&BASE_URL[..BASE_URL.len() - 2]))
}

/// Which of llama-server's endpoints the URL names.
pub fn route(url: &str) -> Route {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    if path.ends_with("/chat/completions") {
        Route::Chat
    } else if path.ends_with("/models") {
        Route::Models
    } else if path.ends_with("/props") {
        Route::Props
    } else {
        Route::Unknown
    }
}

/// llama-server's answer (HTTP 500) to an image sent to a model loaded without a projector,
/// byte for byte, so the app says the same "no vision" sentence for both.
pub const NO_VISION_BODY: &str = r#"{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}"#;

/// The request body as the engine gets it, or llama-server's refusal (status, body).
/// Wider alternatives where the metric asked for the APIs' maximum.
pub fn prepare_chat(body: &str, vision: bool) -> Result<String, (u16, String)> {
    let mut req: Value = serde_json::from_str(body).map_err(|e| {
        (
            400,
            json!({"error": {"code": 400, "message": format!("invalid JSON: {e}"), "type": "invalid_request_error"}})
                .to_string(),
        )
    })?;
    if !vision && has_image(&req) {
        return Err((500, NO_VISION_BODY.to_string()));
    }
    let asked = req.get("top_logprobs").and_then(Value::as_u64);
    if let Some(k) = asked.map(|k| u8::try_from(k).unwrap_or(u8::MAX)) {
        req["top_logprobs"] = json!(alternatives(k));
    }
    Ok(req.to_string())
}

/// How many alternatives the engine is asked for when a metric asks for `asked`: the APIs'
/// maximum (20) or more becomes [`ALTERNATIVES`], fewer are kept (a metric that follows a
/// paper's 5 still gets 5). The one rule for both what is sent and what a result records.
pub fn alternatives(asked: u8) -> u8 {
    if asked >= 20 {
        ALTERNATIVES
    } else {
        asked
    }
}

fn has_image(req: &Value) -> bool {
    req.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .any(|p| p.get("type").and_then(Value::as_str) == Some("image_url"))
}

/// `GET /v1/models` as llama-server answers it: the loaded model.
pub fn models_body(name: &str) -> String {
    json!({"object": "list", "data": [{"id": name, "object": "model", "owned_by": "llamacpp"}]})
        .to_string()
}

/// `GET /props` as llama-server answers it: the model and whether it has a projector.
pub fn props_body(name: &str, vision: bool) -> String {
    json!({
        "default_generation_settings": {"n_ctx": 4096},
        "model_path": name,
        "modalities": {"vision": vision, "audio": false},
        "build_info": "wllama (llama.cpp in WebAssembly)",
    })
    .to_string()
}

/// The sentence refusing a picked or downloaded file before llama.cpp sees it, or `None`.
/// `label` is "model", "projector", "downloaded model", "downloaded projector" or "downloaded"
/// (a file whose slot is not known); `head` its first bytes.
pub fn check_file(label: &str, head: &[u8], size: f64) -> Option<String> {
    if size < 8.0 || head.len() < 4 {
        return Some(format!(
            "The {label} file is empty or cut short ({size:.0} bytes): choose the whole .gguf file."
        ));
    }
    if head.starts_with(b"GGUF") {
        return wrong_slot(label, gguf::architecture(head).as_deref());
    }
    let looks = match sniff(head).kind {
        Kind::Jpeg | Kind::Png | Kind::Gif | Kind::WebP | Kind::Bmp | Kind::Avif => "an image",
        Kind::Svg => "an SVG drawing",
        Kind::Pdf => "a PDF document",
        Kind::Text if head.starts_with(b"<") => "a web page (HTML), perhaps an error page",
        Kind::Text => "a text file",
        Kind::Unknown if head.starts_with(b"PK") => "a ZIP archive",
        Kind::Unknown => "not a GGUF file",
    };
    Some(format!(
        "The {label} file is not a GGUF model (it looks like {looks}). Choose a .gguf file, \
         such as a model from the suggestions or its mmproj projector."
    ))
}

/// A projector (`general.architecture` = `clip`) in the model's slot, or a model in the
/// projector's: llama.cpp would refuse either with a line few people read.
fn wrong_slot(label: &str, architecture: Option<&str>) -> Option<String> {
    match architecture? {
        "clip" if label.ends_with("model") => Some(projector_as_model(label)),
        "clip" => None,
        arch if label.ends_with("projector") => Some(model_as_projector(label, Some(arch))),
        _ => None,
    }
}

fn projector_as_model(label: &str) -> String {
    format!(
        "The {label} file is a vision projector (an mmproj file), not a language model: llama.cpp \
         cannot judge with it alone. Give it as the projector, and the language model it was \
         made for as the model (for SmolVLM-256M-Instruct: SmolVLM-256M-Instruct-Q8_0.gguf \
         with mmproj-SmolVLM-256M-Instruct-Q8_0.gguf)."
    )
}

/// `arch`: the file's `general.architecture`, when its header was read.
fn model_as_projector(label: &str, arch: Option<&str>) -> String {
    let what = match arch {
        Some(arch) => format!("is a language model ({arch}), not a vision projector"),
        None => "is not a vision projector llama.cpp can read (a language model?)".to_string(),
    };
    format!(
        "The {label} file {what}. Give the language model as the model, and its mmproj file as \
         the projector (for SmolVLM-256M-Instruct: mmproj-SmolVLM-256M-Instruct-Q8_0.gguf)."
    )
}

/// The sentence for llama.cpp's own refusal of a model and projector that do not belong
/// together, from its log lines (`msg` as the bridge reports them, joined by " | "), or `None`.
fn mismatched_files(msg: &str) -> Option<String> {
    // mtmd_init_from_file's words for a projector made for another text model's width.
    const WIDTHS: &str = "mismatch between text model (n_embd = ";
    const PROJECTOR: &str = "mmproj (n_embd = ";
    if let Some(at) = msg.find(WIDTHS) {
        let line = msg[at..].split(" | ").next().unwrap_or(WIDTHS).trim_end();
        let number = |s: &str| -> String { s.chars().take_while(char::is_ascii_digit).collect() };
        let model = number(&line[WIDTHS.len()..]);
        let projector = line
            .find(PROJECTOR)
            .map(|i| number(&line[i + PROJECTOR.len()..]))
            .unwrap_or_default();
        return Some(format!(
            "The projector was made for a text model {projector} wide, and this model is {model} \
             wide: they do not belong together. Load the projector published with this model \
             (for SmolVLM-256M-Instruct: mmproj-SmolVLM-256M-Instruct-Q8_0.gguf), or the model \
             it was made for (llama.cpp said: {line})."
        ));
    }
    if msg.contains("CLIP cannot be used as main model") {
        return Some(projector_as_model("model"));
    }
    if msg.contains("Failed to load CLIP model from") {
        return Some(model_as_projector("projector", None));
    }
    None
}

fn about_memory(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    // The browser refusing the engine its memory ("WebAssembly.Memory(): could not allocate
    // memory", wllama's "Cannot allocate WebAssembly.Memory"), and llama.cpp failing to allocate
    // its weights, cache or compute buffers in it ("failed to allocate buffer …").
    [
        "out of memory",
        "array buffer allocation",
        "memory access out of bounds",
        "cannot enlarge memory",
        "could not allocate memory",
        "cannot allocate webassembly.memory",
        "failed to allocate",
    ]
    .iter()
    .any(|w| m.contains(w))
}

/// The sentence for a model that did not load, from what the engine threw.
pub fn load_failure(msg: &str) -> String {
    if let Some(refusal) = msg.strip_prefix("refused:") {
        return refusal.to_string();
    }
    if let Some(lacking) = msg.strip_prefix("unsupported:") {
        let lacking: Vec<String> = lacking.split(',').map(str::to_string).collect();
        if let Some(sentence) = unsupported(&lacking) {
            return sentence;
        }
    }
    if msg == "abort" {
        return "Loading was cancelled.".into();
    }
    if let Some(sentence) = mismatched_files(msg) {
        return sentence;
    }
    if let Some(bytes) = msg.strip_prefix("too-large:") {
        let size = bytes
            .parse::<f64>()
            .map(size_text)
            .unwrap_or_else(|_| bytes.to_string());
        return format!(
            "These files ({size}) are larger than the {} that llama.cpp's Memory32 build can hold, \
             and this browser lacks what its Memory64 build needs (WebAssembly JSPI and Memory64: \
             Chrome or Edge 137 or newer, Firefox 153 or newer). Choose a smaller model.",
            size_text(MEMORY32_MAX_BYTES)
        );
    }
    if let Some(why) = msg.strip_prefix("worker-failed:") {
        return format!(
            "The engine's worker could not start ({why}): the browser blocked it or is out of \
             memory. Reload the page; if it keeps failing, choose a smaller model."
        );
    }
    if about_memory(msg) {
        return "The browser ran out of memory loading this model. Choose a smaller one (a few \
                hundred MB works in any desktop browser), or close other tabs."
            .into();
    }
    if msg.starts_with("Failed to fetch") || msg.contains("NetworkError") || msg == "Load failed" {
        return format!(
            "The model could not be downloaded ({msg}). Check the URL, and that its server allows \
             this page's origin (CORS)."
        );
    }
    format!(
        "llama.cpp could not load the model: the file is damaged or cut short, or not a model \
         llama.cpp knows. Download it again or choose another (the engine said: {msg})."
    )
}

/// What a failed completion means to the run.
pub fn chat_failure(msg: &str) -> JudgeError {
    if msg == "abort" {
        return JudgeError::Cancelled;
    }
    // The GPU failed while answering (issue 70): the bridge started the engine again on the
    // CPU, or could not.
    if let Some(rest) = msg.strip_prefix("gpu-failed:") {
        return JudgeError::Setting {
            message: format!(
                "The GPU failed while answering ({rest}). The in-page judge started again on \
                 the CPU by itself, with the same model: press Evaluate again to ask there."
            ),
        };
    }
    if let Some(rest) = msg.strip_prefix("gpu-failed-dead:") {
        let (reason, why) = rest.split_once(" | ").unwrap_or((rest, ""));
        return JudgeError::Setting {
            message: format!(
                "The GPU failed while answering ({reason}), and the in-page judge could not \
                 start again on the CPU ({why}): load the model again."
            ),
        };
    }
    if msg == "not-loaded" {
        return JudgeError::Setting {
            message: "No model is loaded in this page: in the Judge settings, load one from a URL \
                      or pick its file first."
                .into(),
        };
    }
    // llama-server's own words (wllama runs its code): the text model lacks an image token.
    if msg.trim() == "Invalid token" {
        return JudgeError::ImageTokens {
            status: 400,
            message: Some(msg.trim().to_string()),
        };
    }
    if about_memory(msg) {
        return JudgeError::Setting {
            message: "The browser ran out of memory while judging: choose a smaller model or a \
                      smaller image."
                .into(),
        };
    }
    JudgeError::BadResponse {
        detail: format!("the in-page engine failed ({msg})"),
    }
}

fn feature_names(missing: &[String]) -> String {
    let names: Vec<&str> = missing
        .iter()
        .map(|m| match m.as_str() {
            "jspi" => "WebAssembly JavaScript Promise Integration (JSPI)",
            "memory64" => "WebAssembly Memory64",
            "workers" => "Web Workers",
            "webassembly" => "WebAssembly",
            other => other,
        })
        .collect();
    names.join(" and ")
}

/// The sentence for a browser that cannot run either build of the engine, naming what it
/// lacks; `None` when nothing is missing. Both builds need WebAssembly and Web Workers, which
/// every current browser has (Safari included).
pub fn unsupported(missing: &[String]) -> Option<String> {
    if missing.is_empty() {
        return None;
    }
    Some(format!(
        "This browser cannot run the judge in the page: it lacks {}. Any current Chrome, Edge, \
         Firefox or Safari has what it needs. Nothing is downloaded until it can.",
        feature_names(missing)
    ))
}

/// The most bytes of model and projector the Memory32 build is given (the bridge's
/// `MEMORY32_MAX_BYTES`): its whole address space is 4 GiB, which also holds the context.
pub const MEMORY32_MAX_BYTES: f64 = 2.5e9;

/// Which build of llama.cpp runs (the bridge's word: `ours`, `memory32` or `memory64`) and why,
/// as the panel says it (`engine-build-info`). `why` is the bridge's: `fastest` (ours),
/// `gpu` or `threads` (what ours lacks for this load), `faster`,
/// `lacks:jspi,memory64`, `large`, `firefox-gpu` or `forced`. `loaded` says whether a model
/// runs on it now or one would.
pub fn build_sentence(build: &str, why: &str, loaded: bool) -> String {
    let verb = if loaded { "Runs" } else { "Will run" };
    if build == "ours" {
        let reason = match why {
            "forced" => "chosen by hand (hjEngineBuild).",
            _ => {
                "the fastest here on the CPU: one evaluation of a photo took 1.8 to 2.4 \
                  times less time than with wllama's builds (docs/performance.md)."
            }
        };
        return format!(
            "{verb} our own build of llama.cpp (32-bit memory, threads where the page is \
             cross-origin isolated, built from the same source as wllama's): {reason}"
        );
    }
    let (name, what) = match build {
        "memory64" => ("Memory64", "JSPI and 64-bit memory"),
        _ => ("Memory32", "Asyncify and 32-bit memory"),
    };
    let reason = match why {
        "faster" => "the faster of the two on the CPU, measured (docs/performance.md).".to_string(),
        "gpu" => "our own, faster build has no GPU path, so wllama's runs.".to_string(),
        "not-built" => {
            "our own, faster build is not on this site yet (a first scripts/serve.sh \
                        adds it a few minutes after the page is up; scripts/build.sh waits for it)."
                .to_string()
        }
        "large" => format!(
            "these files are larger than the {} the Memory32 build can hold.",
            size_text(MEMORY32_MAX_BYTES)
        ),
        "firefox-gpu" => "its WebGPU path is the one that is fast in Firefox.".to_string(),
        "forced" => "chosen by hand (hjEngineBuild).".to_string(),
        w => match w.strip_prefix("lacks:") {
            Some(l) => {
                let l: Vec<String> = l
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                format!(
                    "this browser lacks {}, which the Memory64 build needs.",
                    feature_names(&l)
                )
            }
            None => format!("({w})."),
        },
    };
    format!("{verb} llama.cpp's {name} build ({what}): {reason}")
}

/// Whether the engine runs multi-threaded, and why not when it does not. `coep` is the
/// Cross-Origin-Embedder-Policy the page was served with ("" when none): WebKit (Safari) does
/// not support `credentialless`, so a page sent it is still not isolated there, and the
/// sentence says so rather than blame the server. Where the engine cannot run at all (`runs`
/// false) an isolated page promises no threads.
pub fn threads_sentence(
    runs: bool,
    isolated: bool,
    coep: &str,
    threads: Option<u32>,
    cores: u32,
) -> String {
    let coep = coep.trim().to_ascii_lowercase();
    match (isolated, threads) {
        (true, _) if !runs => {
            "Cross-origin isolated, but the engine cannot run in this browser (above).".into()
        }
        (_, Some(n)) if n > 1 => format!("Multi-threaded: {n} threads ({cores} cores)."),
        (true, Some(_)) => {
            format!(
                "Single-threaded, although the page is cross-origin isolated ({cores} cores): \
                 the build above runs one thread."
            )
        }
        (true, None) => match cores.clamp(1, 8) {
            1 => "Cross-origin isolated, but this device reports one core: the engine will use \
                  one thread."
                .into(),
            n => format!("Cross-origin isolated: the engine will use up to {n} threads."),
        },
        (false, _) if coep.starts_with("credentialless") => "Single-threaded: this server \
            sends COOP and COEP: credentialless, but this browser does not support \
            credentialless (Safari and other WebKit browsers do not), so the page is not \
            cross-origin isolated. For them the host must send COEP: require-corp instead, and \
            every model file Cross-Origin-Resource-Policy; COEP=require-corp scripts/serve.sh \
            does, for models on its own origin."
            .to_string(),
        (false, _) if !coep.is_empty() => format!(
            "Single-threaded: this server sends COEP: {coep}, but the page is not cross-origin \
             isolated (it also needs Cross-Origin-Opener-Policy: same-origin)."
        ),
        (false, _) => "Single-threaded: this page is not cross-origin isolated (its server does \
                       not send the COOP and COEP headers; scripts/serve.sh does, and where the \
                       host cannot, the site file's isolation_worker adds them)."
            .to_string(),
    }
}

/// A size in bytes as people read it.
pub fn size_text(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.2} GB", bytes / 1e9)
    } else if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else {
        format!("{:.0} KB", (bytes / 1e3).ceil())
    }
}

/// A small vision model suggested in the panel: its GGUF, its projector and their sizes.
pub struct Suggestion {
    pub label: &'static str,
    pub url: &'static str,
    pub projector: &'static str,
    /// Model plus projector, as published (approximate).
    pub size: &'static str,
}

pub const SUGGESTIONS: [Suggestion; 2] = [
    Suggestion {
        label: "SmolVLM-256M-Instruct Q8_0 (ggml-org)",
        url: "https://huggingface.co/ggml-org/SmolVLM-256M-Instruct-GGUF/resolve/main/SmolVLM-256M-Instruct-Q8_0.gguf",
        projector: "https://huggingface.co/ggml-org/SmolVLM-256M-Instruct-GGUF/resolve/main/mmproj-SmolVLM-256M-Instruct-Q8_0.gguf",
        size: "about 280 MB",
    },
    Suggestion {
        label: "SmolVLM-500M-Instruct Q8_0 (ggml-org)",
        url: "https://huggingface.co/ggml-org/SmolVLM-500M-Instruct-GGUF/resolve/main/SmolVLM-500M-Instruct-Q8_0.gguf",
        projector: "https://huggingface.co/ggml-org/SmolVLM-500M-Instruct-GGUF/resolve/main/mmproj-SmolVLM-500M-Instruct-Q8_0.gguf",
        size: "about 550 MB",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::{openai, read_chat, Backend, ChatParams, Message, Part, Protocol, Role};

    fn request(image: bool, params: ChatParams) -> String {
        let backend = Backend {
            base_url: BASE_URL.into(),
            model: "local".into(),
            ..Backend::default()
        };
        let mut parts = vec![Part::Text("Rate it.".into())];
        if image {
            parts.push(Part::Image(crate::providers::Image::new(
                "image/png",
                "iVBORw0KGgo=",
            )));
        }
        let messages = [Message {
            role: Role::User,
            parts,
        }];
        let req = openai::chat_request(&backend, &messages, params).unwrap();
        assert!(handles(&req.url), "{}", req.url);
        assert_eq!(route(&req.url), Route::Chat);
        req.body
    }

    #[test]
    fn only_the_sentinel_host_is_handled() {
        assert!(handles("http://in-browser.invalid/v1/chat/completions"));
        assert!(handles("HTTP://IN-BROWSER.INVALID/props"));
        assert!(!handles("http://in-browser.invalid.evil.com/v1"));
        assert!(!handles("http://127.0.0.1:8080/v1/chat/completions"));
        assert!(!handles(""));
        assert_eq!(route("http://in-browser.invalid/v1/models"), Route::Models);
        assert_eq!(route("http://in-browser.invalid/props?x=1"), Route::Props);
        assert_eq!(
            route("http://in-browser.invalid/v1/embeddings"),
            Route::Unknown
        );
    }

    #[test]
    fn the_apis_maximum_of_alternatives_is_widened_and_a_paper_setting_is_kept() {
        let wide = prepare_chat(&request(true, ChatParams::RATING), true).unwrap();
        let v: Value = serde_json::from_str(&wide).unwrap();
        assert_eq!(v["top_logprobs"], u64::from(ALTERNATIVES));
        assert_eq!(v["logprobs"], true);
        let five = ChatParams {
            top_logprobs: Some(5),
            ..ChatParams::RATING
        };
        let kept: Value =
            serde_json::from_str(&prepare_chat(&request(false, five), false).unwrap()).unwrap();
        assert_eq!(kept["top_logprobs"], 5);
    }

    #[test]
    fn an_image_without_a_projector_gets_llama_servers_no_vision_answer() {
        let (status, body) = prepare_chat(&request(true, ChatParams::RATING), false).unwrap_err();
        assert_eq!(status, 500);
        let e = read_chat(Protocol::OpenAi, status, None, &body).unwrap_err();
        assert!(matches!(e, JudgeError::NoVision { .. }), "{e:?}");
        assert!(e.to_string().contains("does not accept images"));
        assert!(prepare_chat(&request(false, ChatParams::RATING), false).is_ok());
        assert_eq!(prepare_chat("{", true).unwrap_err().0, 400);
    }

    #[test]
    fn models_and_props_read_like_llama_servers() {
        let models =
            crate::providers::read_models(Protocol::OpenAi, &models_body("m.gguf")).unwrap();
        assert_eq!(models[0].id, "m.gguf");
        let props = crate::providers::llama::read_props(&props_body("m.gguf", true)).unwrap();
        assert_eq!(props.model_name(), Some("m.gguf"));
        assert_eq!(props.vision, Some(true));
        let blind = crate::providers::llama::read_props(&props_body("m.gguf", false)).unwrap();
        assert_eq!(blind.vision, Some(false));
    }

    #[test]
    fn files_that_are_not_gguf_are_named() {
        assert_eq!(check_file("model", b"GGUF\x03\0\0\0", 1e8), None);
        let png = check_file("model", b"\x89PNG\r\n\x1a\n", 5000.0).unwrap();
        assert!(
            png.contains("not a GGUF model") && png.contains("an image"),
            "{png}"
        );
        let html = check_file("downloaded", b"<!DOCTYPE html>", 300.0).unwrap();
        assert!(html.contains("HTML"), "{html}");
        let empty = check_file("projector", b"", 0.0).unwrap();
        assert!(empty.contains("empty or cut short"), "{empty}");
        assert!(check_file("model", b"PK\x03\x04abcd", 100.0)
            .unwrap()
            .contains("ZIP"));
    }

    /// A GGUF header holding only `general.architecture`.
    fn gguf_of(arch: &str) -> Vec<u8> {
        let mut h = b"GGUF".to_vec();
        h.extend(3u32.to_le_bytes());
        h.extend(0u64.to_le_bytes());
        h.extend(1u64.to_le_bytes());
        for s in ["general.architecture", arch] {
            h.extend((s.len() as u64).to_le_bytes());
            h.extend(s.as_bytes());
            if s != arch {
                h.extend(8u32.to_le_bytes());
            }
        }
        h
    }

    #[test]
    fn a_projector_as_the_model_and_a_model_as_the_projector_are_refused_before_loading() {
        let (clip, llama) = (gguf_of("clip"), gguf_of("llama"));
        assert_eq!(check_file("model", &llama, 1e8), None);
        assert_eq!(check_file("projector", &clip, 1e8), None);
        assert_eq!(check_file("downloaded projector", &clip, 1e8), None);
        assert_eq!(check_file("downloaded", &clip, 1e8), None, "slot unknown");
        let swapped = check_file("model", &clip, 1.9e8).unwrap();
        assert!(
            swapped.starts_with("The model file is a vision projector (an mmproj file)")
                && swapped.contains("Give it as the projector"),
            "{swapped}"
        );
        let url = check_file("downloaded model", &clip, 1.9e8).unwrap();
        assert!(
            url.starts_with("The downloaded model file is a vision projector"),
            "{url}"
        );
        let other = check_file("projector", &llama, 9.8e7).unwrap();
        assert!(
            other.starts_with(
                "The projector file is a language model (llama), not a vision projector"
            ) && other.contains("mmproj-SmolVLM-256M-Instruct-Q8_0.gguf"),
            "{other}"
        );
    }

    /// llama.cpp's own lines (llama-server's log, tests/e2e/test_vision_model.py), as the bridge
    /// passes them on after its own words.
    #[test]
    fn files_that_do_not_belong_together_are_named_from_llama_cpps_lines() {
        let widths = load_failure(
            "llama.cpp refused the projector: mtmd_init_from_file: error: mismatch between text \
             model (n_embd = 576) and mmproj (n_embd = 960) | srv    load_model: failed to load \
             multimodal model, 'wide.gguf'",
        );
        assert_eq!(
            widths,
            "The projector was made for a text model 960 wide, and this model is 576 wide: they \
             do not belong together. Load the projector published with this model (for \
             SmolVLM-256M-Instruct: mmproj-SmolVLM-256M-Instruct-Q8_0.gguf), or the model it \
             was made for (llama.cpp said: mismatch between text model (n_embd = 576) and \
             mmproj (n_embd = 960))."
        );
        let as_model = load_failure(
            "llama.cpp refused the file: llama_model_load: error loading model: CLIP cannot be \
             used as main model, use it with --mmproj instead | llama_model_load_from_file_impl: \
             failed to load model",
        );
        assert!(
            as_model.starts_with("The model file is a vision projector"),
            "{as_model}"
        );
        let as_projector = load_failure(
            "llama.cpp refused the projector: mtmd_init_from_file: error: Failed to load CLIP \
             model from /models/SmolLM2-135M-Instruct.Q4_1.gguf",
        );
        assert!(
            as_projector
                .starts_with("The projector file is not a vision projector llama.cpp can read"),
            "{as_projector}"
        );
        // llama-server's answer to an image, in the page as natively.
        let e = chat_failure("Invalid token");
        assert!(
            matches!(e, JudgeError::ImageTokens { status: 400, .. }),
            "{e:?}"
        );
        assert!(e
            .to_string()
            .contains("<fake_token_around_image> and <global-img>"));
    }

    #[test]
    fn engine_failures_become_sentences() {
        assert_eq!(load_failure("refused:No."), "No.");
        assert!(load_failure("worker-failed:error")
            .starts_with("The engine's worker could not start (error)"));
        assert!(
            load_failure("RangeError: Array buffer allocation failed").contains("out of memory")
        );
        // Chromium refusing the engine's memory, as a browser low on memory does (measured with
        // --js-flags=--wasm-max-mem-pages=1600 in test_in_browser.py).
        let refused = load_failure("WebAssembly.Memory(): could not allocate memory");
        assert!(
            refused.contains("ran out of memory") && !refused.contains("damaged"),
            "{refused}"
        );
        // llama.cpp's own lines when the weights fit but its cache does not (measured with 2500
        // pages), and a refusal that does not name memory.
        let kv = load_failure(
            "llama.cpp refused the file: ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate \
             buffer of size 94371840 | llama_init_from_model: failed to initialize the context: failed \
             to allocate buffer for kv cache",
        );
        assert!(kv.contains("ran out of memory"), "{kv}");
        let other =
            load_failure("llama.cpp refused the file: common_init_: failed to create context");
        assert!(other.contains("damaged or cut short"), "{other}");
        assert!(load_failure("unsupported:workers").contains("lacks Web Workers"));
        let large = load_failure("too-large:3100000000");
        assert!(
            large.contains("(3.10 GB)") && large.contains("2.50 GB") && large.contains("Memory64"),
            "{large}"
        );
        let broken = load_failure("llama_model_load: tensor data is not within the file bounds");
        assert!(
            broken.contains("damaged or cut short") && broken.contains("file bounds"),
            "{broken}"
        );
        assert_eq!(chat_failure("abort"), JudgeError::Cancelled);
        assert!(chat_failure("not-loaded")
            .to_string()
            .contains("No model is loaded"));
        assert!(matches!(
            chat_failure("boom"),
            JudgeError::BadResponse { .. }
        ));
        // The GPU failed while answering: the sentence says what the engine said and what
        // happened next, never "the server's answer could not be read".
        assert_eq!(
            chat_failure("gpu-failed:ggml_webgpu: Queue wait timed out after 30000 ms").to_string(),
            "The GPU failed while answering (ggml_webgpu: Queue wait timed out after 30000 ms). \
             The in-page judge started again on the CPU by itself, with the same model: press \
             Evaluate again to ask there."
        );
        let dead = chat_failure("gpu-failed-dead:(ABORT) | out of memory").to_string();
        assert!(
            dead.contains("((ABORT))") && dead.contains("(out of memory): load the model again"),
            "{dead}"
        );
    }

    #[test]
    fn unsupported_browsers_are_told_what_they_lack() {
        assert_eq!(unsupported(&[]), None);
        let s = unsupported(&["webassembly".into(), "workers".into()]).unwrap();
        assert!(
            s.contains("lacks WebAssembly and Web Workers") && s.contains("Nothing is downloaded"),
            "{s}"
        );
        assert!(s.contains("Safari has what it needs"), "{s}");
    }

    #[test]
    fn the_build_sentence_names_the_build_and_its_reason() {
        let fast = build_sentence("memory32", "faster", true);
        assert!(
            fast.starts_with(
                "Runs llama.cpp's Memory32 build (Asyncify and 32-bit memory): the faster"
            ),
            "{fast}"
        );
        let safari = build_sentence("memory32", "lacks:jspi,memory64", false);
        assert!(
            safari.starts_with("Will run llama.cpp's Memory32 build"),
            "{safari}"
        );
        assert!(safari.contains("lacks WebAssembly JavaScript Promise Integration (JSPI) and WebAssembly Memory64, which the Memory64 build needs"), "{safari}");
        let large = build_sentence("memory64", "large", true);
        assert!(
            large.starts_with("Runs llama.cpp's Memory64 build (JSPI and 64-bit memory)")
                && large.contains("2.50 GB"),
            "{large}"
        );
        assert!(build_sentence("memory64", "firefox-gpu", true).contains("WebGPU path"));
        assert!(build_sentence("memory32", "forced", true).contains("by hand"));
        assert!(build_sentence("memory32", "odd", true).ends_with("(odd)."));
        let ours = build_sentence("ours", "fastest", false);
        assert!(
            ours.starts_with("Will run our own build of llama.cpp (32-bit memory, threads where")
                && ours.contains("1.8 to 2.4 times less time than with wllama's builds"),
            "{ours}"
        );
        assert!(build_sentence("ours", "forced", true).starts_with("Runs our own build"));
        for (why, says) in [
            ("gpu", "no GPU path"),
            ("not-built", "not on this site yet"),
        ] {
            let s = build_sentence("memory32", why, true);
            assert!(
                s.starts_with("Runs llama.cpp's Memory32 build") && s.contains(says),
                "{s}"
            );
        }
    }

    #[test]
    fn the_isolation_sentence_is_true_in_each_browser() {
        // No headers at all: the server is to blame.
        let none = threads_sentence(true, false, "", Some(1), 8);
        assert!(none.contains("does not send the COOP and COEP"), "{none}");
        // WebKit, sent credentialless: the browser is, and Safari's way out is named.
        let webkit = threads_sentence(true, false, "credentialless", None, 8);
        assert!(!webkit.contains("does not send"), "{webkit}");
        assert!(
            webkit.contains("does not support credentialless")
                && webkit.contains("require-corp")
                && webkit.contains("Cross-Origin-Resource-Policy")
                && webkit.contains("scripts/serve.sh"),
            "{webkit}"
        );
        let half = threads_sentence(true, false, "require-corp", None, 8);
        assert!(half.contains("Cross-Origin-Opener-Policy"), "{half}");
        assert!(threads_sentence(true, true, "credentialless", None, 8).contains("up to 8 threads"));
        // One core (or a browser that says one): no "up to 1 threads".
        let one = threads_sentence(true, true, "credentialless", None, 1);
        assert!(
            one.contains("one core") && one.contains("one thread.") && !one.contains("up to"),
            "{one}"
        );
        // A browser without Web Workers may be isolated, but no thread will run anything there.
        let firefox = threads_sentence(false, true, "", None, 2);
        assert!(
            firefox.contains("cannot run") && !firefox.contains("will use"),
            "{firefox}"
        );
        // Where it cannot run, the isolation sentence stays true.
        assert!(threads_sentence(false, false, "credentialless", None, 8)
            .contains("does not support credentialless"));
    }

    #[test]
    fn threads_and_sizes_read_well() {
        assert!(threads_sentence(true, false, "", Some(1), 8).contains("not cross-origin isolated"));
        assert!(
            threads_sentence(true, true, "", Some(4), 8).starts_with("Multi-threaded: 4 threads")
        );
        assert!(
            threads_sentence(true, true, "", Some(1), 8).starts_with("Single-threaded, although")
        );
        assert!(threads_sentence(true, true, "", None, 8).contains("up to 8 threads"));
        assert_eq!(size_text(98_362_432.0), "98.4 MB");
        assert_eq!(size_text(1_951_680.0), "2.0 MB");
        assert_eq!(size_text(2.5e9), "2.50 GB");
        assert_eq!(size_text(10.0), "1 KB");
    }
}
