//! Candidates for the metrics without γ: scores and uncertainties in closed form, the
//! differences' sentences, the export and the lab's hand-over.

use super::export::{inbox_records, plain_comparison_json, PlainJudged};
use super::plain::{summary, Base, Part};
use super::plain_render::{differences_html, plain_table, PlainCell};
use super::{differences, Difference};
use crate::answers::completion::parse_chat_completion;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::fleur::smoothing::spec_vector::{P, Q};
use crate::metrics::g_veval::{self, GvevalResult, Method, Reading};
use crate::metrics::maev::{self, ScoreSource, TrialReading};
use crate::metrics::{fleur, Metric};
use crate::providers::Backend;

fn backend() -> Backend {
    Backend {
        base_url: "http://h/v1".into(),
        model: "m".into(),
        api_key: "sk-secret-plain".into(),
        ..Backend::default()
    }
}

fn fleur_base() -> Base {
    Base::Fleur(fleur::Input {
        caption: String::new(),
        references: None,
        image: Some(crate::providers::Image::new("image/jpeg", "/9j/")),
    })
}

fn maev_base(trials: u32) -> Base {
    Base::Maev(maev::Input {
        question: "What is in the image?".into(),
        caption: "A cat on a sofa.".into(),
        reference: "A cat sleeping on a sofa.".into(),
        answer: String::new(),
        trials,
        threshold: maev::DEFAULT_THRESHOLD,
        seed: 7,
        pool: maev::default_pool(),
        fidelity: Fidelity::paper(),
    })
}

