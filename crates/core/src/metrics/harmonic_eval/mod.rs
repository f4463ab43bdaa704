//! HarmonicEval (Ohi et al., 2025): five criterion scores smoothed from rating-token
//! probabilities, combined with harmonic weighting controlled by γ.
//!
//! This module builds the five requests, reads each answer into a [`CriterionResult`], and
//! assembles the export. The math lives in [`weighting`], token reading in `crate::answers::rating`.

pub mod by_hand;
mod export;
pub mod prompts;
pub mod reopen;
pub mod room;
pub mod weighting;
pub mod weights_view;

/// Its room type, under the name the registry gives it (`metrics::Metric`'s variant).
pub use room::Room as HarmonicEval;
/// HarmonicEval compares candidates with γ (`crate::candidates`), not as a plain metric.
pub type CandidateInput = crate::metrics::room::NoCandidates;

pub use export::{export_json, ExportInput};

use super::fidelity::ExtensionInfo;
use super::fidelity::{Extension, Fidelity};
use super::Metric;
use super::MetricInfo;
use crate::answers::completion::{Completion, Usage};
use crate::answers::doubt::{self, Doubt};
use crate::answers::errors::JudgeError;
use crate::answers::rating::{printed_rating, rating_distribution};
use crate::inputs::text_checks::too_long;
use crate::providers::{
    chat_request, Backend, ChatParams, HttpRequest, Image, ImageDetail, Message, Part, Protocol,
};
use crate::scoring::criteria::Criterion;
use crate::scoring::task::Task;
use crate::scoring::weighting::Scored;
use crate::transport::cost::{image_tokens, text_tokens};
use weighting::{aggregate, sigma, smoothed_score};

/// Our extension of HarmonicEval (off by default): with detail `auto`, photos go at `low` and
/// documents at `high`.
pub const EXTENSION: ExtensionInfo = ExtensionInfo {
    id: "he-low-detail",
    label: "Low image detail for photos on \u{201c}auto\u{201d}",
    reason: "Ours: on \u{201c}auto\u{201d}, photos go at detail low (85 tokens) and documents \
             at high, about a third of the input tokens; the paper sends the API default.",
    metrics: &[Metric::HarmonicEval],
    fixed: None,
};

pub const INFO: MetricInfo = MetricInfo {
    id: "harmonic_eval",
    name: "HarmonicEval",
    paper: "Ohi et al., HarmonicEval: Multi-modal, Multi-task, Multi-criteria Automatic \
            Evaluation Using a Vision Language Model (2025)",
    range: "1–5",
    max_tokens: ChatParams::RATING.max_tokens,
    local_max_tokens: 64,
    text_key: "text",
};

/// What is judged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Input {
    pub task: Task,
    pub text: String,
    /// Used by VQA and VDU only.
    pub question: String,
    /// The prepared image (downscaled, REG box drawn in), as it is sent.
    pub image: Option<Image>,
    /// Paper (default) or our extensions.
    pub fidelity: Fidelity,
    /// The criteria requested and aggregated (all five by default).
    pub criteria: CriterionSet,
}

/// Which criteria a run requests and aggregates. All five is the paper's main setting; its
/// Table 7 (Flickr8k-Expert, Flickr8k-CF, Composite, Pascal-50S) uses "only the correctness and
/// comprehensiveness prompts" ([`CriterionSet::table7`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CriterionSet([bool; 5]);

impl Default for CriterionSet {
    fn default() -> CriterionSet {
        CriterionSet([true; 5])
    }
}

impl CriterionSet {
    /// Table 7's two criteria. The paper says "correctness and comprehensiveness"; it has no
    /// criterion of that name, and we read it as Completeness (our reading: it is the other
    /// image-grounded criterion, and the paper also once calls the Clarity prompt
    /// "comprehensiveness", so the word is loose there).
    pub fn table7() -> CriterionSet {
        CriterionSet::of(&[Criterion::Correctness, Criterion::Completeness])
    }

    pub fn of(criteria: &[Criterion]) -> CriterionSet {
        CriterionSet(std::array::from_fn(|i| {
            criteria.contains(&Criterion::ALL[i])
        }))
    }

    pub fn contains(&self, c: Criterion) -> bool {
        self.0[c.index()]
    }

    pub fn with(mut self, c: Criterion, on: bool) -> CriterionSet {
        self.0[c.index()] = on;
        self
    }

    pub fn is_all(&self) -> bool {
        self.0.iter().all(|&b| b)
    }

    /// The chosen criteria in the paper's order.
    pub fn chosen(&self) -> Vec<Criterion> {
        Criterion::ALL
            .into_iter()
            .filter(|&c| self.contains(c))
            .collect()
    }

