//! The "Export JSON" document. It carries the inputs, settings and every criterion's
//! distribution, but never the API key (the [`Backend`] key is not read here).

use serde::Serialize;

use super::{detail_sent, weigh, CriterionResult, CriterionSet, Input, INFO};
use crate::answers::completion::Usage;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::JudgeDoc;
use crate::providers::{Backend, ChatParams};
use crate::scoring::criteria::Criterion;
use crate::scoring::task::Task;

/// Everything the export needs, borrowed from the app state.
pub struct ExportInput<'a> {
    pub gamma: f64,
    pub task: Task,
    pub text: &'a str,
    pub question: &'a str,
    pub backend: &'a Backend,
    /// One entry per criterion in [`Criterion::ALL`] order: a result, an error message, or
    /// `None` when the criterion was not run.
    pub results: [Option<Result<&'a CriterionResult, String>>; 5],
    /// The run's fidelity and criteria (recorded as `fidelity`, `extensions`, `settings`).
    pub fidelity: &'a Fidelity,
    pub criteria: CriterionSet,
}

#[derive(Serialize)]
struct Doc<'a> {
    metric: &'static str,
    gamma: f64,
    task: &'static str,
    text: &'a str,
    question: &'a str,
    #[serde(flatten)]
    judge: JudgeDoc<'a>,
    settings: Settings,
    criteria: Vec<CriterionDoc<'a>>,
    overall: Option<f64>,
}

/// The request settings used.
#[derive(Serialize)]
struct Settings {
    temperature: Option<f64>,
    top_logprobs: Option<u8>,
    max_tokens: u32,
    /// The detail sent with the grounded criteria's image (`auto` = OpenAI's default, sent as
    /// no field).
    image_detail: &'static str,
    /// The criteria requested and aggregated.
    criteria: Vec<&'static str>,
}

#[derive(Serialize)]
struct CriterionDoc<'a> {
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    distribution: Option<[f64; 5]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sigma: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<f64>,
    /// false: the printed rating, no probabilities (e.g. Anthropic); σ and coverage absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    smoothed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// Doubt codes (`truncated`, `low-coverage`, `echo`); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    doubts: Vec<&'static str>,
}

