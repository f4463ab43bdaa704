//! What leaves the page for a comparison: the JSON export (candidates, choice, agreement) and
//! the best-of-N group handed to the lab as results records (`group`, `chosen`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    agreement_ranges, agrees, differences, flip_points, order, ranges_text, ranks, scores_at,
};
use crate::lab::record::{CriterionRecord, ItemResult};
use crate::metrics::Metric;
use crate::scoring::weighting::{Scored, Weighed, Weighting};

/// One candidate as judged by a metric with γ: its label, text, and each criterion's outcome
/// (`None`: not run).
pub struct Judged<'a, C> {
    pub label: &'a str,
    pub text: &'a str,
    pub criteria: [Option<Result<&'a C, String>>; 5],
}

impl<C: Weighed> Judged<'_, C> {
    /// The scored criteria, as the aggregation wants them.
    pub fn scored(&self) -> Vec<Scored> {
        self.criteria
            .iter()
            .filter_map(|c| c.as_ref().and_then(|r| r.as_ref().ok()).map(|r| r.scored()))
            .collect()
    }
}

#[derive(Serialize)]
struct FlipDoc<'a> {
    gamma: f64,
    over: &'a str,
    under: &'a str,
}

#[derive(Serialize)]
struct AgreementDoc {
    at_gamma: Option<bool>,
    ranges: Vec<[f64; 2]>,
    ranges_text: String,
}

#[derive(Serialize)]
struct CandidateDoc<'a> {
    label: &'a str,
    text: &'a str,
    overall: Option<f64>,
    rank: Option<usize>,
    result: Value,
}

#[derive(Serialize)]
struct Doc<'a> {
    metric: &'static str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'a str>,
    gamma: f64,
    candidates: Vec<CandidateDoc<'a>>,
    ranking: Vec<&'a str>,
    flip_points: Vec<FlipDoc<'a>>,
    chosen: Option<&'a str>,
    agreement: Option<AgreementDoc>,
}

