//! What leaves the page for a comparison: the JSON export (candidates, choice, agreement) and
//! the best-of-N group handed to the lab as results records (`group`, `chosen`).

use serde_json::{json, Value};

use super::{agreement_ranges, agrees, flip_points, order, ranges_text, ranks, scores_at};
use crate::aggregate::Scored;
use crate::criteria::Criterion;
use crate::lab::record::{CriterionRecord, ItemResult};
use crate::metrics::harmonic_eval::{CriterionResult, INFO};

/// One candidate as judged: its label, text, and each criterion's outcome (`None`: not run).
pub struct Judged<'a> {
    pub label: &'a str,
    pub text: &'a str,
    pub criteria: [Option<Result<&'a CriterionResult, String>>; 5],
}

impl Judged<'_> {
    /// The scored criteria, as the aggregation wants them.
    pub fn scored(&self) -> Vec<Scored> {
        self.criteria
            .iter()
            .filter_map(|c| c.as_ref().and_then(|r| r.as_ref().ok()).map(|r| r.scored()))
            .collect()
    }

    fn records(&self) -> Vec<CriterionRecord> {
        Criterion::ALL
            .iter()
            .zip(&self.criteria)
            .filter_map(|(c, r)| {
                let name = c.id().to_string();
                Some(match r.as_ref()? {
                    Ok(r) => CriterionRecord {
                        name,
                        score: Some(r.score),
                        sigma: r.sigma,
                        distribution: Some(r.distribution),
                        error: None,
                        doubts: r.doubts.iter().map(|d| d.code().to_string()).collect(),
                    },
                    Err(e) => CriterionRecord {
                        name,
                        score: None,
                        sigma: None,
                        distribution: None,
                        error: Some(e.clone()),
                        doubts: Vec::new(),
                    },
                })
            })
            .collect()
    }
}

/// The comparison as one JSON document. `singles[i]` is candidate i's own HarmonicEval export
/// (settings, fidelity, every criterion; never the key), kept whole under `result`.
pub fn comparison_json(
    gamma: f64,
    judged: &[Judged<'_>],
    singles: &[String],
    chosen: Option<usize>,
) -> String {
    let scored: Vec<Vec<Scored>> = judged.iter().map(Judged::scored).collect();
    let scores = scores_at(&scored, gamma);
    let rank = ranks(&scores);
    let labels: Vec<String> = judged.iter().map(|j| j.label.to_string()).collect();
    let flips = flip_points(&scored);
    let candidates: Vec<Value> = judged
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let result = singles
                .get(i)
                .and_then(|s| serde_json::from_str::<Value>(s).ok())
                .unwrap_or(Value::Null);
            json!({"label": j.label, "text": j.text, "overall": scores[i], "rank": rank[i], "result": result})
        })
        .collect();
    let agreement = chosen.filter(|&c| c < judged.len()).map(|c| {
        let ranges = agreement_ranges(&scored, &flips, c);
        json!({
            "at_gamma": agrees(&scores, c),
            "ranges": ranges.iter().map(|(a, b)| [a, b]).collect::<Vec<_>>(),
            "ranges_text": ranges_text(&ranges),
        })
    });
    let doc = json!({
        "metric": INFO.id,
        "kind": "candidates",
        "gamma": gamma,
        "candidates": candidates,
        "ranking": order(&scores).iter().map(|&i| labels[i].clone()).collect::<Vec<_>>(),
        "flip_points": flips.iter().map(|f| json!({"gamma": f.gamma, "over": labels[f.over], "under": labels[f.under]})).collect::<Vec<_>>(),
        "chosen": chosen.and_then(|c| labels.get(c)),
        "agreement": agreement,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// The comparison as one best-of-N group of lab results: one record per candidate, id
/// `<group>-<label>`, `chosen` on the human's pick (none marked when there is no pick).
pub fn lab_records(
    group: &str,
    task: &str,
    judged: &[Judged<'_>],
    chosen: Option<usize>,
    fidelity: &crate::metrics::fidelity::Fidelity,
) -> Vec<ItemResult> {
    judged
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let mut r = ItemResult {
                id: format!("{group}-{}", j.label),
                metric: INFO.id.to_string(),
                task: task.to_string(),
                text: j.text.to_string(),
                criteria: j.records(),
                group: Some(group.to_string()),
                chosen: chosen == Some(i),
                ..ItemResult::default()
            };
            r.set_fidelity(fidelity);
            if r.is_failed() {
                r.error = r.criteria.iter().find_map(|c| c.error.clone());
            }
            r
        })
        .collect()
}

/// Adds `records` to the lab's inbox (results JSONL the lab loads when it opens): what was
/// already waiting is kept, so several comparisons make one dataset.
pub fn append_to_inbox(inbox: Option<&str>, records: &[ItemResult]) -> String {
    let mut out = inbox.unwrap_or_default().to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&crate::lab::io::to_jsonl(
        records,
        crate::aggregate::GAMMA_DEFAULT,
    ));
    out
}

/// The storage key of the lab's inbox.
pub const INBOX_KEY: &str = "hj.lab.inbox";