/// An OpenAI completion printing `0.<tenths><hundredths>` one digit per token, with the
/// digit distributions `p` and `q` (the rest of the mass on `</s>`).
fn fleur_completion(tenths: usize, hundredths: usize, p: &[f64; 10], q: &[f64; 10]) -> String {
    let sure = |t: &str| {
        format!(
            r#"{{"token":"{t}","logprob":0.0,"top_logprobs":[{{"token":"{t}","logprob":0.0}}]}}"#
        )
    };
    let digits = |chosen: usize, d: &[f64; 10]| {
        let mut alts: Vec<String> = d
            .iter()
            .enumerate()
            .map(|(i, x)| format!(r#"{{"token":"{i}","logprob":{}}}"#, x.ln()))
            .collect();
        let rest = (1.0 - d.iter().sum::<f64>()).max(1e-9);
        alts.push(format!(r#"{{"token":"</s>","logprob":{}}}"#, rest.ln()));
        format!(
            r#"{{"token":"{chosen}","logprob":{},"top_logprobs":[{}]}}"#,
            d[chosen].ln(),
            alts.join(",")
        )
    };
    format!(
        r#"{{"choices":[{{"message":{{"content":"0.{tenths}{hundredths}"}},"logprobs":{{"content":[{},{},{},{}]}}}}]}}"#,
        sure("0"),
        sure("."),
        digits(tenths, p),
        digits(hundredths, q)
    )
}

/// Variance of a digit with probabilities `d`, the mass elsewhere counting as 0.
fn digit_var(d: &[f64; 10]) -> f64 {
    let m: f64 = d.iter().enumerate().map(|(i, p)| i as f64 * p).sum();
    let m2: f64 = d.iter().enumerate().map(|(i, p)| (i * i) as f64 * p).sum();
    m2 - m * m
}

#[test]
fn fleur_reads_the_specs_vector_with_its_spread() {
    let base = fleur_base().with_text("A dog.");
    let c = parse_chat_completion(&fleur_completion(8, 5, &P, &Q)).unwrap();
    let part = base.read(&c).unwrap();
    let (score, u) = summary(&[&part]);
    assert!((score.unwrap() - 0.806172).abs() < 5e-7);
    let expected = (0.01 * digit_var(&P) + 0.0001 * digit_var(&Q)).sqrt();
    assert!((u.unwrap() - expected).abs() < 1e-12, "{u:?} vs {expected}");
    assert!(u.unwrap() > 0.0 && u.unwrap() < 0.2);
    assert!(base.uncertainty_note().contains("our reading"));
}

#[test]
fn each_candidate_sends_its_own_text_and_maev_its_trials() {
    let base = fleur_base();
    assert_eq!(base.metric(), Metric::Fleur);
    let reqs = base.with_text("A brown dog.").requests(&backend()).unwrap();
    assert_eq!(reqs.len(), 1);
    assert!(reqs[0].request.body.contains("Caption: A brown dog."));
    assert!(base.with_text("x").problems().is_empty());
    assert!(!base.with_text("").problems().is_empty());

    let m = maev_base(3).with_text("A dog on a sofa.");
    assert_eq!(m.metric(), Metric::Maev);
    let reqs = m.requests(&backend()).unwrap();
    assert_eq!(reqs.len(), 3);
    let tags: Vec<_> = reqs.iter().map(|r| r.cache_tag.clone().unwrap()).collect();
    assert_eq!(tags, ["maev-trial-0", "maev-trial-1", "maev-trial-2"]);
    assert!(reqs
        .iter()
        .all(|r| r.request.body.contains("A dog on a sofa.")));
}

fn trial(score: f64) -> Part {
    Part::Maev(Box::new(TrialReading {
        evidence: "e".into(),
        printed: score as u8,
        score,
        source: ScoreSource::Printed,
        usage: None,
        doubts: Vec::new(),
    }))
}

#[test]
fn maev_mean_and_standard_error_over_the_trials_read() {
    let (a, b, c) = (trial(2.0), trial(2.0), trial(0.0));
    let (mean, se) = summary(&[&a, &b, &c]);
    // Mean 4/3; sample variance ((2/3)²·2 + (4/3)²)/2 = 4/3; standard error √(4/3 / 3) = 2/3.
    assert!((mean.unwrap() - 4.0 / 3.0).abs() < 1e-12);
    assert!((se.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    // One trial: a score, no uncertainty; none read: nothing.
    assert_eq!(summary(&[&a]), (Some(2.0), None));
    assert_eq!(summary(&[]), (None, None));
}

fn gveval(dist: Vec<(u32, f64)>, method: Method) -> Part {
    let score = dist.iter().map(|&(v, p)| f64::from(v) * p).sum();
    Part::GVeval(Box::new(GvevalResult {
        score,
        final_reading: Some(Reading {
            printed: 80,
            score,
            method,
            step: Some(3),
            distribution: dist,
            near_end: false,
            after_echo: false,
        }),
        accr: None,
        reasoning: String::new(),
        usage: None,
        doubts: Vec::new(),
    }))
}

#[test]
fn gveval_spread_of_the_integer_tokens_and_none_when_parsed() {
    // 80 and 90 at 0.5 each: mean 85, σ 5.
    let p = gveval(vec![(80, 0.5), (90, 0.5)], Method::IntegerTokens);
    let (s, u) = summary(&[&p]);
    assert!((s.unwrap() - 85.0).abs() < 1e-12);
    assert!((u.unwrap() - 5.0).abs() < 1e-12);
    let parsed = gveval(vec![], Method::Parsed);
    assert_eq!(summary(&[&parsed]).1, None);
    let _ = g_veval::Mode::RefFree;
}

fn diff(higher: usize, lower: usize, d: f64, combined: Option<f64>) -> Difference {
    Difference {
        higher,
        lower,
        diff: d,
        exceeds: combined.map(|c| d > c),
        combined,
    }
}

#[test]
fn difference_sentences_say_whether_the_judge_could_tell() {
    let labels: Vec<String> = ["A", "B", "<C>"].map(String::from).into();
    let html = differences_html(
        &labels,
        &[
            diff(1, 0, 0.31, Some(0.12)),
            diff(0, 2, 0.05, Some(0.12)),
            diff(2, 0, 10.0, None),
        ],
        2,
    );
    assert!(html.contains("B is ahead of A by 0.31, more than the judge&#39;s uncertainty 0.12."));
    assert!(html.contains(
        "A is ahead of &lt;C&gt; by 0.05, within the judge&#39;s uncertainty 0.12 \u{2014} not a reliable difference."
    ));
    assert!(html.contains("the metric gives no uncertainty"));
    assert!(html.contains("data-testid=\"difference-0\" data-diff=\"0.31\" data-uncertainty=\"0.12\" data-exceeds=\"yes\""));
    assert!(html.contains("data-testid=\"difference-1\" data-diff=\"0.05\" data-uncertainty=\"0.12\" data-exceeds=\"no\""));
    assert!(html.contains(
        "data-testid=\"difference-2\" data-diff=\"10\" data-uncertainty=\"\" data-exceeds=\"\""
    ));
    // The core's differences give the combined uncertainty √(u_a² + u_b²).
    let d = differences(&[Some(0.5), Some(0.9)], &[Some(0.3), Some(0.4)]);
    assert!((d[0].combined.unwrap() - 0.5).abs() < 1e-12);
    assert_eq!(d[0].exceeds, Some(false)); // 0.4 < 0.5
}

#[test]
fn the_table_ranks_and_escapes() {
    let labels: Vec<String> = ["<A>", "B"].map(String::from).into();
    let cell = |score: Option<f64>, u: Option<f64>, state| PlainCell {
        state,
        score,
        uncertainty: u,
        note: String::new(),
        error: None,
    };
    let mut failed = cell(None, None, "error");
    failed.error = Some("HTTP 500 <oops>".into());
    let html = plain_table(
        &labels,
        &[
            cell(Some(0.5), Some(0.05), "done"),
            cell(Some(0.75), None, "done"),
        ],
        3,
        "0 to 1",
    );
    assert!(html.contains("<th scope=\"row\">&lt;A&gt;</th><td data-testid=\"candidate-result-0\" data-state=\"done\" data-overall=\"0.5\" data-uncertainty=\"0.05\" data-rank=\"2\">0.500 ± 0.050</td>"));
    assert!(html.contains("data-testid=\"candidate-result-1\" data-state=\"done\" data-overall=\"0.75\" data-uncertainty=\"\" data-rank=\"1\">0.750</td>"));
    let html = plain_table(
        &labels,
        &[failed, cell(Some(0.75), None, "done")],
        3,
        "0 to 1",
    );
    assert!(html.contains("data-overall=\"\" data-uncertainty=\"\" data-rank=\"\">—"));
    assert!(html.contains("<li>&lt;A&gt;: HTTP 500 &lt;oops&gt;</li>"));
}

fn judged<'a>(
    label: &'a str,
    score: Option<f64>,
    u: Option<f64>,
    single: String,
) -> PlainJudged<'a> {
    PlainJudged {
        label,
        text: "t",
        score,
        uncertainty: u,
        single,
    }
}

#[test]
fn the_export_and_the_lab_get_scores_ranking_differences_and_the_pick() {
    let base = fleur_base().with_text("A dog.");
    let c = parse_chat_completion(&fleur_completion(8, 5, &P, &Q)).unwrap();
    let part = base.read(&c).unwrap();
    let single = base.export(&backend(), &[Some(Ok(&part))]);
    let failed = base.export(&backend(), &[Some(Err("HTTP 500".into()))]);
    let docs = [
        judged("A", Some(0.5), Some(0.01), single.clone()),
        judged("B", Some(0.806172), Some(0.02), single),
        judged("C", None, None, failed),
    ];
    let json = plain_comparison_json("fleur", &docs, Some(0), Some("g1"));
    assert!(!json.contains("sk-secret-plain"));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["metric"], "fleur");
    assert_eq!(v["ranking"], serde_json::json!(["B", "A"]));
    assert_eq!(v["chosen"], "A");
    // C has no score: whether the metric ranks A first cannot be said.
    assert_eq!(v["agrees"], serde_json::Value::Null);
    assert_eq!(v["differences"][0]["higher"], "B");
    assert_eq!(v["differences"][0]["exceeds"], true);
    assert_eq!(v["candidates"][1]["rank"], 1);
    assert_eq!(v["candidates"][1]["uncertainty"], 0.02);
    assert_eq!(v["candidates"][1]["result"]["metric"], "fleur");
    assert!(v["candidates"][2]["result"].is_object());

    // The lab: one record per candidate with its score, the pick marked; the unscored one failed.
    let (records, problems) = inbox_records(&json);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(records.len(), 3);
    assert!(records
        .iter()
        .all(|r| r.metric == "fleur" && r.criteria.is_empty()));
    assert_eq!(records[1].score, Some(0.806172));
    assert!(records[0].chosen && !records[1].chosen);
    assert!(records[2].is_failed() && records[2].error.is_some());

    // A second comparison of another metric is left out with a sentence.
    let other = plain_comparison_json(
        "g_veval",
        &[
            judged("A", Some(50.0), None, String::new()),
            judged("B", Some(60.0), None, String::new()),
        ],
        Some(1),
        Some("g2"),
    );
    let (records, problems) = inbox_records(&format!("{json}\n{other}\n"));
    assert_eq!(records.len(), 3);
    assert_eq!(problems.len(), 1);
    assert!(problems[0].contains("another metric"), "{problems:?}");
    let v: serde_json::Value = serde_json::from_str(&other).unwrap();
    assert_eq!(
        (v["ranking"].clone(), v["agrees"].clone()),
        (serde_json::json!(["B", "A"]), true.into())
    );
    assert_eq!(v["differences"][0]["exceeds"], serde_json::Value::Null);
}
