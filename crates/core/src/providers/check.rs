//! "Check connection": what the app observed about a backend, turned into plain sentences that
//! tell apart a bad key, an unknown model, a model without image input, an endpoint without
//! logprobs, a CORS refusal and a server that is not running. The observing is wasm-only
//! (`ui::connection`); the judging is here and tested natively.

use super::chat::{ChatParams, Image, Message, Part};
use super::llama::LlamaProps;
use super::{chat_request, Backend, HttpRequest, ModelInfo, Preset};
use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;

/// An 8×8 red PNG (base64): enough for the probe to find out whether the model takes images.
pub const PROBE_IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX/AAD///9BHTQRAAAADklEQVQI12P4z8BQDwAEgAF/QualzQAAAABJRU5ErkJggg==";

/// A one-token rating-style request with an image and logprobs: the cheapest request that
/// exercises everything an evaluation needs.
pub fn probe_request(backend: &Backend) -> Result<HttpRequest, JudgeError> {
    let message = Message::user(vec![
        Part::Text("Rate from 1 to 5 how red this image is. Answer with one digit.".into()),
        Part::Image(Image::new("image/png", PROBE_IMAGE)),
    ]);
    let params = ChatParams {
        top_p: None,
        seed: None,
        scoring: false,
        temperature: Some(0.0),
        top_logprobs: Some(5),
        max_tokens: 1,
    };
    chat_request(backend, &[message], params)
}