    pub fn ids(&self) -> Vec<&'static str> {
        self.chosen().into_iter().map(Criterion::id).collect()
    }
}

impl Input {
    /// Everything that stops a run before any request is sent, in one sentence each.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.image.is_none() {
            out.push("Add an image: drop it, paste it or choose a file.".to_string());
        }
        if self.text.trim().is_empty() {
            out.push(format!("Enter the {} to judge.", self.task.text_noun()));
        }
        if self.task.needs_question() && self.question.trim().is_empty() {
            out.push("This task needs the question that was asked.".to_string());
        }
        out.extend(too_long(self.task.text_noun(), &self.text));
        out.extend(too_long("question", &self.question));
        if self.criteria.chosen().is_empty() {
            out.push("Choose at least one criterion.".to_string());
        }
        out
    }
}

/// One criterion's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct CriterionResult {
    /// Renormalised p(1..=5); all mass on the printed rating when unsmoothed.
    pub distribution: [f64; 5],
    pub score: f64,
    /// `None` when unsmoothed: the backend gave no probabilities, the score is the printed
    /// rating, and its uncertainty is unknown (see `crate::scoring::aggregate`).
    pub sigma: Option<f64>,
    /// Mass on rating tokens before renormalising; `None` when unsmoothed.
    pub coverage: Option<f64>,
    /// What the model wrote.
    pub answer: String,
    pub usage: Option<Usage>,
    /// Why the score may not mean what it says (empty when nothing is in doubt).
    pub doubts: Vec<Doubt>,
}

impl crate::scoring::weighting::Weighed for CriterionResult {
    fn scored(&self) -> Scored {
        CriterionResult::scored(self)
    }
}

impl CriterionResult {
    pub fn scored(&self) -> Scored {
        Scored {
            score: self.score,
            sigma: self.sigma,
        }
    }
}

/// The user turn for one criterion: the image only for the image-grounded criteria.
pub fn criterion_message(criterion: Criterion, input: &Input) -> Message {
    let text = prompts::user_prompt(criterion, input.task, &input.text, &input.question);
    let mut parts = vec![Part::Text(text)];
    if criterion.sees_image() {
        if let Some(url) = &input.image {
            parts.push(Part::Image(url.clone()));
        }
    }
    Message::user(parts)
}

/// The rating request for one criterion.
pub fn criterion_request(
    backend: &Backend,
    criterion: Criterion,
    input: &Input,
) -> Result<HttpRequest, JudgeError> {
    let request = chat_request(
        &for_input(backend, input),
        &[criterion_message(criterion, input)],
        ChatParams::RATING,
    )?;
    // The score is the rating's step alone: the in-page judge stops once it is settled.
    Ok(crate::providers::in_browser::stop::at_rating(request))
}

/// The explanation request: the rating conversation, the smoothed score as the assistant's
/// answer (as FLEUR does), then "Why? Tell me the reason.".
pub fn explain_request(
    backend: &Backend,
    criterion: Criterion,
    input: &Input,
    score: f64,
) -> Result<HttpRequest, JudgeError> {
    let messages = [
        criterion_message(criterion, input),
        Message::assistant(format!("{score:.2}")),
        Message::user(vec![Part::Text(prompts::EXPLAIN_TURN.to_string())]),
    ];
    chat_request(&for_input(backend, input), &messages, ChatParams::EXPLAIN)
}

/// The image detail of our low-detail extension ([`Extension::HeLowDetail`]) when the user
/// leaves it on `auto`: `low` (85 tokens; the setting G-VEval's authors' code uses for photos)
/// except for documents, whose small print needs `high`'s 512-px tiles. This keeps a photo's
/// criteria at about a third of the input tokens that full-detail images cost (see
/// `scripts/bench.py`). A detail the user chose is always sent as chosen.
pub fn detail_for(task: Task, chosen: ImageDetail) -> ImageDetail {
    match (chosen, task) {
        (ImageDetail::Auto, Task::Vdu) => ImageDetail::High,
        (ImageDetail::Auto, _) => ImageDetail::Low,
        (chosen, _) => chosen,
    }
}

/// The detail a run sends. The paper does not name one, so by default the detail the user
/// chose goes to every grounded criterion as it is (`auto`, the API's default, unless changed);
/// only with [`Extension::HeLowDetail`] does `auto` become [`detail_for`]'s choice.
pub fn detail_sent(input: &Input, chosen: ImageDetail) -> ImageDetail {
    if input.fidelity.has(Extension::HeLowDetail) {
        detail_for(input.task, chosen)
    } else {
        chosen
    }
}

