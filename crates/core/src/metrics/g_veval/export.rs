//! The G-VEval export document.

use serde::Serialize;

use super::{params, GvevalResult, Input, Reading, ACCR, INFO};
use crate::answers::completion::Usage;
use crate::metrics::{JudgeDoc, SentSettings};
use crate::providers::Backend;

pub struct ExportInput<'a> {
    pub input: &'a Input,
    pub backend: &'a Backend,
    pub result: Result<&'a GvevalResult, &'a str>,
}

#[derive(Serialize)]
struct Doc<'a> {
    metric: &'static str,
    paper: &'static str,
    medium: &'static str,
    mode: &'static str,
    accr: bool,
    caption: &'a str,
    references: &'a [String],
    #[serde(flatten)]
    judge: JudgeDoc<'a>,
    settings: SentSettings,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    final_score: Option<ReadingDoc>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    accr_scores: Vec<NamedReading>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// Doubt codes (`truncated`, `echo`); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    doubts: Vec<&'static str>,
}

#[derive(Serialize)]
struct ReadingDoc {
    printed: u32,
    score: f64,
    method: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    distribution: Vec<(u32, f64)>,
}

#[derive(Serialize)]
struct NamedReading {
    name: &'static str,
    #[serde(flatten)]
    reading: ReadingDoc,
}

fn doc(r: &Reading) -> ReadingDoc {
    ReadingDoc {
        printed: r.printed,
        score: r.score,
        method: r.method.id(),
        distribution: r.distribution.clone(),
    }
}

pub fn export_json(e: &ExportInput<'_>) -> String {
    let ok = e.result.ok();
    let d = Doc {
        metric: INFO.id,
        paper: INFO.paper,
        medium: e.input.medium.id(),
        mode: e.input.mode.id(),
        accr: e.input.accr,
        caption: &e.input.caption,
        references: &e.input.references,
        judge: JudgeDoc::of(e.backend, &e.input.fidelity),
        settings: SentSettings::of(e.backend, params(&e.input.fidelity)),
        score: ok.map(|r| r.score),
        method: ok.map(|r| r.method().id()),
        final_score: ok.and_then(|r| r.final_reading.as_ref()).map(doc),
        accr_scores: ok
            .and_then(|r| r.accr.as_ref())
            .map(|a| {
                ACCR.iter()
                    .zip(a)
                    .map(|((name, _), r)| NamedReading {
                        name,
                        reading: doc(r),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        reasoning: ok.map(|r| r.reasoning.as_str()),
        usage: ok.and_then(|r| r.usage),
        error: e.result.err(),
        doubts: ok
            .map(|r| r.doubts.iter().map(|d| d.code()).collect())
            .unwrap_or_default(),
    };
    serde_json::to_string_pretty(&d).expect("plain data serialises")
}
