//! G-VEval (Tong, He, Shao and Yeung, 2024): GPT-4o reasons about a caption of an image or a video and ends
//! with "The final score is $<0..100>$"; the score is the expected value of the integer token
//! after that `$` (`extract`). For video, three frames go in one labelled 1536×512 image, and
//! the ACCR variant asks for four scores (accuracy, completeness, conciseness, relevance).

pub mod candidate;
mod export;
pub mod extract;
pub mod prompts;
pub mod reopen;
pub mod room;

/// Its room type, under the name the registry gives it (`metrics::Metric`'s variant).
pub use room::Room as GVeval;
/// Its candidates' shared input (`metrics::room::Candidate`, in `candidate.rs`).
pub type CandidateInput = Input;

pub use export::{export_json, ExportInput};
pub use extract::{Method, Reading, ACCR};
pub use prompts::{Medium, Mode};

use super::fidelity::ExtensionInfo;
use super::fidelity::{Extension, Fidelity};
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

/// Our extension of G-VEval (off by default): 20 alternatives per token instead of the
/// authors' 5.
pub const EXTENSION: ExtensionInfo = ExtensionInfo {
    id: "gveval-top20",
    label: "20 alternatives per token",
    reason: "Ours: top_logprobs 20 instead of the authors' 5, so the expectation sees more \
             of the mass; scores shift from the published metric.",
    metrics: &[Metric::GVeval],
    fixed: None,
};

pub const INFO: MetricInfo = MetricInfo {
    id: "g_veval",
    name: "G-VEval",
    paper: "Tong, He, Shao and Yeung, G-VEval: A Versatile Metric for Evaluating Image and \
            Video Captions Using GPT-4o (2024)",
    range: "0–100",
    max_tokens: PARAMS.max_tokens,
    local_max_tokens: 1024,
    text_key: "caption",
};

/// The authors' code (`ztangaj/gveval`): temperature 1 and `top_logprobs: 5`. The paper states
/// neither. The output cap is our choice: the reasoning comes first, so the answer needs room.
pub const PARAMS: ChatParams = ChatParams {
    top_p: None,
    seed: None,
    scoring: true,
    temperature: Some(1.0),
    top_logprobs: Some(5),
    max_tokens: 1024,
};

/// The request settings for a fidelity: the authors' [`PARAMS`], or with
/// [`Extension::GvevalTop20`] the 20 alternatives the API allows at most (ours: the
/// renormalisation over integers then sees more of the mass, which shifts the scores).
pub fn params(fidelity: &Fidelity) -> ChatParams {
    ChatParams {
        top_logprobs: Some(if fidelity.has(Extension::GvevalTop20) {
            20
        } else {
            5
        }),
        ..PARAMS
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub medium: Medium,
    pub mode: Mode,
    /// ACCR's four scores (video only).
    pub accr: bool,
    pub caption: String,
    pub references: Vec<String>,
    /// The image, or the video's three-frame composite.
    pub image: Option<Image>,
    /// Paper (default) or our extensions.
    pub fidelity: Fidelity,
}

impl Input {
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.mode.needs_image() && self.image.is_none() {
            out.push(match self.medium {
                Medium::Video => "Add the video: drop it or choose a file.".to_string(),
                Medium::Image => "Add an image or a video: drop it or choose a file.".to_string(),
            });
        }
        if self.caption.trim().is_empty() {
            out.push("Enter the caption to judge.".to_string());
        }
        if self.mode.needs_references() && self.references.is_empty() {
            out.push("This mode needs reference captions (one per line).".to_string());
        }
        if self.accr && self.medium != Medium::Video {
            out.push("ACCR scores videos: drop a video, or untick ACCR.".to_string());
        }
        out.extend(too_long("caption", &self.caption));
        out.extend(too_long("list of references", &self.references.join("\n")));
        out
    }

    fn prompt(&self) -> String {
        let accr = self.accr && self.medium == Medium::Video;
        let template = prompts::template(self.medium, self.mode, accr)
            .expect("every medium and mode has a template; ACCR only with video");
        prompts::fill(template, &self.caption, &self.references)
    }
}

