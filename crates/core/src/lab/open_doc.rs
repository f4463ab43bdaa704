//! Opening a lab result in the evaluator ("Open in evaluator"): an item's stored record
//! ([`ItemResult`] with its [`Kept`](super::record::Kept)) turned back into the evaluator's
//! export document, which the evaluator reads like any opened file (`result_file::read`,
//! where every number is recomputed from the stored distributions and checked). Records
//! stored before the lab kept what that needs get a sentence saying so instead.

use serde_json::Value;

use super::ItemResult;
use crate::metrics::room::Stored;
use crate::metrics::{with_room, Metric};

pub use crate::metrics::room::{reading_of, OLDER_RECORD};

/// The key under which a metric's export holds the judged text.
fn text_key(m: Metric) -> &'static str {
    m.info().text_key
}

/// The hand-over from the lab to the evaluator: the lab writes the document under
/// [`handover_key`] in `localStorage` and opens the evaluator (`../` from `lab/`) + [`FRAGMENT`] +
/// the nonce; the evaluator reads the key once and forgets it. The key, the fragment and the
/// document never hold the API key.
pub const FRAGMENT: &str = "#from-lab=";

/// Where the document waits for the evaluator.
pub fn handover_key(nonce: &str) -> String {
    format!("hj.open.{nonce}")
}

/// A nonce from the time it is made (`now_secs`, Unix seconds) and a random number in [0, 1):
/// sixteen hex digits, the time first, so a hand-over no tab ever took can be told apart as old
/// ([`stale_handovers`]).
pub fn nonce(now_secs: f64, random: f64) -> String {
    let secs = now_secs.clamp(0.0, f64::from(u32::MAX)) as u32;
    format!(
        "{secs:08x}{:08x}",
        (random.clamp(0.0, 1.0) * f64::from(u32::MAX)) as u32
    )
}

/// How long a hand-over waits for its tab: a blocked pop-up leaves a link, which a person may
/// follow a while later, but not days later.
pub const HANDOVER_KEPT_SECS: u32 = 24 * 60 * 60;

/// Which of `keys` (a `localStorage`'s) are hand-overs that no tab took in
/// [`HANDOVER_KEPT_SECS`]: removed before a new one is written, so a document with its thumbnail
/// does not stay on the device for good when its tab never opened. A nonce without its time
/// (eight digits, written before the time was part of it) counts as old.
pub fn stale_handovers(keys: &[String], now_secs: f64) -> Vec<String> {
    let prefix = handover_key("");
    keys.iter()
        .filter(|k| {
            let Some(n) = k.strip_prefix(&prefix) else {
                return false;
            };
            let made = (n.len() == 16)
                .then(|| u32::from_str_radix(&n[..8], 16).ok())
                .flatten();
            made.is_none_or(|t| now_secs - f64::from(t) > f64::from(HANDOVER_KEPT_SECS))
        })
        .cloned()
        .collect()
}

/// The nonce of an evaluator URL's fragment made by the lab (`#from-lab=<nonce>`); `None`
/// for any other fragment, or a nonce that is not 1 to 16 lowercase hex digits.
pub fn handover_nonce(fragment: &str) -> Option<&str> {
    let n = fragment.strip_prefix(FRAGMENT)?;
    (!n.is_empty()
        && n.len() <= 16
        && n.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
    .then_some(n)
}

/// The evaluator's sentence when the lab's hand-over is not there (opened twice, or storage off).
pub const HANDOVER_GONE: &str = "The result sent from the lab is no longer here (it is read once, and this browser may not keep storage): press Open in evaluator in the lab again.";

/// Whether the evaluator can open `r`, or the sentence saying why not (cheap: no document is
/// made; [`document`] agrees with it).
pub fn openable(r: &ItemResult) -> Result<Metric, String> {
    let metric = Metric::from_id(&r.metric).ok_or_else(|| {
        format!(
            "This result's metric \u{201c}{}\u{201d} is not one the evaluator knows.",
            r.metric
        )
    })?;
    if r.is_failed() {
        return Err("This item has no score, so there is nothing to open in the evaluator.".into());
    }
    let kept = r.kept.as_deref().ok_or_else(|| OLDER_RECORD.to_string())?;
    let complete = with_room!(metric, M => M::openable(&stored(r, kept, None)));
    complete
        .then_some(metric)
        .ok_or_else(|| OLDER_RECORD.to_string())
}

/// What opening `r` reads of its record (`overall`: its overall score at the γ it is opened at).
fn stored<'a>(
    r: &'a ItemResult,
    kept: &'a super::record::Kept,
    overall: Option<f64>,
) -> Stored<'a> {
    Stored {
        task: &r.task,
        criteria: &r.criteria,
        fidelity: r.fidelity.as_deref(),
        extensions: &r.extensions,
        overall,
        question: kept.question.as_deref(),
        coverage: &kept.coverage,
        reading: &kept.reading,
    }
}

