//! A lab record made by `Plan::read` from real wire-format answers, turned into a document
//! and read back by the evaluator's reader: the same score, at every named γ for HarmonicEval.

use super::*;
use crate::batch::plan::{MaevSettings, Plan};
use crate::batch::{Human, Item};
use crate::completion::parse_chat_completion;
use crate::gamma_axis::TICKS;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::harmonic_eval::{self, CriterionSet};
use crate::metrics::{g_veval, maev};
use crate::providers::Backend;
use crate::result_file::{self, Body};
use crate::task::Task;

fn backend() -> Backend {
    Backend {
        base_url: "http://h/v1".into(),
        model: "judge-m".into(),
        api_key: "sk-secret-key".into(),
        ..Backend::default()
    }
}

fn plan(metric: Metric) -> Plan {
    Plan {
        metric,
        fidelity: Fidelity::paper(),
        he_criteria: CriterionSet::default(),
        gv_mode: g_veval::Mode::RefFree,
        maev: MaevSettings {
            trials: 3,
            threshold: 1.25,
            seed: 7,
            pool: maev::default_pool(),
        },
    }
}

fn item() -> Item {
    Item {
        line: 2,
        id: "a".into(),
        task: Task::Vqa,
        text: "A dog.".into(),
        question: Some("What is shown?".into()),
        references: vec!["A dog on grass.".into()],
        image: Some("a.png".into()),
        bbox: None,
        human: Human::default(),
        group: None,
        chosen: false,
        caption: Some("A dog on grass.".into()),
        reference_answer: Some("A dog.".into()),
    }
}

/// An OpenAI answer whose tokens each carry their alternatives (`(token, p)`, the first chosen).
fn answer(steps: &[&[(&str, f64)]]) -> String {
    let content: String = steps.iter().map(|s| s[0].0).collect();
    let lp: Vec<serde_json::Value> = steps
        .iter()
        .map(|s| {
            let top: Vec<_> = s.iter().map(|(t, p)| json!({"token": t, "logprob": p.ln()})).collect();
            json!({"token": s[0].0, "logprob": s[0].1.ln(), "top_logprobs": top})
        })
        .collect();
    json!({"choices": [{"message": {"content": content}, "logprobs": {"content": lp}}]}).to_string()
}

fn read_back(r: &ItemResult, gamma: f64) -> result_file::Opened {
    let doc = document(r, gamma).unwrap();
    assert!(!doc.contains("sk-secret-key"), "the key never goes into the document");
    result_file::read(&doc).unwrap()
}

fn say(e: crate::errors::JudgeError) -> String {
    e.to_string()
}

#[test]
fn a_harmonic_record_opens_with_the_same_overall_at_every_named_gamma() {
    let p = plan(Metric::HarmonicEval);
    let ratings: [&[(&str, f64)]; 5] = [
        &[("4", 0.6), ("5", 0.2), ("3", 0.15)],
        &[("5", 0.9), ("4", 0.05)],
        &[("2", 0.5), ("3", 0.3), ("1", 0.1)],
        &[("3", 0.4), ("4", 0.4), ("2", 0.1)],
        &[("4", 0.7), ("5", 0.25)],
    ];
    let answers = crate::criteria::Criterion::ALL
        .iter()
        .zip(ratings)
        .map(|(c, steps)| (c.id().to_string(), parse_chat_completion(&answer(&[steps]))))
        .collect();
    let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
    let kept = r.kept.as_deref().unwrap();
    assert_eq!((kept.model.as_str(), kept.provider.as_str()), ("judge-m", "openai"));
    assert!(r.criteria.iter().all(|c| c.coverage.is_some()));
    for gamma in TICKS {
        let opened = read_back(&r, gamma);
        assert_eq!((opened.model.as_str(), opened.metric.as_str()), ("judge-m", "harmonic_eval"));
        let Body::Harmonic(h) = opened.body else { panic!("not HarmonicEval") };
        assert_eq!((h.text.as_str(), h.question.as_str(), h.task), ("A dog.", "What is shown?", Task::Vqa));
        assert_eq!(h.gamma, gamma);
        let ok: Vec<Option<&harmonic_eval::CriterionResult>> =
            h.results.iter().map(|x| x.as_ref().and_then(|x| x.as_ref().ok())).collect();
        let (_, overall) = harmonic_eval::weigh(&ok, gamma);
        let (lab, evaluator) = (r.overall(gamma).unwrap(), overall.unwrap());
        assert!((lab - evaluator).abs() < 1e-12, "γ {gamma}: lab {lab} vs evaluator {evaluator}");
    }
}