/// Pretty-printed export JSON.
pub fn export_json(input: &ExportInput<'_>) -> String {
    let ok: Vec<Option<&CriterionResult>> = input
        .results
        .iter()
        .map(|r| r.as_ref().and_then(|r| r.as_ref().ok().copied()))
        .collect();
    let (weights, overall) = weigh(&ok, input.gamma);
    let criteria = Criterion::ALL
        .iter()
        .zip(&input.results)
        .zip(weights)
        .map(|((c, r), weight)| {
            let result = r.as_ref().and_then(|r| r.as_ref().ok().copied());
            let error = r
                .as_ref()
                .and_then(|r| r.as_ref().err())
                .map(String::as_str);
            CriterionDoc {
                name: c.id(),
                distribution: result.map(|r| r.distribution),
                score: result.map(|r| r.score),
                sigma: result.and_then(|r| r.sigma),
                weight,
                coverage: result.and_then(|r| r.coverage),
                smoothed: result.map(|r| r.is_smoothed()),
                usage: result.and_then(|r| r.usage),
                answer: result.map(|r| r.answer.as_str()),
                error,
                doubts: result
                    .map(|r| r.doubts.iter().map(|d| d.code()).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    let doc = Doc {
        metric: INFO.id,
        gamma: input.gamma,
        task: input.task.id(),
        text: input.text,
        question: input.question,
        judge: JudgeDoc::of(input.backend, input.fidelity),
        settings: {
            let probe = Input {
                task: input.task,
                fidelity: input.fidelity.clone(),
                ..Input::default()
            };
            let sent = input.backend.sends(ChatParams::RATING);
            Settings {
                temperature: sent.temperature,
                top_logprobs: sent.top_logprobs,
                max_tokens: sent.max_tokens,
                image_detail: detail_sent(&probe, input.backend.image_detail).id(),
                criteria: input.criteria.ids(),
            }
        },
        criteria,
        overall,
    };
    serde_json::to_string_pretty(&doc).expect("plain data serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_has_the_documented_shape_and_no_key() {
        let r = CriterionResult {
            distribution: [0.0, 0.0, 0.0, 0.05, 0.95],
            score: 4.95,
            sigma: Some(0.2179),
            coverage: Some(0.9),
            answer: "5".into(),
            usage: None,
            doubts: vec![crate::answers::doubt::Doubt::Truncated],
        };
        let backend = Backend {
            base_url: "https://user:hunter2@api.openai.com/v1".into(),
            model: "gpt-4o".into(),
            api_key: "sk-very-secret".into(),
            ..Backend::default()
        };
        let json = export_json(&ExportInput {
            gamma: 0.75,
            task: Task::Ic,
            text: "A dog.",
            question: "",
            backend: &backend,
            results: [Some(Ok(&r)), Some(Err("HTTP 401".into())), None, None, None],
            fidelity: &Fidelity::paper(),
            criteria: CriterionSet::default(),
        });
        assert!(!json.contains("sk-very-secret"));
        assert!(
            !json.contains("hunter2"),
            "a password in the base URL is never exported"
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["base_url"], "https://api.openai.com/v1");
        assert_eq!(v["metric"], "harmonic_eval");
        assert_eq!(v["gamma"], 0.75);
        assert_eq!(v["task"], "ic");
        assert_eq!(v["model"], "gpt-4o");
        assert_eq!(v["criteria"][0]["name"], "correctness");
        assert_eq!(v["criteria"][0]["weight"], 1.0);
        assert_eq!(v["criteria"][0]["distribution"][4], 0.95);
        assert_eq!(v["criteria"][1]["error"], "HTTP 401");
        assert!(v["criteria"][1].get("score").is_none());
        assert_eq!(v["overall"], 4.95);
        assert_eq!(v["criteria"][0]["doubts"][0], "truncated");
        assert_eq!(v["fidelity"], "paper");
        assert_eq!(v["extensions"], serde_json::json!([]));
        assert_eq!(v["settings"]["image_detail"], "auto");
        assert_eq!(v["settings"]["criteria"].as_array().unwrap().len(), 5);
    }

    #[test]
    fn export_records_the_extensions_and_tchosen_criteria_subset() {
        let backend = Backend {
            base_url: "http://h/v1".into(),
            model: "gpt-4o".into(),
            ..Backend::default()
        };
        let fidelity =
            Fidelity::paper().with(crate::metrics::fidelity::Extension::HeLowDetail, true);
        let json = export_json(&ExportInput {
            gamma: 0.75,
            task: Task::Ic,
            text: "A dog.",
            question: "",
            backend: &backend,
            results: [None, None, None, None, None],
            fidelity: &fidelity,
            criteria: CriterionSet::table7(),
        });
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["fidelity"], "extended");
        assert_eq!(v["extensions"], serde_json::json!(["he-low-detail"]));
        assert_eq!(v["settings"]["image_detail"], "low");
        assert_eq!(
            v["settings"]["criteria"],
            serde_json::json!(["correctness", "completeness"])
        );
    }

    /// The export records the alternatives the engine was actually asked for: 64 in the page
    /// (what `in_browser::prepare_chat` makes of the request's 20), the 20 sent elsewhere.
    #[test]
    fn export_records_the_alternatives_the_engine_was_sent() {
        use crate::providers::in_browser;
        for (base_url, expected) in [(in_browser::BASE_URL, 64), ("http://127.0.0.1:8080/v1", 20)] {
            let backend = Backend {
                base_url: base_url.into(),
                model: "local".into(),
                ..Backend::default()
            };
            let input = Input {
                text: "A dog.".into(),
                ..Input::default()
            };
            let req =
                super::super::criterion_request(&backend, Criterion::Fluency, &input).unwrap();
            let body = if in_browser::handles(&req.url) {
                in_browser::prepare_chat(&req.body, true).unwrap()
            } else {
                req.body.clone()
            };
            let sent: serde_json::Value = serde_json::from_str(&body).unwrap();
            let json = export_json(&ExportInput {
                gamma: 0.75,
                task: Task::Ic,
                text: "A dog.",
                question: "",
                backend: &backend,
                results: [None, None, None, None, None],
                fidelity: &Fidelity::paper(),
                criteria: CriterionSet::default(),
            });
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(sent["top_logprobs"], expected, "{base_url}");
            assert_eq!(
                v["settings"]["top_logprobs"], sent["top_logprobs"],
                "{base_url}"
            );
            assert_eq!(
                v["settings"]["max_tokens"], sent["max_tokens"],
                "{base_url}"
            );
        }
    }
}
