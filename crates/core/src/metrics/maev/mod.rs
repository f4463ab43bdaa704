//! MAEV (Multimodal Automatic Evaluation): a text-only judge sees a caption standing in for
//! the image, the reference answer and the answer to judge, and scores accuracy 0
//! (hallucination) or 2 (accurate), evidence first. Several trials with different few-shot
//! examples are averaged; the mean against a threshold (1.25) gives the verdict.

pub mod candidate;
mod export;
pub mod parse;
pub mod prompts;
pub mod reopen;
pub mod room;
pub mod sampling;

/// Its room type, under the name the registry gives it (`metrics::Metric`'s variant).
pub use room::Room as Maev;
/// Its candidates' shared input (`metrics::room::Candidate`, in `candidate.rs`).
pub type CandidateInput = Input;

pub use export::{export_json, ExportInput, TrialOutcome};
pub use parse::{ScoreSource, TrialReading};
pub use prompts::{default_pool, Example};
pub use room::RunSettings;

use super::fidelity::ExtensionInfo;
use super::fidelity::{Extension, Fidelity};
use super::Metric;
use super::MetricInfo;
use crate::answers::completion::TokenStep;
use crate::answers::errors::JudgeError;
use crate::inputs::text_checks::too_long;
use crate::providers::{chat_request, Backend, ChatParams, HttpRequest, Image, Message, Part};
use crate::transport::cost::text_tokens;

/// Our extension of MAEV (off by default): a trial's score is the expected value over 0/1/2
/// from the score token's logprobs, and a printed "1" is accepted.
pub const EXTENSION: ExtensionInfo = ExtensionInfo {
    id: "maev-expected-score",
    label: "Expected score from token probabilities",
    reason: "Ours: a trial scores E[0/1/2] from the score token's logprobs instead of the \
             printed 0 or 2, a finer signal; the 1.25 threshold was tuned on printed scores.",
    metrics: &[Metric::Maev],
    fixed: None,
};

pub const INFO: MetricInfo = MetricInfo {
    id: "maev",
    name: "MAEV",
    paper: "MAEV: Multimodal Automatic Evaluation Framework (anonymous EMNLP submission)",
    range: "0–2",
    max_tokens: PARAMS.max_tokens,
    local_max_tokens: 400,
    text_key: "answer",
};

pub const DEFAULT_TRIALS: u32 = 5;
pub const DEFAULT_THRESHOLD: f64 = 1.25;

/// The paper's sampling (Appendix A, Table 3): top_p 0.2 and "Temperature: Default API value", so no
/// temperature is sent. The paper reads the printed score only, so no logprobs are asked for.
/// The output cap is our choice (the paper gives none): evidence first needs room.
pub const PARAMS: ChatParams = ChatParams {
    temperature: None,
    top_logprobs: None,
    max_tokens: 400,
    top_p: Some(0.2),
    seed: None,
    scoring: true,
};

/// The request settings for a fidelity: the paper's [`PARAMS`], plus the score token's five
/// alternatives when the expected-score extension is on (the sampling itself is unchanged).
pub fn params(fidelity: &Fidelity) -> ChatParams {
    ChatParams {
        top_logprobs: fidelity.has(Extension::MaevExpectedScore).then_some(5),
        ..PARAMS
    }
}

/// Reads one trial as the fidelity says. The paper: the printed 0 or 2; a printed "1" is not
/// on its scale, so that trial is unreadable (an error with its sentence, left out of the
/// mean). With [`Extension::MaevExpectedScore`]: the expected value over 0/1/2 from the score
/// token's probabilities where the backend gives them, and a printed 1 is accepted.
pub fn read_trial(
    text: &str,
    steps: Option<&[TokenStep]>,
    fidelity: &Fidelity,
) -> Result<TrialReading, String> {
    if fidelity.has(Extension::MaevExpectedScore) {
        return parse::read_trial(text, steps);
    }
    let reading = parse::read_trial(text, None)?;
    if reading.printed == 1 {
        return Err(
            "The answer printed \u{201c}Assistant Score\u{201d} 1, which is not on the paper's \
             scale (0 = hallucination, 2 = accurate): this trial is not counted."
                .into(),
        );
    }
    Ok(reading)
}

/// [`read_trial`] of a whole completion, with its usage and the doubts about its score.
pub fn read_completion(
    c: &crate::answers::completion::Completion,
    fidelity: &Fidelity,
) -> Result<TrialReading, String> {
    let mut r = read_trial(&c.text, c.steps.as_deref(), fidelity)?;
    r.usage = c.usage;
    r.doubts = parse::doubts_of(c);
    Ok(r)
}

#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub question: String,
    pub caption: String,
    pub reference: String,
    /// The multimodal model's answer being judged.
    pub answer: String,
    pub trials: u32,
    pub threshold: f64,
    pub seed: u64,
    pub pool: Vec<Example>,
    /// Paper (default) or our extensions.
    pub fidelity: Fidelity,
}