#[test]
fn a_failed_criterion_opens_as_failed_and_the_rest_still_count() {
    let p = plan(Metric::HarmonicEval);
    let answers = vec![
        ("correctness".to_string(), parse_chat_completion(&answer(&[&[("4", 0.6), ("5", 0.3)]]))),
        ("fluency".to_string(), Err(crate::errors::JudgeError::Timeout { seconds: 5 })),
    ];
    let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
    let Body::Harmonic(h) = read_back(&r, 0.5).body else { panic!("not HarmonicEval") };
    use crate::criteria::Criterion;
    assert!(matches!(h.results[Criterion::Correctness.index()], Some(Ok(_))));
    assert!(matches!(h.results[Criterion::Fluency.index()], Some(Err(_))), "fluency's error comes back");
    assert_eq!(h.results[Criterion::Clarity.index()], None, "a criterion not run stays not run");
}

#[test]
fn fleur_gveval_and_maev_records_open_with_the_labs_score() {
    let fleur_answer = answer(&[&[("0", 1.0)], &[(".", 1.0)], &[("8", 0.7), ("7", 0.2)], &[("5", 0.6), ("0", 0.3)]]);
    let gveval_answer = json!({"choices": [{"message": {"content": "Looks right. The final score is $85$."}}]}).to_string();
    let maev_answer = |n: u8| {
        json!({"choices": [{"message": {"content": format!("Evidence: fine. Assistant Score: {n}")}}]}).to_string()
    };
    let cases: [(Metric, Vec<(String, String)>); 4] = [
        (Metric::Fleur, vec![("score".into(), fleur_answer.clone())]),
        (Metric::RefFleur, vec![("score".into(), fleur_answer)]),
        (Metric::GVeval, vec![("score".into(), gveval_answer)]),
        (
            Metric::Maev,
            vec![("trial-0".into(), maev_answer(2)), ("trial-1".into(), maev_answer(0)), ("trial-2".into(), maev_answer(2))],
        ),
    ];
    for (metric, raw) in cases {
        let p = plan(metric);
        let answers = raw.iter().map(|(s, a)| (s.clone(), parse_chat_completion(a))).collect();
        let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
        let lab = r.score.unwrap_or_else(|| panic!("{metric:?}: {:?}", r.error));
        let opened = read_back(&r, 0.75);
        assert_eq!(opened.model, "judge-m", "{metric:?}");
        let evaluator = match opened.body {
            Body::Fleur(f) => {
                assert_eq!(f.input.caption, "A dog.");
                assert_eq!(f.input.references.is_some(), metric == Metric::RefFleur);
                f.result.smoothed.score
            }
            Body::Gveval(g) => {
                assert_eq!(g.input.caption, "A dog.");
                g.result.score
            }
            Body::Maev(m) => {
                assert_eq!((m.input.answer.as_str(), m.input.question.as_str()), ("A dog.", "What is shown?"));
                assert_eq!(m.trials.len(), 3);
                let scores: Vec<f64> = m.trials.iter().filter_map(|(_, t)| t.as_ref().ok()).map(|t| t.score).collect();
                maev::aggregate(&scores, m.input.threshold).unwrap().0
            }
            other => panic!("{metric:?} opened as {other:?}"),
        };
        assert!((lab - evaluator).abs() < 1e-12, "{metric:?}: lab {lab} vs evaluator {evaluator}");
        assert!(!r.kept.as_ref().unwrap().reading.contains("\"caption\":\"A dog.\"") || metric == Metric::Maev);
    }
}

#[test]
fn older_records_and_failed_items_get_a_sentence() {
    let p = plan(Metric::HarmonicEval);
    let answers = vec![("correctness".to_string(), parse_chat_completion(&answer(&[&[("4", 0.6), ("5", 0.3)]])))];
    let mut r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
    // As stored before: no kept part, and no coverage.
    let mut old = r.clone();
    old.kept = None;
    assert_eq!(document(&old, 0.5), Err(OLDER_RECORD.to_string()));
    r.criteria[0].coverage = None;
    assert_eq!(document(&r, 0.5), Err(OLDER_RECORD.to_string()));
    let mut fleur = ItemResult { metric: "fleur".into(), score: Some(0.8), ..ItemResult::default() };
    assert_eq!(document(&fleur, 0.5), Err(OLDER_RECORD.to_string()));
    fleur.score = None;
    fleur.error = Some("HTTP 500".into());
    assert!(document(&fleur, 0.5).unwrap_err().contains("no score"));
    let odd = ItemResult { metric: "bleu".into(), score: Some(1.0), ..ItemResult::default() };
    assert!(document(&odd, 0.5).unwrap_err().contains("bleu"));
    // An old record still reads from its stored JSON.
    let json = r#"{"id":"x","metric":"fleur","score":0.5}"#;
    let back: ItemResult = serde_json::from_str(json).unwrap();
    assert_eq!((back.kept, back.score), (None, Some(0.5)));
}
