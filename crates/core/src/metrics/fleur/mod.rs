//! FLEUR and RefFLEUR (Lee et al., ACL 2024): the judge prints a score from 0.0 to 1.0 for a
//! caption (RefFLEUR also sees reference captions), and the score is smoothed from the digit
//! tokens' probabilities (`smoothing`). The explanation is a follow-up turn.

pub mod candidate;
mod export;
pub mod prompts;
pub mod reopen;
pub mod room;
pub mod smoothing;

/// FLEUR's and RefFLEUR's room types, under the names the registry gives them
/// (`metrics::Metric`'s variants).
pub type Fleur = room::Room<false>;
pub type RefFleur = room::Room<true>;
/// Its candidates' shared input (`metrics::room::Candidate`, in `candidate.rs`).
pub type CandidateInput = Input;

pub use export::{export_json, fidelity_of, ExportInput};
pub use smoothing::{Place, PlaceDistribution, Scheme, Smoothed};

use super::fidelity::ExtensionInfo;
use super::Metric;
use super::MetricInfo;
use crate::answers::completion::{Completion, Usage};
use crate::answers::doubt::{self, Doubt};
use crate::answers::errors::JudgeError;
use crate::inputs::text_checks::too_long;
use crate::providers::{
    chat_request, Backend, ChatParams, HttpRequest, Image, ImageDetail, Message, Part, Protocol,
};
use crate::transport::cost::{image_tokens, text_tokens};

const PAPER: &str = "Lee et al., FLEUR: An Explainable Reference-Free Evaluation Metric for \
                     Image Captioning Using a Large Multimodal Model (ACL 2024)";

/// Our reading for FLEUR and RefFLEUR: a multi-digit token (GPT-4o's `85`) read as the
/// decimal it prints. Never switched by hand: it applies only where the tokenizer leaves no
/// per-digit step, and the result then names it.
pub const EXTENSION: ExtensionInfo = ExtensionInfo {
    id: "fleur-multi-digit",
    label: "Multi-digit tokens read as decimals",
    reason: "Ours: GPT-4o prints 0.85 as \u{201c}0\u{201d}, \u{201c}.\u{201d}, \
             \u{201c}85\u{201d}, so no step prints one digit; each alternative is read as \
             the decimal it prints. Applied only where the tokenizer needs it.",
    metrics: &[Metric::Fleur, Metric::RefFleur],
    fixed: Some("The result names it (scheme multi_digit)."),
};

pub const FLEUR_INFO: MetricInfo = MetricInfo {
    id: "fleur",
    name: "FLEUR",
    paper: PAPER,
    range: "0–1",
    max_tokens: SCORE_PARAMS.max_tokens,
    local_max_tokens: 64,
    text_key: "caption",
};

pub const REF_FLEUR_INFO: MetricInfo = MetricInfo {
    id: "ref_fleur",
    name: "RefFLEUR",
    paper: PAPER,
    range: "0–1",
    max_tokens: SCORE_PARAMS.max_tokens,
    local_max_tokens: 64,
    text_key: "caption",
};

/// Greedy, with the 20 alternatives per step that cover the ten digits; `0.85` plus a stray
/// space or newline fits in a few tokens.
pub const SCORE_PARAMS: ChatParams = ChatParams {
    top_p: None,
    seed: None,
    scoring: true,
    temperature: Some(0.0),
    top_logprobs: Some(20),
    max_tokens: 16,
};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Input {
    pub caption: String,
    /// `Some` for RefFLEUR: the reference captions, one per entry.
    pub references: Option<Vec<String>>,
    pub image: Option<Image>,
}

impl Input {
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.image.is_none() {
            out.push("Add an image: drop it, paste it or choose a file.".to_string());
        }
        if self.caption.trim().is_empty() {
            out.push("Enter the caption to judge.".to_string());
        }
        if self
            .references
            .as_ref()
            .is_some_and(|r| r.iter().all(|l| l.trim().is_empty()))
        {
            out.push("RefFLEUR needs at least one reference caption (one per line).".to_string());
        }
        out.extend(too_long("caption", &self.caption));
        let refs = self.references.as_deref().unwrap_or_default().join("\n");
        out.extend(too_long("list of references", &refs));
        out
    }
}

/// Reference captions from a text box: one per non-empty line.
pub fn references_from_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The scoring turn: the image first, then the prompt, as the authors' LLaVA code orders them.
fn score_message(input: &Input) -> Message {
    let mut parts = Vec::new();
    if let Some(url) = &input.image {
        parts.push(Part::Image(url.clone()));
    }
    parts.push(Part::Text(prompts::prompt(
        &input.caption,
        input.references.as_deref(),
    )));
    Message::user(parts)
}

pub fn score_request(backend: &Backend, input: &Input) -> Result<HttpRequest, JudgeError> {
    chat_request(backend, &[score_message(input)], SCORE_PARAMS)
}

/// The explanation request: the smoothed score as the assistant's answer (the authors write
/// `str(score)`, its full decimal form), then "Why? Tell me the reason.".
pub fn explain_request(
    backend: &Backend,
    input: &Input,
    score: f64,
) -> Result<HttpRequest, JudgeError> {
    let messages = [
        score_message(input),
        Message::assistant(format!("{score}")),
        Message::user(vec![Part::Text(prompts::EXPLAIN_TURN.to_string())]),
    ];
    chat_request(backend, &messages, ChatParams::EXPLAIN)
}