/// The request. Reference-only sends no image and puts the prompt in a system message: what
/// the authors' scorer does when it is given no image. Their evaluation harness passes an
/// image in every mode, and the scorer then sends any prompt, reference-only included, as a
/// user turn with the image; sending none is our choice, since that mode's prompt never shows
/// the judge an image. The other modes send one user turn, text then image. When the user left
/// the image detail on `auto`, the authors' code's setting applies: `low` for images, `high`
/// for the video composite.
pub fn request(backend: &Backend, input: &Input) -> Result<HttpRequest, JudgeError> {
    let prompt = input.prompt();
    let message = match (&input.image, input.mode.needs_image()) {
        (Some(url), true) => Message::user(vec![Part::Text(prompt), Part::Image(url.clone())]),
        _ => Message::system(prompt),
    };
    let mut backend = backend.clone();
    if backend.image_detail == ImageDetail::Auto {
        backend.image_detail = match input.medium {
            Medium::Image => ImageDetail::Low,
            Medium::Video => ImageDetail::High,
        };
    }
    chat_request(&backend, &[message], params(&input.fidelity))
}

/// A scored caption.
#[derive(Clone, Debug, PartialEq)]
pub struct GvevalResult {
    /// The score: the final score, or for ACCR the mean of the four.
    pub score: f64,
    /// Non-ACCR: how the final score was read.
    pub final_reading: Option<Reading>,
    /// ACCR: accuracy, completeness, conciseness, relevance.
    pub accr: Option<[Reading; 4]>,
    /// The model's reasoning (the whole answer).
    pub reasoning: String,
    pub usage: Option<Usage>,
    /// Why the score may not mean what it says (empty when nothing is in doubt).
    pub doubts: Vec<Doubt>,
}

impl GvevalResult {
    /// The least faithful way any part of the score was read (what the UI reports).
    pub fn method(&self) -> Method {
        let readings: Vec<&Reading> = match (&self.final_reading, &self.accr) {
            (Some(r), _) => vec![r],
            (None, Some(a)) => a.iter().collect(),
            _ => vec![],
        };
        for m in [Method::Parsed, Method::ChainedDigits] {
            if readings.iter().any(|r| r.method == m) {
                return m;
            }
        }
        Method::IntegerTokens
    }
}

pub fn interpret(completion: &Completion, accr: bool) -> Result<GvevalResult, JudgeError> {
    let steps = completion.steps.as_deref();
    let (score, final_reading, accr_readings) = if accr {
        let r = extract::accr_scores(steps, &completion.text, completion.truncated)?;
        let mean = r.iter().map(|x| x.score).sum::<f64>() / 4.0;
        (mean, None, Some(r))
    } else {
        let r = extract::final_score(steps, &completion.text, completion.truncated)?;
        (r.score, Some(r), None)
    };
    let readings: Vec<&extract::Reading> = final_reading
        .iter()
        .chain(accr_readings.iter().flatten())
        .collect();
    let doubts = doubt::assess(
        completion.truncated,
        readings.iter().any(|r| r.near_end),
        None,
        readings.iter().any(|r| r.after_echo),
    );
    Ok(GvevalResult {
        score,
        final_reading,
        accr: accr_readings,
        reasoning: completion.text.clone(),
        usage: completion.usage,
        doubts,
    })
}