fn for_input(backend: &Backend, input: &Input) -> Backend {
    Backend {
        image_detail: detail_sent(input, backend.image_detail),
        ..backend.clone()
    }
}

impl CriterionResult {
    pub fn is_smoothed(&self) -> bool {
        self.sigma.is_some()
    }
}

/// Estimated tokens of the chosen criteria's rating requests: input (prompts plus the image for the two
/// grounded criteria, by the provider's image rules) and the output cap. `image_size` is the
/// size actually sent.
pub fn estimated_tokens(
    input: &Input,
    image_size: Option<(u32, u32)>,
    protocol: Protocol,
    detail: ImageDetail,
) -> (u64, u64) {
    // Role markers and message framing, roughly, per request.
    const FRAMING: u64 = 10;
    let chosen = input.criteria.chosen();
    let input_tokens = chosen
        .iter()
        .map(|&c| {
            let prompt = prompts::user_prompt(c, input.task, &input.text, &input.question);
            let image = match image_size {
                Some((w, h)) if c.sees_image() => {
                    image_tokens(protocol, detail_sent(input, detail), w, h)
                }
                _ => 0,
            };
            text_tokens(&prompt) + FRAMING + image
        })
        .sum();
    let output = u64::from(ChatParams::RATING.max_tokens) * chosen.len() as u64;
    (input_tokens, output)
}

/// Reads a rating completion into a criterion result. Without token probabilities the rating
/// is read from the text only where the protocol never has them (Anthropic); elsewhere their
/// absence is an error, since a smoothed score was asked for.
pub fn interpret(
    completion: &Completion,
    protocol: Protocol,
) -> Result<CriterionResult, JudgeError> {
    let Some(steps) = completion.steps.as_deref() else {
        if protocol.has_logprobs() {
            return Err(JudgeError::NoLogprobs);
        }
        return interpret_printed(completion);
    };
    let d = rating_distribution(steps, &completion.text).map_err(|e| match e {
        JudgeError::NoRating { text, .. } => JudgeError::NoRating {
            text,
            truncated: completion.truncated,
        },
        other => other,
    })?;
    let doubts = doubt::assess(
        completion.truncated,
        doubt::near_end_of_steps(steps, d.step),
        Some(d.coverage),
        d.after_echo,
    );
    Ok(CriterionResult {
        distribution: d.p,
        score: smoothed_score(&d.p),
        sigma: Some(sigma(&d.p)),
        coverage: Some(d.coverage),
        answer: completion.text.clone(),
        usage: completion.usage,
        doubts,
    })
}

/// The unsmoothed result: the printed rating, with no uncertainty.
fn interpret_printed(completion: &Completion) -> Result<CriterionResult, JudgeError> {
    let found = printed_rating(&completion.text).ok_or_else(|| JudgeError::NoRating {
        text: completion.text.clone(),
        truncated: completion.truncated,
    })?;
    let rating = found.rating;
    let doubts = doubt::assess(
        completion.truncated,
        doubt::near_end_of_text(&completion.text, found.at),
        None,
        found.after_echo,
    );
    let mut distribution = [0.0; 5];
    distribution[rating - 1] = 1.0;
    Ok(CriterionResult {
        distribution,
        score: rating as f64,
        sigma: None,
        coverage: None,
        answer: completion.text.clone(),
        usage: completion.usage,
        doubts,
    })
}