/// Where an opened lab result came from, for the evaluator's note (`source`).
pub fn source(r: &ItemResult, dataset: &str, with_image: bool) -> String {
    let image = if with_image {
        "the image is a thumbnail of the lab's file"
    } else {
        "the image is not carried (the lab holds no image file for it now)"
    };
    let from = if dataset.is_empty() {
        String::new()
    } else {
        format!(" of {dataset}")
    };
    format!("Item {}{from}, judged in the lab; {image}.", r.id)
}

/// The evaluator's export document of `r` at `gamma` (HarmonicEval's overall is weighed at
/// it), or a sentence saying why the item cannot be opened in the evaluator.
pub fn document(r: &ItemResult, gamma: f64) -> Result<String, String> {
    let metric = openable(r)?;
    let kept = r.kept.as_deref().ok_or_else(|| OLDER_RECORD.to_string())?;
    let mut doc =
        with_room!(metric, M => M::document(&stored(r, kept, r.scored_overall(gamma)), gamma))?;
    doc.insert("metric".into(), Value::from(metric.id()));
    doc.insert("model".into(), Value::from(kept.model.as_str()));
    doc.insert("provider".into(), Value::from(kept.provider.as_str()));
    doc.insert(text_key(metric).into(), Value::from(r.text.as_str()));
    serde_json::to_string(&Value::Object(doc)).map_err(|_| OLDER_RECORD.to_string())
}

#[cfg(test)]
mod tests {
    //! A lab record made by `Plan::read` from real wire-format answers, turned into a document
    //! and read back by the evaluator's reader: the same score, at every named γ for HarmonicEval.
    use super::*;
    use crate::answers::completion::parse_chat_completion;
    use crate::batch::plan::{test_plan as plan, Plan};
    use crate::batch::{Human, Item};
    use crate::files::result_file::{self, Body};
    use crate::metrics::harmonic_eval;
    use crate::metrics::maev;
    use crate::metrics::Reopened;
    use crate::providers::Backend;
    use crate::scoring::gamma_axis::TICKS;
    use crate::scoring::task::Task;
    use serde_json::json;

    fn backend() -> Backend {
        Backend {
            base_url: "http://h/v1".into(),
            model: "judge-m".into(),
            api_key: "sk-secret-key".into(),
            ..Backend::default()
        }
    }

    /// The core's test item, without its human rating and group.
    fn item() -> Item {
        Item {
            human: Human::default(),
            group: None,
            chosen: false,
            ..crate::batch::plan::test_item()
        }
    }

    /// An OpenAI answer whose tokens each carry their alternatives (`(token, p)`, the first chosen).
    fn answer(steps: &[&[(&str, f64)]]) -> String {
        let content: String = steps.iter().map(|s| s[0].0).collect();
        let lp: Vec<serde_json::Value> = steps
            .iter()
            .map(|s| {
                let top: Vec<_> = s
                    .iter()
                    .map(|(t, p)| json!({"token": t, "logprob": p.ln()}))
                    .collect();
                json!({"token": s[0].0, "logprob": s[0].1.ln(), "top_logprobs": top})
            })
            .collect();
        json!({"choices": [{"message": {"content": content}, "logprobs": {"content": lp}}]})
            .to_string()
    }