/// The comparison of a metric with γ (`metric`, its id; `w`, its weighting) as one JSON document (the export
/// file, and an entry of the lab's inbox). `singles[i]` is candidate i's own export (settings,
/// fidelity, every criterion; never the key), kept whole under `result`; `group` names it as
/// a best-of-N group.
pub fn comparison_json<C: Weighed>(
    metric: &'static str,
    w: &dyn Weighting,
    gamma: f64,
    judged: &[Judged<'_, C>],
    singles: &[String],
    chosen: Option<usize>,
    group: Option<&str>,
) -> String {
    let scored: Vec<Vec<Scored>> = judged.iter().map(Judged::scored).collect();
    let scores = scores_at(w, &scored, gamma);
    let rank = ranks(&scores);
    let label = |i: usize| judged.get(i).map_or("", |j| j.label);
    let flips = flip_points(w, &scored);
    let chosen = chosen.filter(|&c| c < judged.len());
    let doc = Doc {
        metric,
        kind: "candidates",
        group,
        gamma,
        candidates: judged
            .iter()
            .enumerate()
            .map(|(i, j)| CandidateDoc {
                label: j.label,
                text: j.text,
                overall: scores[i],
                rank: rank[i],
                result: singles
                    .get(i)
                    .and_then(|s| serde_json::from_str(s).ok())
                    .unwrap_or(Value::Null),
            })
            .collect(),
        ranking: order(&scores).into_iter().map(label).collect(),
        flip_points: flips
            .iter()
            .map(|f| FlipDoc {
                gamma: f.gamma,
                over: label(f.over),
                under: label(f.under),
            })
            .collect(),
        chosen: chosen.map(label),
        agreement: chosen.map(|c| {
            let ranges = agreement_ranges(w, &scored, &flips, c);
            AgreementDoc {
                at_gamma: agrees(&scores, c),
                ranges_text: ranges_text(&ranges),
                ranges: ranges.iter().map(|&(a, b)| [a, b]).collect(),
            }
        }),
    };
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// One candidate of a comparison for a metric without γ.
pub struct PlainJudged<'a> {
    pub label: &'a str,
    pub text: &'a str,
    pub score: Option<f64>,
    pub uncertainty: Option<f64>,
    /// The metric's own single-result export of this candidate (never the key).
    pub single: String,
}

/// The comparison of a metric without γ as one JSON document: each candidate's score,
/// uncertainty, rank and own export, the ranking, the differences against the judge's
/// uncertainty, the human's pick and whether the metric agrees.
pub fn plain_comparison_json(
    metric: &'static str,
    judged: &[PlainJudged<'_>],
    chosen: Option<usize>,
    group: Option<&str>,
) -> String {
    // Built as a `Value` rather than derived structs: its serialiser is in the wasm already
    // (share links), each derived one would add its own.
    let scores: Vec<Option<f64>> = judged.iter().map(|j| j.score).collect();
    let uncertainty: Vec<Option<f64>> = judged.iter().map(|j| j.uncertainty).collect();
    let rank = ranks(&scores);
    let label = |i: usize| Value::from(judged.get(i).map_or("", |j| j.label));
    let chosen = chosen.filter(|&c| c < judged.len());
    let obj = |pairs: Vec<(&str, Value)>| {
        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };
    let candidates = judged
        .iter()
        .enumerate()
        .map(|(i, j)| {
            obj(vec![
                ("label", j.label.into()),
                ("text", j.text.into()),
                ("score", j.score.into()),
                ("uncertainty", j.uncertainty.into()),
                ("rank", rank[i].into()),
                (
                    "result",
                    serde_json::from_str(&j.single).unwrap_or(Value::Null),
                ),
            ])
        })
        .collect::<Vec<Value>>();
    let ranking: Vec<Value> = order(&scores)
        .into_iter()
        .filter(|&i| scores[i].is_some())
        .map(label)
        .collect();
    let diffs: Vec<Value> = differences(&scores, &uncertainty)
        .iter()
        .map(|d| {
            obj(vec![
                ("higher", label(d.higher)),
                ("lower", label(d.lower)),
                ("diff", d.diff.into()),
                ("uncertainty", d.combined.into()),
                ("exceeds", d.exceeds.into()),
            ])
        })
        .collect();
    let mut fields = vec![("metric", metric.into()), ("kind", "candidates".into())];
    if let Some(g) = group {
        fields.push(("group", g.into()));
    }
    fields.extend([
        ("candidates", candidates.into()),
        ("ranking", ranking.into()),
        ("differences", diffs.into()),
        ("chosen", chosen.map_or(Value::Null, label)),
        ("agrees", chosen.and_then(|c| agrees(&scores, c)).into()),
    ]);
    serde_json::to_string_pretty(&obj(fields)).unwrap_or_default()
}

/// Adds one comparison (a [`comparison_json`] with a group) to the lab's inbox, a sequence of
/// JSON documents: what was already waiting is kept, so several comparisons make one dataset.
pub fn append_to_inbox(inbox: Option<&str>, comparison: &str) -> String {
    let mut out = inbox.unwrap_or_default().to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(comparison);
    out.push('\n');
    out
}

/// The storage key of the lab's inbox.
pub const INBOX_KEY: &str = "hj.lab.inbox";

#[derive(Deserialize)]
struct InDoc {
    /// Absent in the first comparisons sent, which were all HarmonicEval's.
    #[serde(default)]
    metric: Option<String>,
    group: String,
    chosen: Option<String>,
    candidates: Vec<InCandidate>,
}

#[derive(Deserialize)]
struct InCandidate {
    label: String,
    text: String,
    /// A metric without γ: its one score (HarmonicEval's come from the criteria).
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    result: Option<InResult>,
}

#[derive(Deserialize, Default)]
struct InResult {
    #[serde(default)]
    task: String,
    #[serde(default)]
    criteria: Vec<CriterionRecord>,
    #[serde(default)]
    fidelity: Option<String>,
    #[serde(default)]
    extensions: Vec<String>,
}

/// The lab's side of the hand-over: every comparison in the inbox as best-of-N groups of
/// results, and a sentence for what could not be read (reading stops at a broken document).
pub fn inbox_records(inbox: &str) -> (Vec<ItemResult>, Vec<String>) {
    let mut records = Vec::new();
    let mut problems = Vec::new();
    let stream = serde_json::Deserializer::from_str(inbox).into_iter::<InDoc>();
    for (i, doc) in stream.enumerate() {
        let doc = match doc {
            Ok(doc) => doc,
            Err(e) => {
                // Past a broken document the stream has lost its place: stop there.
                problems.push(format!("Comparison {}: not a comparison ({e}).", i + 1));
                break;
            }
        };
        let first = records.first().map(|r: &ItemResult| r.metric.clone());
        match group_records(doc) {
            Ok(r) if first.is_some() && r.first().map(|x| &x.metric) != first.as_ref() => {
                problems.push(format!(
                    "Comparison {}: made with another metric than the first ({}); left out, since the lab compares one metric at a time.",
                    i + 1,
                    first.unwrap_or_default()
                ))
            }
            Ok(r) => records.extend(r),
            Err(why) => problems.push(format!("Comparison {}: {why}.", i + 1)),
        }
    }
    (records, problems)
}

/// One comparison as one record per candidate (id `<group>-<label>`, `chosen` on the human's
/// pick; HarmonicEval's criteria with their σ and distributions, another metric's one score),
/// or why it cannot be one.
fn group_records(doc: InDoc) -> Result<Vec<ItemResult>, String> {
    let metric = doc
        .metric
        .unwrap_or_else(|| Metric::COMPARED_BY_DEFAULT.id().to_string());
    let weighs = Metric::from_id(&metric).is_some_and(Metric::weighs_criteria);
    let records: Vec<ItemResult> = doc
        .candidates
        .into_iter()
        .map(|c| {
            let result = c.result.unwrap_or_default();
            let mut r = ItemResult {
                id: format!("{}-{}", doc.group, c.label),
                metric: metric.clone(),
                task: result.task,
                text: c.text,
                // A criterion left out of the run is no failure.
                criteria: result
                    .criteria
                    .into_iter()
                    .filter(|c| weighs && (c.score.is_some() || c.error.is_some()))
                    .collect(),
                score: if weighs { None } else { c.score },
                group: Some(doc.group.clone()),
                chosen: doc.chosen.as_deref() == Some(c.label.as_str()),
                fidelity: result.fidelity,
                extensions: result.extensions,
                ..ItemResult::default()
            };
            if r.is_failed() {
                r.error = r
                    .criteria
                    .iter()
                    .find_map(|c| c.error.clone())
                    .or_else(|| Some("not scored".into()));
            }
            r
        })
        .collect();
    match records.iter().find_map(crate::lab::io::range_problem) {
        Some(why) => Err(why),
        None => Ok(records),
    }
}