/// Estimated input tokens (prompt plus image by the provider's rules, with the detail the
/// request will use) and the output cap.
pub fn estimated_tokens(
    input: &Input,
    image_size: Option<(u32, u32)>,
    protocol: Protocol,
    detail: ImageDetail,
) -> (u64, u64) {
    let detail = match (detail, input.medium) {
        (ImageDetail::Auto, Medium::Image) => ImageDetail::Low,
        (ImageDetail::Auto, Medium::Video) => ImageDetail::High,
        (d, _) => d,
    };
    let image = match image_size {
        Some((w, h)) if input.mode.needs_image() => image_tokens(protocol, detail, w, h),
        _ => 0,
    };
    (
        text_tokens(&input.prompt()) + 10 + image,
        u64::from(PARAMS.max_tokens),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::completion::parse_chat_completion;

    fn input(medium: Medium, mode: Mode, accr: bool) -> Input {
        Input {
            medium,
            mode,
            accr,
            caption: "A man plays a guitar.".into(),
            references: vec!["A man is playing guitar.".into(), "Someone strums.".into()],
            image: Some(crate::providers::Image::new("image/jpeg", "/9j/")),
            fidelity: Fidelity::paper(),
        }
    }

    fn backend() -> Backend {
        Backend {
            base_url: "http://h/v1".into(),
            model: "gpt-4o".into(),
            ..Backend::default()
        }
    }

    fn body(req: &HttpRequest) -> serde_json::Value {
        serde_json::from_str(&req.body).unwrap()
    }

    #[test]
    fn reference_only_is_a_system_message_without_image() {
        let b = body(&request(&backend(), &input(Medium::Image, Mode::RefOnly, false)).unwrap());
        assert_eq!(b["messages"][0]["role"], "system");
        assert!(!b.to_string().contains("data:image"));
        assert_eq!(b["temperature"], 1.0);
        assert_eq!(b["top_logprobs"], 5, "the authors' code asks for 5");
    }

    #[test]
    fn the_top20_extension_changes_only_the_number_of_alternatives() {
        for mode in [Mode::RefFree, Mode::RefOnly, Mode::Combined] {
            let paper = body(&request(&backend(), &input(Medium::Image, mode, false)).unwrap());
            assert_eq!(paper["top_logprobs"], 5);
            let mut i = input(Medium::Image, mode, false);
            i.fidelity = Fidelity::paper().with(Extension::GvevalTop20, true);
            let mut ext = body(&request(&backend(), &i).unwrap());
            assert_eq!(ext["top_logprobs"], 20);
            ext["top_logprobs"] = serde_json::json!(5);
            assert_eq!(ext, paper, "{mode:?}: nothing else changes");
        }
        // Another metric's extension does nothing here.
        let mut i = input(Medium::Image, Mode::RefFree, false);
        i.fidelity = Fidelity::extended(crate::metrics::Metric::Maev);
        assert_eq!(body(&request(&backend(), &i).unwrap())["top_logprobs"], 5);
    }

    #[test]
    fn image_modes_send_text_then_image_with_the_authors_detail() {
        let b = body(&request(&backend(), &input(Medium::Image, Mode::RefFree, false)).unwrap());
        let content = &b["messages"][0]["content"];
        assert_eq!(b["messages"][0]["role"], "user");
        assert_eq!(content[0]["type"], "text");
        assert_eq!(content[1]["image_url"]["detail"], "low");
        let b = body(&request(&backend(), &input(Medium::Video, Mode::Combined, true)).unwrap());
        assert_eq!(
            b["messages"][0]["content"][1]["image_url"]["detail"],
            "high"
        );
        assert!(b["messages"][0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("α"));
        // A detail the user chose wins.
        let high = Backend {
            image_detail: ImageDetail::High,
            ..backend()
        };
        let b = body(&request(&high, &input(Medium::Image, Mode::RefFree, false)).unwrap());
        assert_eq!(
            b["messages"][0]["content"][1]["image_url"]["detail"],
            "high"
        );
    }

    #[test]
    fn problems_name_what_is_missing() {
        let mut i = input(Medium::Image, Mode::Combined, true);
        i.references.clear();
        i.image = None;
        let p = i.problems();
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(input(Medium::Video, Mode::RefOnly, true)
            .problems()
            .is_empty());
    }

    #[test]
    fn interpret_reads_the_final_score_and_accr_mean() {
        let body = r#"{"choices":[{"message":{"content":"Good. The final score is $80$."},"logprobs":{"content":[
            {"token":"Good. The final score is","logprob":0.0,"top_logprobs":[]},
            {"token":" $","logprob":0.0,"top_logprobs":[]},
            {"token":"80","logprob":-0.2231435513142097,"top_logprobs":[
              {"token":"80","logprob":-0.2231435513142097},{"token":"90","logprob":-1.6094379124341003}]},
            {"token":"$.","logprob":0.0,"top_logprobs":[]}]}}]}"#;
        let r = interpret(&parse_chat_completion(body).unwrap(), false).unwrap();
        assert!((r.score - 82.0).abs() < 1e-9, "{}", r.score);
        assert_eq!(r.method(), Method::IntegerTokens);
        let text = "x The Accuracy score is α80α. The Completeness score is β60β. \
                    The Conciseness score is ψ100ψ. The Relevance score is δ40δ.";
        let c = Completion {
            text: text.into(),
            steps: None,
            usage: None,
            model: None,
            truncated: false,
        };
        let r = interpret(&c, true).unwrap();
        assert_eq!(r.score, 70.0);
        assert_eq!(r.method(), Method::Parsed);
    }
}
