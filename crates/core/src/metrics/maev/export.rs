//! The MAEV export document: every trial's examples, evidence and score, the mean, the verdict.

use serde::Serialize;

use super::{aggregate, params, Example, Input, TrialReading, INFO};
use crate::metrics::JudgeDoc;
use crate::providers::Backend;

/// One trial: its examples (pool indices) and its reading or error.
pub type TrialOutcome<'a> = ((usize, usize), Result<&'a TrialReading, &'a str>);

pub struct ExportInput<'a> {
    pub input: &'a Input,
    pub backend: &'a Backend,
    /// Per trial: its examples (pool indices) and its reading or error.
    pub trials: Vec<TrialOutcome<'a>>,
}

#[derive(Serialize)]
struct Doc<'a> {
    metric: &'static str,
    paper: &'static str,
    question: &'a str,
    caption: &'a str,
    reference_answer: &'a str,
    answer: &'a str,
    #[serde(flatten)]
    judge: JudgeDoc<'a>,
    seed: u64,
    threshold: f64,
    settings: Settings,
    trials: Vec<TrialDoc<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'static str>,
}

/// The request and sampling settings used (`temperature: null` = the API's default, sent as
/// nothing).
#[derive(Serialize)]
struct Settings {
    temperature: Option<f64>,
    top_p: Option<f64>,
    top_logprobs: Option<u8>,
    max_tokens: u32,
    trials: u32,
    /// Few-shot pairs do not repeat while the pool has unused ones.
    distinct_pairs: bool,
    pool_size: usize,
}

#[derive(Serialize)]
struct TrialDoc<'a> {
    examples: [ExampleDoc<'a>; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    printed: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// Doubt codes (`truncated`, `echo`); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    doubts: Vec<&'static str>,
}

#[derive(Serialize)]
struct ExampleDoc<'a> {
    score: u8,
    question: &'a str,
    assistant: &'a str,
}

fn example(e: &Example) -> ExampleDoc<'_> {
    ExampleDoc {
        score: e.score,
        question: &e.question,
        assistant: &e.assistant,
    }
}

pub fn export_json(e: &ExportInput<'_>) -> String {
    let pool = &e.input.pool;
    let trials: Vec<TrialDoc> = e
        .trials
        .iter()
        .map(|((zero, two), r)| {
            let ok = r.as_ref().ok();
            TrialDoc {
                examples: [example(&pool[*zero]), example(&pool[*two])],
                evidence: ok.map(|t| t.evidence.as_str()),
                printed: ok.map(|t| t.printed),
                score: ok.map(|t| t.score),
                source: ok.map(|t| t.source.id()),
                error: r.as_ref().err().copied(),
                doubts: ok
                    .map(|t| t.doubts.iter().map(|d| d.code()).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    let scores: Vec<f64> = trials.iter().filter_map(|t| t.score).collect();
    let summary = aggregate(&scores, e.input.threshold);
    let doc = Doc {
        metric: INFO.id,
        paper: INFO.paper,
        question: &e.input.question,
        caption: &e.input.caption,
        reference_answer: &e.input.reference,
        answer: &e.input.answer,
        judge: JudgeDoc::of(e.backend, &e.input.fidelity),
        seed: e.input.seed,
        threshold: e.input.threshold,
        settings: {
            let p = e.backend.sends(params(&e.input.fidelity));
            Settings {
                temperature: p.temperature,
                top_p: p.top_p,
                top_logprobs: p.top_logprobs,
                max_tokens: p.max_tokens,
                trials: e.input.trials,
                distinct_pairs: true,
                pool_size: pool.len(),
            }
        },
        trials,
        mean: summary.map(|s| s.0),
        verdict: summary.map(|s| s.1.id()),
    };
    serde_json::to_string_pretty(&doc).expect("plain data serialises")
}