/// Weights (aligned with `results`, `None` where a criterion has no score) and the overall
/// score over the criteria that do.
pub fn weigh(results: &[Option<&CriterionResult>], gamma: f64) -> (Vec<Option<f64>>, Option<f64>) {
    let scored: Vec<Scored> = results.iter().flatten().map(|r| r.scored()).collect();
    let Some((weights, overall)) = aggregate(&scored, gamma) else {
        return (vec![None; results.len()], None);
    };
    let mut next = weights.into_iter();
    let aligned = results
        .iter()
        .map(|r| r.and_then(|_| next.next()))
        .collect();
    (aligned, Some(overall))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::completion::parse_chat_completion;

    fn input(task: Task) -> Input {
        Input {
            task,
            text: "A dog runs.".into(),
            question: "What is the dog doing?".into(),
            image: Some(crate::providers::Image::new("image/jpeg", "/9j/")),
            ..Input::default()
        }
    }

    #[test]
    fn only_grounded_criteria_carry_the_image() {
        let backend = Backend {
            base_url: "http://h/v1".into(),
            model: "m".into(),
            ..Backend::default()
        };
        for c in Criterion::ALL {
            let req = criterion_request(&backend, c, &input(Task::Vqa)).unwrap();
            assert_eq!(
                req.body.contains("data:image/jpeg"),
                c.sees_image(),
                "{c:?}"
            );
        }
    }

    #[test]
    fn problems_name_what_is_missing() {
        let mut i = input(Task::Vqa);
        assert!(i.problems().is_empty());
        i.question = " ".into();
        i.text.clear();
        i.image = None;
        let p = i.problems();
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[1].contains("answer"));
    }

    #[test]
    fn interpret_and_weigh_with_a_failed_criterion() {
        let body = r#"{"choices":[{"message":{"content":"4"},"logprobs":{"content":[
            {"token":"4","logprob":-0.5108256237659907,"top_logprobs":[
              {"token":"4","logprob":-0.5108256237659907},{"token":"5","logprob":-1.6094379124341003},
              {"token":"3","logprob":-1.8971199848858813},{"token":"2","logprob":-2.995732273553991}]}]}}]}"#;
        let r = interpret(&parse_chat_completion(body).unwrap(), Protocol::OpenAi).unwrap();
        // p = (0, .05, .15, .6, .2): the SPEC's Correctness row.
        assert!((r.score - 3.95).abs() < 1e-12);
        assert!((r.coverage.unwrap() - 1.0).abs() < 1e-12);
        let (w, overall) = weigh(&[Some(&r), None, Some(&r)], 0.75);
        assert_eq!(w, vec![Some(0.5), None, Some(0.5)]);
        assert!((overall.unwrap() - 3.95).abs() < 1e-12);
        let (w, overall) = weigh(&[None, None], 0.75);
        assert_eq!((w, overall), (vec![None, None], None));
    }

    #[test]
    fn a_rating_cut_off_by_the_token_limit_says_so() {
        let body = r#"{"choices":[{"message":{"content":"The caption describes"},"finish_reason":"length",
            "logprobs":{"content":[{"token":"The","logprob":-0.1,"top_logprobs":[]},
            {"token":" caption","logprob":-0.1,"top_logprobs":[]}]}}]}"#;
        let err = interpret(&parse_chat_completion(body).unwrap(), Protocol::OpenAi).unwrap_err();
        assert!(
            matches!(
                err,
                JudgeError::NoRating {
                    truncated: true,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("cut off at the token limit"));
    }

    #[test]
    fn printed_ratings_are_unsmoothed_only_where_no_logprobs_exist() {
        let completion = Completion {
            text: "Rating: 4\n\nThe caption is accurate.".into(),
            steps: None,
            usage: None,
            model: None,
            truncated: false,
        };
        assert_eq!(
            interpret(&completion, Protocol::OpenAi),
            Err(JudgeError::NoLogprobs)
        );
        assert_eq!(
            interpret(&completion, Protocol::Gemini),
            Err(JudgeError::NoLogprobs)
        );
        let r = interpret(&completion, Protocol::Anthropic).unwrap();
        assert_eq!(r.score, 4.0);
        assert_eq!(r.distribution, [0.0, 0.0, 0.0, 1.0, 0.0]);
        assert!(!r.is_smoothed() && r.coverage.is_none());
        let vague = Completion {
            text: "It is fine.".into(),
            ..completion
        };
        assert!(matches!(
            interpret(&vague, Protocol::Anthropic),
            Err(JudgeError::NoRating { .. })
        ));
    }

    #[test]
    fn estimate_counts_the_image_twice_and_low_detail_is_cheaper() {
        let i = input(Task::Ic);
        let (none, out) = estimated_tokens(&i, None, Protocol::OpenAi, ImageDetail::Auto);
        assert_eq!(out, 100);
        let (high, _) =
            estimated_tokens(&i, Some((1024, 768)), Protocol::OpenAi, ImageDetail::High);
        let (low, _) = estimated_tokens(&i, Some((1024, 768)), Protocol::OpenAi, ImageDetail::Low);
        // 1024×768 high = 85 + 170·4 = 765 per grounded criterion; low = 85.
        assert_eq!(high - none, 2 * 765);
        assert_eq!(low - none, 2 * 85);
    }

    fn sent_detail(task: Task, detail: ImageDetail, fidelity: &Fidelity) -> Vec<serde_json::Value> {
        let backend = Backend {
            base_url: "http://h/v1".into(),
            model: "m".into(),
            image_detail: detail,
            ..Backend::default()
        };
        let i = Input {
            fidelity: fidelity.clone(),
            ..input(task)
        };
        Criterion::ALL
            .into_iter()
            .filter(|c| c.sees_image())
            .map(|c| {
                let req = criterion_request(&backend, c, &i).unwrap();
                let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
                body["messages"][0]["content"][1]["image_url"].clone()
            })
            .collect()
    }

    #[test]
    fn paper_sends_the_chosen_detail_auto_by_default_to_every_grounded_criterion() {
        assert_eq!(Input::default().fidelity, Fidelity::paper());
        assert_eq!(Backend::default().image_detail, ImageDetail::Auto);
        for task in [Task::Ic, Task::Vqa, Task::Vdu, Task::Reg] {
            let sent = sent_detail(task, ImageDetail::Auto, &Fidelity::paper());
            assert_eq!(sent.len(), 2);
            for image in &sent {
                // `auto` is OpenAI's default, sent as no detail field at all.
                assert!(image.get("detail").is_none(), "{task:?}: {image}");
                assert!(image["url"]
                    .as_str()
                    .unwrap()
                    .starts_with("data:image/jpeg"));
            }
            for chosen in [ImageDetail::Low, ImageDetail::High] {
                for image in sent_detail(task, chosen, &Fidelity::paper()) {
                    assert_eq!(image["detail"], chosen.id(), "{task:?}");
                }
            }
        }
        // The estimate follows: auto costs what OpenAI's auto costs, not low.
        let i = input(Task::Ic);
        let size = Some((1024, 768));
        assert_ne!(
            estimated_tokens(&i, size, Protocol::OpenAi, ImageDetail::Auto),
            estimated_tokens(&i, size, Protocol::OpenAi, ImageDetail::Low)
        );
    }

    #[test]
    fn the_low_detail_extension_makes_auto_low_for_photos_and_high_for_documents() {
        let ext = Fidelity::paper().with(Extension::HeLowDetail, true);
        let details = |task, detail| -> Vec<serde_json::Value> {
            sent_detail(task, detail, &ext)
                .into_iter()
                .map(|i| i["detail"].clone())
                .collect()
        };
        assert_eq!(details(Task::Ic, ImageDetail::Auto), ["low", "low"]);
        assert_eq!(details(Task::Vqa, ImageDetail::Auto), ["low", "low"]);
        assert_eq!(details(Task::Reg, ImageDetail::Auto), ["low", "low"]);
        assert_eq!(details(Task::Vdu, ImageDetail::Auto), ["high", "high"]);
        // A detail the user chose is sent as chosen.
        assert_eq!(details(Task::Ic, ImageDetail::High), ["high", "high"]);
        assert_eq!(details(Task::Vdu, ImageDetail::Low), ["low", "low"]);
        // The estimate follows the same rule: auto costs what low costs for a caption.
        let i = Input {
            fidelity: ext.clone(),
            ..input(Task::Ic)
        };
        let size = Some((1024, 768));
        assert_eq!(
            estimated_tokens(&i, size, Protocol::OpenAi, ImageDetail::Auto),
            estimated_tokens(&i, size, Protocol::OpenAi, ImageDetail::Low)
        );
    }

    #[test]
    fn a_criteria_subset_is_what_is_estimated_and_checked() {
        let all = input(Task::Ic);
        let two = Input {
            criteria: CriterionSet::table7(),
            ..input(Task::Ic)
        };
        assert_eq!(two.criteria.ids(), ["correctness", "completeness"]);
        assert!(CriterionSet::default().is_all() && !two.criteria.is_all());
        let (_, out_all) = estimated_tokens(&all, None, Protocol::OpenAi, ImageDetail::Low);
        let (in_two, out_two) = estimated_tokens(&two, None, Protocol::OpenAi, ImageDetail::Low);
        assert_eq!((out_all, out_two), (100, 40));
        let correctness_only = Input {
            criteria: CriterionSet::of(&[Criterion::Correctness]),
            ..input(Task::Ic)
        };
        let (in_one, _) =
            estimated_tokens(&correctness_only, None, Protocol::OpenAi, ImageDetail::Low);
        assert!(in_one < in_two);
        let none = Input {
            criteria: CriterionSet::of(&[]),
            ..input(Task::Ic)
        };
        assert!(none
            .problems()
            .iter()
            .any(|p| p.contains("at least one criterion")));
    }

    #[test]
    fn explain_follows_the_rating_turn() {
        let backend = Backend {
            base_url: "http://h/v1".into(),
            model: "m".into(),
            ..Backend::default()
        };
        let req = explain_request(&backend, Criterion::Fluency, &input(Task::Ic), 4.95).unwrap();
        let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
        let msgs = body["messages"].as_array().unwrap();
        assert_eq!(msgs.len(), 3);
        assert_eq!(msgs[1]["role"], "assistant");
        assert_eq!(msgs[1]["content"], "4.95");
        assert_eq!(msgs[2]["content"], "Why? Tell me the reason.");
    }
}