    fn read_back(r: &ItemResult, gamma: f64) -> result_file::Opened {
        let doc = document(r, gamma).unwrap();
        assert!(
            !doc.contains("sk-secret-key"),
            "the key never goes into the document"
        );
        result_file::read(&doc).unwrap()
    }

    fn say(e: crate::answers::errors::JudgeError) -> String {
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
        let answers = crate::scoring::criteria::Criterion::ALL
            .iter()
            .zip(ratings)
            .map(|(c, steps)| (c.id().to_string(), parse_chat_completion(&answer(&[steps]))))
            .collect();
        let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
        let kept = r.kept.as_deref().unwrap();
        assert_eq!(
            (kept.model.as_str(), kept.provider.as_str()),
            ("judge-m", "openai")
        );
        assert!(r
            .criteria
            .iter()
            .all(|c| kept.coverage.contains_key(&c.name)));
        for gamma in TICKS {
            let opened = read_back(&r, gamma);
            assert_eq!(
                (opened.model.as_str(), opened.metric.as_str()),
                ("judge-m", "harmonic_eval")
            );
            let Body::Single(Reopened::HarmonicEval(h)) = opened.body else {
                panic!("not HarmonicEval")
            };
            assert_eq!(
                (h.text.as_str(), h.question.as_str(), h.task),
                ("A dog.", "What is shown?", Task::Vqa)
            );
            assert_eq!(h.gamma, gamma);
            let ok: Vec<Option<&harmonic_eval::CriterionResult>> = h
                .results
                .iter()
                .map(|x| x.as_ref().and_then(|x| x.as_ref().ok()))
                .collect();
            let (_, overall) = harmonic_eval::weigh(&ok, gamma);
            let (lab, evaluator) = (r.overall(gamma).unwrap(), overall.unwrap());
            assert!(
                (lab - evaluator).abs() < 1e-12,
                "γ {gamma}: lab {lab} vs evaluator {evaluator}"
            );
        }
    }

    #[test]
    fn a_failed_criterion_opens_as_failed_and_the_rest_still_count() {
        let p = plan(Metric::HarmonicEval);
        let answers = vec![
            (
                "correctness".to_string(),
                parse_chat_completion(&answer(&[&[("4", 0.6), ("5", 0.3)]])),
            ),
            (
                "fluency".to_string(),
                Err(crate::answers::errors::JudgeError::Timeout { seconds: 5 }),
            ),
        ];
        let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
        let Body::Single(Reopened::HarmonicEval(h)) = read_back(&r, 0.5).body else {
            panic!("not HarmonicEval")
        };
        use crate::scoring::criteria::Criterion;
        assert!(matches!(
            h.results[Criterion::Correctness.index()],
            Some(Ok(_))
        ));
        assert!(
            matches!(h.results[Criterion::Fluency.index()], Some(Err(_))),
            "fluency's error comes back"
        );
        assert_eq!(
            h.results[Criterion::Clarity.index()],
            None,
            "a criterion not run stays not run"
        );
    }