/// How the model list request went.
#[derive(Clone, Debug, PartialEq)]
pub enum Reach {
    /// The server answered (with any status).
    Answered,
    /// The browser refused the answer, but the server is up: missing CORS headers.
    CorsRefused,
    /// Nothing answered at all.
    Down,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Observations {
    pub reach: Reach,
    /// `None` when the listing was not attempted or not offered (404).
    pub models: Option<Result<Vec<ModelInfo>, JudgeError>>,
    pub llama: Option<LlamaProps>,
    pub probe: Option<Result<Completion, JudgeError>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub ok: bool,
    pub text: String,
}

fn good(text: impl Into<String>) -> Finding {
    Finding {
        ok: true,
        text: text.into(),
    }
}

fn bad(text: impl Into<String>) -> Finding {
    Finding {
        ok: false,
        text: text.into(),
    }
}

/// The findings, in the order a person would fix them.
pub fn report(preset: &Preset, backend: &Backend, obs: &Observations) -> Vec<Finding> {
    let url = backend.base_url.trim();
    match obs.reach {
        Reach::Down => {
            return vec![bad(format!(
                "Nothing answers at {url}: the server is not running, the address or port is \
                 wrong, or the network is down."
            ))]
        }
        Reach::CorsRefused => {
            return vec![bad(format!(
                "The server at {url} is running but does not allow requests from this page \
                 (CORS). {}",
                preset.cors_fix
            ))]
        }
        Reach::Answered => {}
    }
    // A redirect is not an answer: the server named another address, where nothing was sent.
    let models_error = obs.models.as_ref().and_then(|r| r.as_ref().err());
    let probe_error = obs.probe.as_ref().and_then(|r| r.as_ref().err());
    let redirect = |e: Option<&JudgeError>| matches!(e, Some(JudgeError::Redirect { .. }));
    if redirect(models_error) || redirect(probe_error) {
        let e = if redirect(models_error) {
            models_error
        } else {
            probe_error
        };
        return vec![bad(e.map(JudgeError::to_string).unwrap_or_default())];
    }
    let mut out = vec![good(format!("The server at {url} answers."))];
    let model = backend.model.trim();
    match &obs.models {
        Some(Ok(models)) => list_findings(&mut out, models, model, obs),
        Some(Err(JudgeError::KeyRejected { .. })) => {
            out.push(bad(
                "The API key was rejected. Check that it is this provider's key and still active.",
            ));
            return out;
        }
        Some(Err(e)) => out.push(bad(format!("The model list could not be read: {e}"))),
        None => {}
    }
    if let Some(props) = &obs.llama {
        let name = props.model_name().unwrap_or("an unnamed model");
        out.push(good(format!("llama-server has loaded {name}.")));
        if props.vision == Some(false) {
            out.push(bad(
                "llama-server was started without a vision projector: restart it with \
                 --mmproj <file> (or -hf with a repository that includes one).",
            ));
        }
    }
    match &obs.probe {
        Some(Ok(c)) => probe_findings(&mut out, c, backend),
        Some(Err(e)) => out.push(bad(match e {
            JudgeError::Http { status: 404, .. } => {
                format!("The model \u{201c}{model}\u{201d} was not found (HTTP 404). {e}")
            }
            other => other.to_string(),
        })),
        None => {}
    }
    out
}

/// What the model list says: how many, and whether the chosen model is listed and takes images.
fn list_findings(out: &mut Vec<Finding>, models: &[ModelInfo], model: &str, obs: &Observations) {
    // Aliases: `claude-sonnet-4-5` answers as `claude-sonnet-4-5-20250929`.
    let listed = models.iter().find(|m| m.id == model).or_else(|| {
        models
            .iter()
            .find(|m| m.id.starts_with(&format!("{model}-")))
    });
    let probe_worked = matches!(obs.probe, Some(Ok(_)));
    let names: Vec<&str> = models.iter().take(8).map(|m| m.id.as_str()).collect();
    let more = models.len().saturating_sub(names.len());
    let sample = if more > 0 {
        format!("{} and {more} more", names.join(", "))
    } else {
        names.join(", ")
    };
    out.push(good(format!("{} model(s) listed: {sample}.", models.len())));
    if listed.is_none() && !probe_worked && obs.llama.is_none() && !models.is_empty() {
        out.push(bad(format!(
            "The model \u{201c}{model}\u{201d} is not in the list; pick one of the listed \
                 names."
        )));
    }
    if listed.and_then(|m| m.vision) == Some(false) {
        out.push(bad(format!(
            "The list says \u{201c}{model}\u{201d} does not take images."
        )));
    }
}

/// What the test request's answer says about token probabilities.
fn probe_findings(out: &mut Vec<Finding>, c: &Completion, backend: &Backend) {
    out.push(good(format!(
        "A test request with an image succeeded{}.",
        c.model
            .as_deref()
            .map(|m| format!(" (model {m})"))
            .unwrap_or_default()
    )));
    match (&c.steps, backend.protocol.has_logprobs()) {
        (Some(steps), true) if steps.iter().any(|s| !s.top.is_empty()) => out.push(good(
            "Token probabilities (logprobs) are returned: scores will be smoothed.",
        )),
        (_, true) => out.push(bad(
            "The answer carried no token probabilities (logprobs): this model or server \
                 cannot give smoothed scores. Choose a model that returns logprobs.",
        )),
        (_, false) => out.push(good(
            "This provider has no token probabilities: scores will be the printed \
                 ratings, marked unsmoothed.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::completion::TokenStep;
    use crate::providers::{preset, Protocol};

    fn backend(protocol: Protocol) -> Backend {
        Backend {
            protocol,
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: "m".into(),
            ..Backend::default()
        }
    }

    fn obs(probe: Result<Completion, JudgeError>) -> Observations {
        Observations {
            reach: Reach::Answered,
            models: Some(Ok(vec![ModelInfo {
                id: "m".into(),
                vision: None,
            }])),
            llama: None,
            probe: Some(probe),
        }
    }

    fn completion(with_logprobs: bool) -> Completion {
        Completion {
            text: "5".into(),
            steps: with_logprobs.then(|| {
                vec![TokenStep {
                    token: "5".into(),
                    logprob: -0.1,
                    top: vec![("5".into(), -0.1)],
                }]
            }),
            usage: None,
            model: Some("m".into()),
            truncated: false,
        }
    }

    fn all_ok(f: &[Finding]) -> bool {
        f.iter().all(|x| x.ok)
    }

    #[test]
    fn down_and_cors_are_told_apart_with_the_servers_fix() {
        let mut o = obs(Ok(completion(true)));
        o.reach = Reach::Down;
        let f = report(preset("ollama"), &backend(Protocol::OpenAi), &o);
        assert!(f[0].text.contains("not running") && !f[0].ok);
        o.reach = Reach::CorsRefused;
        let f = report(preset("ollama"), &backend(Protocol::OpenAi), &o);
        assert!(f[0].text.contains("CORS") && f[0].text.contains("OLLAMA_ORIGINS"));
    }

    #[test]
    fn a_redirect_is_named_and_the_server_is_not_said_to_answer() {
        let redirect = JudgeError::Redirect {
            url: "http://127.0.0.1:8080/v1/models".into(),
        };
        let mut o = obs(Ok(completion(true)));
        o.models = Some(Err(redirect.clone()));
        for o in [o, obs(Err(redirect))] {
            let f = report(preset("gemini"), &backend(Protocol::Gemini), &o);
            assert_eq!(f.len(), 1, "{f:?}");
            assert!(!f[0].ok);
            assert!(f[0].text.contains("redirect") && f[0].text.contains("final URL"));
            assert!(!f[0].text.contains("answers."));
        }
    }

    #[test]
    fn a_healthy_backend_is_all_green() {
        let f = report(
            preset("openai"),
            &backend(Protocol::OpenAi),
            &obs(Ok(completion(true))),
        );
        assert!(all_ok(&f), "{f:?}");
        assert!(f.iter().any(|x| x.text.contains("smoothed")));
    }

    #[test]
    fn missing_logprobs_unknown_model_no_vision_and_bad_key() {
        let f = report(
            preset("openai"),
            &backend(Protocol::OpenAi),
            &obs(Ok(completion(false))),
        );
        assert!(f
            .iter()
            .any(|x| !x.ok && x.text.contains("no token probabilities")));
        // Anthropic never has them, and that is not a fault.
        let f = report(
            preset("anthropic"),
            &backend(Protocol::Anthropic),
            &obs(Ok(completion(false))),
        );
        assert!(all_ok(&f), "{f:?}");

        let mut o = obs(Err(JudgeError::Http {
            status: 404,
            message: Some("model x not found".into()),
            retry_after: None,
        }));
        o.models = Some(Ok(vec![ModelInfo {
            id: "other".into(),
            vision: None,
        }]));
        let f = report(preset("openai"), &backend(Protocol::OpenAi), &o);
        assert!(f
            .iter()
            .any(|x| !x.ok && x.text.contains("not in the list")));
        assert!(f.iter().any(|x| !x.ok && x.text.contains("was not found")));

        let f = report(
            preset("openai"),
            &backend(Protocol::OpenAi),
            &obs(Err(JudgeError::NoVision {
                status: 400,
                message: None,
            })),
        );
        assert!(f
            .iter()
            .any(|x| !x.ok && x.text.contains("does not accept images")));

        let mut o = obs(Ok(completion(true)));
        o.models = Some(Err(JudgeError::KeyRejected {
            status: 401,
            message: None,
        }));
        let f = report(preset("openai"), &backend(Protocol::OpenAi), &o);
        assert!(f.last().unwrap().text.contains("API key was rejected"));
    }

    #[test]
    fn an_alias_or_a_working_model_missing_from_the_list_is_not_a_fault() {
        let mut o = obs(Ok(completion(true)));
        o.models = Some(Ok(vec![ModelInfo {
            id: "m-20250929".into(),
            vision: Some(false),
        }]));
        let f = report(preset("openai"), &backend(Protocol::OpenAi), &o);
        // Matched as an alias, so its listed lack of vision is reported.
        assert!(f
            .iter()
            .any(|x| !x.ok && x.text.contains("does not take images")));
        o.models = Some(Ok(vec![ModelInfo {
            id: "other".into(),
            vision: None,
        }]));
        let f = report(preset("openai"), &backend(Protocol::OpenAi), &o);
        assert!(all_ok(&f), "{f:?}");
    }

    #[test]
    fn llama_server_without_projector_is_named() {
        let mut o = obs(Ok(completion(true)));
        o.llama = Some(LlamaProps {
            model_path: Some("/m/qwen.gguf".into()),
            vision: Some(false),
            ..LlamaProps::default()
        });
        let f = report(preset("llama_server"), &backend(Protocol::OpenAi), &o);
        assert!(f.iter().any(|x| x.ok && x.text.contains("qwen.gguf")));
        assert!(f.iter().any(|x| !x.ok && x.text.contains("--mmproj")));
    }

    #[test]
    fn probe_is_one_token_with_an_image_and_logprobs() {
        let req = probe_request(&backend(Protocol::OpenAi)).unwrap();
        let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(body["max_tokens"], 1);
        assert_eq!(body["logprobs"], true);
        assert!(req.body.contains("data:image/png;base64,"));
    }
}
