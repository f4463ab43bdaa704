//! The FLEUR / RefFLEUR export document.

use serde::Serialize;

use super::{FleurResult, Scheme, FLEUR_INFO, REF_FLEUR_INFO, SCORE_PARAMS};
use crate::answers::completion::Usage;
use crate::metrics::fidelity::{Extension, Fidelity};
use crate::metrics::{JudgeDoc, SentSettings};
use crate::providers::Backend;

pub struct ExportInput<'a> {
    pub caption: &'a str,
    pub references: Option<&'a [String]>,
    pub backend: &'a Backend,
    pub result: Result<&'a FleurResult, &'a str>,
    pub explanation: Option<&'a str>,
}

#[derive(Serialize)]
struct Doc<'a> {
    metric: &'static str,
    paper: &'static str,
    caption: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    references: Option<&'a [String]>,
    #[serde(flatten)]
    judge: JudgeDoc<'a>,
    settings: SentSettings,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    printed: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    smoothed_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scheme: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    places: Vec<PlaceDoc<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// Doubt codes (`truncated`, `low-coverage`, `echo`); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    doubts: Vec<&'static str>,
}

/// What a FLEUR result used: the paper's procedure, or our multi-digit reading where the
/// tokenizer left no per-digit step.
pub fn fidelity_of(result: Option<&FleurResult>) -> Fidelity {
    let multi = result.is_some_and(|r| r.smoothed.scheme == Scheme::MultiDigit);
    Fidelity::paper().with(Extension::FleurMultiDigit, multi)
}

#[derive(Serialize)]
struct PlaceDoc<'a> {
    place: &'static str,
    step: usize,
    token: &'a str,
    /// p(digit 0..9) at this place, full-vocabulary probabilities.
    digits: [f64; 10],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    readings: Vec<ReadingDoc<'a>>,
}

#[derive(Serialize)]
struct ReadingDoc<'a> {
    token: &'a str,
    value: f64,
    p: f64,
}

pub fn export_json(input: &ExportInput<'_>) -> String {
    let info = if input.references.is_some() {
        REF_FLEUR_INFO
    } else {
        FLEUR_INFO
    };
    let ok = input.result.ok();
    let places = ok
        .map(|r| {
            r.smoothed
                .places
                .iter()
                .map(|p| PlaceDoc {
                    place: p.place.id(),
                    step: p.step,
                    token: &p.token,
                    digits: p.digits,
                    readings: p
                        .readings
                        .iter()
                        .map(|(token, value, p)| ReadingDoc {
                            token,
                            value: *value,
                            p: *p,
                        })
                        .collect(),
                })
                .collect()
        })
        .unwrap_or_default();
    let doc = Doc {
        metric: info.id,
        paper: info.paper,
        caption: input.caption,
        references: input.references,
        judge: JudgeDoc::of(input.backend, &fidelity_of(ok)),
        settings: SentSettings::of(input.backend, SCORE_PARAMS),
        raw_score: ok.map(|r| r.smoothed.raw),
        printed: ok.map(|r| r.smoothed.printed.as_str()),
        smoothed_score: ok.map(|r| r.smoothed.score),
        scheme: ok.map(|r| r.smoothed.scheme.id()),
        places,
        answer: ok.map(|r| r.answer.as_str()),
        usage: ok.and_then(|r| r.usage),
        explanation: input.explanation,
        error: input.result.err(),
        doubts: ok
            .map(|r| r.doubts.iter().map(|d| d.code()).collect())
            .unwrap_or_default(),
    };
    serde_json::to_string_pretty(&doc).expect("plain data serialises")
}

#[cfg(test)]
mod tests {
    use super::super::smoothing::{Place, PlaceDistribution, Scheme, Smoothed};
    use super::*;

    #[test]
    fn carries_metric_scores_and_digit_distributions_but_no_key() {
        let backend = Backend {
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4o".into(),
            api_key: "sk-very-secret".into(),
            ..Backend::default()
        };
        let mut digits = [0.0; 10];
        digits[8] = 0.7;
        let result = FleurResult {
            smoothed: Smoothed {
                printed: "0.85".into(),
                raw: 0.85,
                score: 0.81,
                scheme: Scheme::MultiDigit,
                places: vec![PlaceDistribution {
                    place: Place::Tenths,
                    step: 2,
                    token: "85".into(),
                    digits,
                    readings: vec![("85".into(), 0.85, 0.5)],
                }],
                after_echo: false,
            },
            answer: "0.85".into(),
            usage: None,
            doubts: vec![crate::answers::doubt::Doubt::Echo],
        };
        let refs = vec!["A dog.".to_string()];
        let json = export_json(&ExportInput {
            caption: "a dog",
            references: Some(&refs),
            backend: &backend,
            result: Ok(&result),
            explanation: Some("Because."),
        });
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["metric"], "ref_fleur");
        assert_eq!(v["raw_score"], 0.85);
        assert_eq!(v["smoothed_score"], 0.81);
        assert_eq!(v["scheme"], "multi_digit");
        assert_eq!(v["places"][0]["digits"][8], 0.7);
        assert_eq!(v["places"][0]["readings"][0]["token"], "85");
        assert_eq!(v["explanation"], "Because.");
        assert_eq!(v["doubts"], serde_json::json!(["echo"]));
        assert!(!json.contains("sk-very-secret"));
        // The multi-digit reading is ours, and the result says so.
        assert_eq!(v["fidelity"], "extended");
        assert_eq!(v["extensions"], serde_json::json!(["fleur-multi-digit"]));
        assert_eq!(v["settings"]["top_logprobs"], 20);
        assert_eq!(v["settings"]["temperature"], 0.0);
        let per_digit = FleurResult {
            smoothed: Smoothed {
                scheme: Scheme::PerDigit,
                ..result.smoothed.clone()
            },
            ..result.clone()
        };
        let json = export_json(&ExportInput {
            caption: "a dog",
            references: None,
            backend: &backend,
            result: Ok(&per_digit),
            explanation: None,
        });
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["fidelity"], "paper");
        assert_eq!(v["extensions"], serde_json::json!([]));
    }
}