impl Input {
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut need = |v: &str, what: &str| {
            if v.trim().is_empty() {
                out.push(format!("Enter the {what}."));
            }
        };
        need(&self.question, "question that was asked");
        need(
            &self.caption,
            "image caption (or use \u{201c}Caption the image\u{201d})",
        );
        need(&self.reference, "reference answer");
        need(&self.answer, "answer to judge");
        for (v, what) in [
            (&self.question, "question"),
            (&self.caption, "image caption"),
            (&self.reference, "reference answer"),
            (&self.answer, "answer"),
        ] {
            out.extend(too_long(what, v));
        }
        if self.trials == 0 {
            out.push("Run at least one trial.".into());
        }
        if !(self.threshold > 0.0 && self.threshold < 2.0) {
            out.push("The threshold must lie between 0 and 2.".into());
        }
        if let Err(e) = sampling::sample_pairs(&self.pool, 1, 0) {
            out.push(e);
        }
        out
    }
}

/// One trial's request: which examples it carries (pool indices) and the HTTP request. No
/// image is ever sent: the judge is text-only.
pub struct TrialRequest {
    pub examples: (usize, usize),
    pub request: HttpRequest,
}

pub fn trial_requests(backend: &Backend, input: &Input) -> Result<Vec<TrialRequest>, JudgeError> {
    let pairs = sampling::sample_pairs(&input.pool, input.trials as usize, input.seed)
        .map_err(|message| JudgeError::Setting { message })?;
    pairs
        .into_iter()
        .map(|(zero, two)| {
            let text = prompts::prompt(
                &input.question,
                &input.caption,
                &input.reference,
                &input.answer,
                &input.pool[zero],
                &input.pool[two],
            );
            let request = chat_request(
                backend,
                &[Message::user(vec![Part::Text(text)])],
                params(&input.fidelity),
            )?;
            Ok(TrialRequest {
                examples: (zero, two),
                request,
            })
        })
        .collect()
}

/// The "caption the image first" request: the chosen VLM describes the image.
pub fn caption_request(backend: &Backend, image: &Image) -> Result<HttpRequest, JudgeError> {
    let message = Message::user(vec![
        Part::Text(prompts::CAPTION_REQUEST.into()),
        Part::Image(image.clone()),
    ]);
    chat_request(backend, &[message], ChatParams::EXPLAIN)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accurate,
    Hallucination,
}

impl Verdict {
    pub fn id(self) -> &'static str {
        match self {
            Verdict::Accurate => "accurate",
            Verdict::Hallucination => "hallucination",
        }
    }
}

/// Mean of the trials that were read, and the verdict: accurate when the mean reaches the
/// threshold. `None` when no trial was read.
pub fn aggregate(scores: &[f64], threshold: f64) -> Option<(f64, Verdict)> {
    if scores.is_empty() {
        return None;
    }
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    let verdict = if mean >= threshold {
        Verdict::Accurate
    } else {
        Verdict::Hallucination
    };
    Some((mean, verdict))
}