    #[test]
    fn fleur_gveval_and_maev_records_open_with_the_labs_score() {
        let fleur_answer = answer(&[
            &[("0", 1.0)],
            &[(".", 1.0)],
            &[("8", 0.7), ("7", 0.2)],
            &[("5", 0.6), ("0", 0.3)],
        ]);
        let gveval_answer =
            json!({"choices": [{"message": {"content": "Looks right. The final score is $85$."}}]})
                .to_string();
        let maev_answer = |n: u8| {
            json!({"choices": [{"message": {"content": format!("Evidence: fine. Assistant Score: {n}")}}]}).to_string()
        };
        let cases: [(Metric, Vec<(String, String)>); 4] = [
            (Metric::Fleur, vec![("score".into(), fleur_answer.clone())]),
            (Metric::RefFleur, vec![("score".into(), fleur_answer)]),
            (Metric::GVeval, vec![("score".into(), gveval_answer)]),
            (
                Metric::Maev,
                vec![
                    ("trial-0".into(), maev_answer(2)),
                    ("trial-1".into(), maev_answer(0)),
                    ("trial-2".into(), maev_answer(2)),
                ],
            ),
        ];
        for (metric, raw) in cases {
            let p = plan(metric);
            let answers = raw
                .iter()
                .map(|(s, a)| (s.clone(), parse_chat_completion(a)))
                .collect();
            let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
            let lab = r
                .score
                .unwrap_or_else(|| panic!("{metric:?}: {:?}", r.error));
            let opened = read_back(&r, 0.75);
            assert_eq!(opened.model, "judge-m", "{metric:?}");
            let evaluator = match opened.body {
                Body::Single(Reopened::Fleur(f) | Reopened::RefFleur(f)) => {
                    assert_eq!(f.input.caption, "A dog.");
                    assert_eq!(f.input.references.is_some(), metric == Metric::RefFleur);
                    f.result.smoothed.score
                }
                Body::Single(Reopened::GVeval(g)) => {
                    assert_eq!(g.input.caption, "A dog.");
                    g.result.score
                }
                Body::Single(Reopened::Maev(m)) => {
                    assert_eq!(
                        (m.input.answer.as_str(), m.input.question.as_str()),
                        ("A dog.", "What is shown?")
                    );
                    assert_eq!(m.trials.len(), 3);
                    let scores: Vec<f64> = m
                        .trials
                        .iter()
                        .filter_map(|(_, t)| t.as_ref().ok())
                        .map(|t| t.score)
                        .collect();
                    maev::aggregate(&scores, m.input.threshold).unwrap().0
                }
                other => panic!("{metric:?} opened as {other:?}"),
            };
            assert!(
                (lab - evaluator).abs() < 1e-12,
                "{metric:?}: lab {lab} vs evaluator {evaluator}"
            );
            assert!(
                !r.kept
                    .as_ref()
                    .unwrap()
                    .reading
                    .contains("\"caption\":\"A dog.\"")
                    || metric == Metric::Maev
            );
        }
    }

    #[test]
    fn older_records_and_failed_items_get_a_sentence() {
        let p = plan(Metric::HarmonicEval);
        let answers = vec![(
            "correctness".to_string(),
            parse_chat_completion(&answer(&[&[("4", 0.6), ("5", 0.3)]])),
        )];
        let mut r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
        // As stored before: no kept part, and no coverage.
        let mut old = r.clone();
        old.kept = None;
        assert_eq!(document(&old, 0.5), Err(OLDER_RECORD.to_string()));
        assert_eq!(openable(&old), Err(OLDER_RECORD.to_string()));
        assert_eq!(openable(&r), Ok(Metric::HarmonicEval));
        r.kept.as_mut().unwrap().coverage.clear();
        assert_eq!(document(&r, 0.5), Err(OLDER_RECORD.to_string()));
        assert_eq!(openable(&r), Err(OLDER_RECORD.to_string()));
        let mut fleur = ItemResult {
            metric: "fleur".into(),
            score: Some(0.8),
            ..ItemResult::default()
        };
        assert_eq!(document(&fleur, 0.5), Err(OLDER_RECORD.to_string()));
        fleur.score = None;
        fleur.error = Some("HTTP 500".into());
        assert!(document(&fleur, 0.5).unwrap_err().contains("no score"));
        let odd = ItemResult {
            metric: "bleu".into(),
            score: Some(1.0),
            ..ItemResult::default()
        };
        assert!(document(&odd, 0.5).unwrap_err().contains("bleu"));
        // An old record still reads from its stored JSON.
        let json = r#"{"id":"x","metric":"fleur","score":0.5}"#;
        let back: ItemResult = serde_json::from_str(json).unwrap();
        assert_eq!((back.kept, back.score), (None, Some(0.5)));
    }