/// Estimated input tokens of the scoring request (prompt plus image by the provider's rules)
/// and its output cap.
pub fn estimated_tokens(
    input: &Input,
    image_size: Option<(u32, u32)>,
    protocol: Protocol,
    detail: ImageDetail,
) -> (u64, u64) {
    let prompt = prompts::prompt(&input.caption, input.references.as_deref());
    let image = image_size.map_or(0, |(w, h)| image_tokens(protocol, detail, w, h));
    (
        text_tokens(&prompt) + 10 + image,
        u64::from(SCORE_PARAMS.max_tokens),
    )
}

/// A scored caption.
#[derive(Clone, Debug, PartialEq)]
pub struct FleurResult {
    pub smoothed: Smoothed,
    /// What the model wrote.
    pub answer: String,
    pub usage: Option<Usage>,
    /// Why the score may not mean what it says (empty when nothing is in doubt).
    pub doubts: Vec<Doubt>,
}

impl Smoothed {
    /// The probability on digit tokens at the deciding step (the units step of `1.0`, else the
    /// tenths step): FLEUR does not renormalise, so mass elsewhere pulls the score towards 0.
    pub fn digit_mass(&self) -> Option<f64> {
        let first = self.places.first()?;
        Some(if first.readings.is_empty() {
            first.digits.iter().sum()
        } else {
            first.readings.iter().map(|r| r.2).sum()
        })
    }
}

/// Reads the scoring completion. FLEUR needs token probabilities: without them there is only
/// the raw score, which the paper shows is a much weaker metric, so it is an error here.
pub fn interpret(completion: &Completion) -> Result<FleurResult, JudgeError> {
    let steps = completion.steps.as_deref().ok_or(JudgeError::NoLogprobs)?;
    let smoothed = smoothing::smooth(steps, &completion.text, completion.truncated)?;
    let last = smoothed.places.iter().map(|p| p.step).max().unwrap_or(0);
    let doubts = doubt::assess(
        completion.truncated,
        doubt::near_end_of_steps(steps, last),
        smoothed.digit_mass(),
        smoothed.after_echo,
    );
    Ok(FleurResult {
        smoothed,
        answer: completion.text.clone(),
        usage: completion.usage,
        doubts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::completion::parse_chat_completion;

    fn input(refs: Option<Vec<String>>) -> Input {
        Input {
            caption: "A dog runs.".into(),
            references: refs,
            image: Some(crate::providers::Image::new("image/jpeg", "/9j/")),
        }
    }

    fn backend() -> Backend {
        Backend {
            base_url: "http://h/v1".into(),
            model: "m".into(),
            ..Backend::default()
        }
    }

    #[test]
    fn request_has_image_first_and_asks_for_logprobs() {
        let req = score_request(&backend(), &input(None)).unwrap();
        let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
        let content = &body["messages"][0]["content"];
        assert_eq!(content[0]["type"], "image_url");
        assert!(content[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("Your task is to evaluate and rate the caption"));
        assert_eq!(body["top_logprobs"], 20);
        assert_eq!(body["max_tokens"], 16);
    }

    #[test]
    fn ref_fleur_needs_references() {
        assert!(input(Some(vec![])).problems()[0].contains("reference caption"));
        assert!(input(Some(vec!["A dog.".into()])).problems().is_empty());
        assert_eq!(references_from_lines(" a \n\n b\n"), vec!["a", "b"]);
    }

    #[test]
    fn estimate_is_one_prompt_and_one_image() {
        let i = input(None);
        let (none, out) = estimated_tokens(&i, None, Protocol::OpenAi, ImageDetail::Auto);
        let (low, _) = estimated_tokens(&i, Some((1024, 768)), Protocol::OpenAi, ImageDetail::Low);
        assert_eq!(low - none, 85);
        assert_eq!(out, 16);
    }

    #[test]
    fn explain_puts_the_smoothed_score_back() {
        let req = explain_request(&backend(), &input(None), 0.806172).unwrap();
        let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
        assert_eq!(body["messages"][1]["content"], "0.806172");
        assert_eq!(body["messages"][2]["content"], "Why? Tell me the reason.");
    }

    #[test]
    fn interpret_reads_an_openai_completion() {
        let body = r#"{"choices":[{"message":{"content":"0.7"},"logprobs":{"content":[
            {"token":"0","logprob":0.0,"top_logprobs":[{"token":"0","logprob":0.0}]},
            {"token":".","logprob":0.0,"top_logprobs":[{"token":".","logprob":0.0}]},
            {"token":"7","logprob":-0.5108256237659907,"top_logprobs":[
              {"token":"7","logprob":-0.5108256237659907},{"token":"8","logprob":-0.916290731874155}]}]}}]}"#;
        let r = interpret(&parse_chat_completion(body).unwrap()).unwrap();
        assert!((r.smoothed.score - 0.1 * (7.0 * 0.6 + 8.0 * 0.4)).abs() < 1e-12);
        let no_lp = r#"{"choices":[{"message":{"content":"0.7"}}]}"#;
        assert_eq!(
            interpret(&parse_chat_completion(no_lp).unwrap()),
            Err(JudgeError::NoLogprobs)
        );
    }
}