/// Estimated input tokens of all trials (their prompts differ only in the examples) and the
/// output cap.
pub fn estimated_tokens(input: &Input) -> (u64, u64) {
    let pairs =
        sampling::sample_pairs(&input.pool, input.trials as usize, input.seed).unwrap_or_default();
    let tokens = pairs
        .iter()
        .map(|&(z, t)| {
            let p = prompts::prompt(
                &input.question,
                &input.caption,
                &input.reference,
                &input.answer,
                &input.pool[z],
                &input.pool[t],
            );
            text_tokens(&p) + 10
        })
        .sum();
    (tokens, u64::from(PARAMS.max_tokens) * pairs.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> Input {
        Input {
            question: "What is in the image?".into(),
            caption: "A cat on a sofa.".into(),
            reference: "A cat sleeping on a sofa.".into(),
            answer: "A dog on a sofa.".into(),
            trials: DEFAULT_TRIALS,
            threshold: DEFAULT_THRESHOLD,
            seed: 7,
            pool: default_pool(),
            fidelity: Fidelity::paper(),
        }
    }

    fn backend() -> Backend {
        Backend {
            base_url: "http://h/v1".into(),
            model: "gpt-4".into(),
            ..Backend::default()
        }
    }

    #[test]
    fn the_export_records_the_output_budget_actually_sent() {
        let tuned = Backend {
            tuning: crate::providers::Tuning {
                max_tokens: Some(96),
                ..Default::default()
            },
            ..backend()
        };
        let json = export_json(&ExportInput {
            input: &input(),
            backend: &tuned,
            trials: Vec::new(),
        });
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["settings"]["max_tokens"], 96);
        let req: serde_json::Value =
            serde_json::from_str(&trial_requests(&tuned, &input()).unwrap()[0].request.body)
                .unwrap();
        assert_eq!(
            req["max_tokens"], 96,
            "what the export says is what was sent"
        );
    }

    fn bodies(input: &Input) -> Vec<serde_json::Value> {
        trial_requests(&backend(), input)
            .unwrap()
            .iter()
            .map(|r| serde_json::from_str(&r.request.body).unwrap())
            .collect()
    }

    #[test]
    fn paper_sends_no_temperature_and_asks_no_logprobs() {
        for body in bodies(&input()) {
            assert!(body.get("temperature").is_none(), "{body}");
            assert!(body.get("logprobs").is_none() && body.get("top_logprobs").is_none());
            assert_eq!(body["top_p"], 0.2);
        }
        // The same on Gemini and Anthropic: no temperature at all.
        for protocol in [
            crate::providers::Protocol::Gemini,
            crate::providers::Protocol::Anthropic,
        ] {
            let b = Backend {
                protocol,
                api_key: "k".into(),
                ..backend()
            };
            let req = trial_requests(&b, &input()).unwrap();
            assert!(!req[0].request.body.contains("temperature"), "{protocol:?}");
        }
    }

    #[test]
    fn the_expected_score_extension_asks_for_alternatives_only() {
        let mut i = input();
        i.fidelity = Fidelity::paper().with(Extension::MaevExpectedScore, true);
        for (paper, ext) in bodies(&input()).into_iter().zip(bodies(&i)) {
            assert_eq!(ext["top_logprobs"], 5);
            assert_eq!(ext["logprobs"], true);
            assert!(ext.get("temperature").is_none());
            let mut stripped = ext.clone();
            let map = stripped.as_object_mut().unwrap();
            map.remove("logprobs");
            map.remove("top_logprobs");
            assert_eq!(stripped, paper, "nothing else changes");
        }
    }

    fn score_steps() -> Vec<TokenStep> {
        let tok = |t: &str| TokenStep {
            token: t.into(),
            logprob: 0.0,
            top: vec![],
        };
        vec![
            tok("Evaluation Evidence: fine.\nAssistant Score: \""),
            TokenStep {
                token: "2".into(),
                logprob: 0.7f64.ln(),
                top: vec![("2".into(), 0.7f64.ln()), ("0".into(), 0.3f64.ln())],
            },
            tok("\""),
        ]
    }

    #[test]
    fn paper_reads_the_printed_zero_or_two_only() {
        let steps = score_steps();
        let text: String = steps.iter().map(|s| s.token.as_str()).collect();
        let r = read_trial(&text, Some(&steps), &Fidelity::paper()).unwrap();
        assert_eq!((r.score, r.source), (2.0, ScoreSource::Printed));
        let ext = Fidelity::paper().with(Extension::MaevExpectedScore, true);
        let r = read_trial(&text, Some(&steps), &ext).unwrap();
        assert_eq!(r.source, ScoreSource::Probabilities);
        assert!((r.score - 1.4).abs() < 1e-12, "{}", r.score);
        // A printed 1 is off the paper's scale: unreadable there, a score of 1 in the extension.
        let one = "Evaluation Evidence: partly.\nAssistant Score: 1";
        let err = read_trial(one, None, &Fidelity::paper()).unwrap_err();
        assert!(err.contains("not on the paper's scale"), "{err}");
        assert_eq!(read_trial(one, None, &ext).unwrap().score, 1.0);
        let zero = "'Assistant Score': 0";
        assert_eq!(
            read_trial(zero, None, &Fidelity::paper()).unwrap().score,
            0.0
        );
    }

    #[test]
    fn five_trials_no_image_and_the_papers_sampling() {
        let reqs = trial_requests(&backend(), &input()).unwrap();
        assert_eq!(reqs.len(), 5);
        for r in &reqs {
            assert!(!r.request.body.contains("image_url"));
            let body: serde_json::Value = serde_json::from_str(&r.request.body).unwrap();
            assert_eq!(body["top_p"], 0.2);
            let pool = default_pool();
            assert_eq!((pool[r.examples.0].score, pool[r.examples.1].score), (0, 2));
        }
    }

    #[test]
    fn threshold_decides_the_verdict() {
        assert_eq!(
            aggregate(&[2.0, 2.0, 0.0, 2.0, 0.0], 1.25),
            Some((1.2, Verdict::Hallucination))
        );
        assert_eq!(
            aggregate(&[2.0, 2.0, 0.0, 2.0, 2.0], 1.25),
            Some((1.6, Verdict::Accurate))
        );
        assert_eq!(
            aggregate(&[1.25], 1.25).unwrap().1,
            Verdict::Accurate,
            "reaching it is enough"
        );
        assert_eq!(aggregate(&[], 1.25), None);
    }

    #[test]
    fn problems_name_missing_fields_and_bad_settings() {
        let mut i = input();
        i.caption.clear();
        i.threshold = 2.5;
        i.pool.retain(|e| e.score == 2);
        let p = i.problems();
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("image caption"));
    }
}