    /// The stored JSON of a record with and without what opening needs (IndexedDB holds it
    /// as JSON text): printed for the report, bounded so that a change that bloats it fails.
    #[test]
    fn what_a_record_keeps_for_the_evaluator_is_small() {
        let he = plan(Metric::HarmonicEval);
        let five: Vec<(String, _)> = crate::scoring::criteria::Criterion::ALL
            .iter()
            .map(|c| {
                (
                    c.id().to_string(),
                    parse_chat_completion(&answer(&[&[("4", 0.6), ("5", 0.2), ("3", 0.15)]])),
                )
            })
            .collect();
        let fleur_answer = answer(&[
            &[("0", 1.0)],
            &[(".", 1.0)],
            &[("8", 0.7), ("7", 0.2)],
            &[("5", 0.6), ("0", 0.3)],
        ]);
        let gv =
            json!({"choices": [{"message": {"content": "Looks right. The final score is $85$."}}]})
                .to_string();
        let trial = |n: u8| {
            json!({"choices": [{"message": {"content": format!("Evidence: fine. Assistant Score: {n}")}}]}).to_string()
        };
        // A plan, its answers by slot (none: HarmonicEval's five), the bound in bytes.
        type Run = (Plan, Vec<(String, String)>, usize);
        let runs: [Run; 4] = [
            (he, Vec::new(), 250),
            (
                plan(Metric::Fleur),
                vec![("score".into(), fleur_answer)],
                700,
            ),
            (plan(Metric::GVeval), vec![("score".into(), gv)], 600),
            (
                plan(Metric::Maev),
                (0..3).map(|i| (format!("trial-{i}"), trial(2))).collect(),
                900,
            ),
        ];
        for (p, raw, bound) in runs {
            let answers = if raw.is_empty() {
                five.iter().map(|(s, a)| (s.clone(), a.clone())).collect()
            } else {
                raw.iter()
                    .map(|(s, a)| (s.clone(), parse_chat_completion(a)))
                    .collect()
            };
            let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
            let mut old = r.clone();
            old.kept = None;
            let (before, after) = (
                serde_json::to_string(&old).unwrap().len(),
                serde_json::to_string(&r).unwrap().len(),
            );
            println!(
                "{:?}: {before} B stored before, {after} B now (+{})",
                p.metric,
                after - before
            );
            assert!(
                after - before <= bound,
                "{:?} keeps {} B",
                p.metric,
                after - before
            );
        }
    }

    #[test]
    fn hand_overs_no_tab_took_within_a_day_are_stale_and_nothing_else_is() {
        let now = 1_795_000_000.0;
        let day = f64::from(HANDOVER_KEPT_SECS);
        let key = |age: f64| handover_key(&nonce(now - age, 0.25));
        let keys = vec![
            key(60.0),
            key(day - 1.0),
            key(day + 1.0),
            key(30.0 * day),
            handover_key("7fffffff"),
            "hj.gamma".to_string(),
            "hj.openai.model".to_string(),
        ];
        assert_eq!(
            stale_handovers(&keys, now),
            vec![keys[2].clone(), keys[3].clone(), keys[4].clone()]
        );
        assert!(stale_handovers(&[], now).is_empty());
    }

    #[test]
    fn the_hand_over_names_a_nonce_and_nothing_else() {
        let now = 1_795_000_000.0;
        let n = nonce(now, 0.5);
        assert_eq!(n, "6afd86c07fffffff");
        assert_eq!(nonce(now, 2.0), "6afd86c0ffffffff");
        assert_eq!(handover_nonce(&format!("{FRAGMENT}{n}")), Some(n.as_str()));
        assert_eq!(handover_key(&n), "hj.open.6afd86c07fffffff");
        for bad in [
            "#from-lab=",
            "#from-lab=XYZ",
            "#from-lab=../x",
            "#from-lab=00000000000000000",
            "#s=abc",
            "",
        ] {
            assert_eq!(handover_nonce(bad), None, "{bad}");
        }
        let r = ItemResult {
            id: "a".into(),
            ..ItemResult::default()
        };
        assert!(
            source(&r, "set.jsonl", true).contains("Item a of set.jsonl")
                && source(&r, "", true).contains("thumbnail")
        );
        assert!(source(&r, "", false).contains("not carried"));
    }
}
