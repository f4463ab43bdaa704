//! Opening a lab result in the evaluator ("Open in evaluator"): an item's stored record
//! ([`ItemResult`] with its [`Kept`](super::record::Kept)) turned back into the evaluator's
//! export document, which the evaluator reads like any opened file (`result_file::read`,
//! where every number is recomputed from the stored distributions and checked). Records
//! stored before the lab kept what that needs get a sentence saying so instead.

use serde_json::{json, Map, Value};

use super::ItemResult;
use crate::metrics::Metric;

/// The key under which a metric's export holds the judged text.
fn text_key(m: Metric) -> &'static str {
    match m {
        Metric::HarmonicEval => "text",
        Metric::Fleur | Metric::RefFleur | Metric::GVeval => "caption",
        Metric::Maev => "answer",
    }
}

/// Keys of every export that the record holds already (or that opening does not use).
const HELD: [&str; 5] = ["metric", "paper", "model", "provider", "base_url"];

/// What an item keeps of its metric's export document (`Kept::reading`): the document,
/// compact, less the keys the record holds already (the judged text, metric, model, provider)
/// and the base URL, which opening does not use.
pub fn reading_of(metric: Metric, export: &str) -> String {
    let Ok(Value::Object(mut o)) = serde_json::from_str::<Value>(export) else {
        return String::new();
    };
    for k in HELD.iter().chain(&[text_key(metric)]) {
        o.remove(*k);
    }
    serde_json::to_string(&Value::Object(o)).unwrap_or_default()
}

/// The sentence of a record stored before the lab kept what the evaluator needs.
pub const OLDER_RECORD: &str = "This result was stored before the lab kept what the evaluator needs to show it (each criterion's coverage, or the metric's readings), so it cannot be opened there: run the item again to open it.";

/// The evaluator's export document of `r` at `gamma` (HarmonicEval's overall is weighed at
/// it), or a sentence saying why the item cannot be opened in the evaluator.
pub fn document(r: &ItemResult, gamma: f64) -> Result<String, String> {
    let metric = Metric::from_id(&r.metric)
        .ok_or_else(|| format!("This result's metric \u{201c}{}\u{201d} is not one the evaluator knows.", r.metric))?;
    if r.is_failed() {
        return Err("This item has no score, so there is nothing to open in the evaluator.".into());
    }
    let kept = r.kept.as_deref().ok_or_else(|| OLDER_RECORD.to_string())?;
    let mut doc = if metric == Metric::HarmonicEval {
        harmonic(r, gamma, kept.question.as_deref().unwrap_or_default())?
    } else {
        match serde_json::from_str::<Value>(&kept.reading) {
            Ok(Value::Object(o)) => o,
            _ => return Err(OLDER_RECORD.into()),
        }
    };
    doc.insert("metric".into(), Value::from(metric.id()));
    doc.insert("model".into(), Value::from(kept.model.as_str()));
    doc.insert("provider".into(), Value::from(kept.provider.as_str()));
    doc.insert(text_key(metric).into(), Value::from(r.text.as_str()));
    serde_json::to_string(&Value::Object(doc)).map_err(|_| OLDER_RECORD.to_string())
}

/// HarmonicEval's document: each criterion as its export writes it, from the record.
fn harmonic(r: &ItemResult, gamma: f64, question: &str) -> Result<Map<String, Value>, String> {
    let mut criteria = Vec::with_capacity(r.criteria.len());
    for c in &r.criteria {
        let entry = match (c.score, c.distribution, &c.error) {
            (Some(score), Some(p), _) => {
                let smoothed = c.sigma.is_some();
                if smoothed && c.coverage.is_none() {
                    return Err(OLDER_RECORD.into());
                }
                json!({"name": c.name, "distribution": p, "score": score, "sigma": c.sigma,
                       "coverage": c.coverage, "smoothed": smoothed, "doubts": c.doubts})
            }
            (Some(_), None, _) => return Err(OLDER_RECORD.into()),
            (None, _, Some(e)) => json!({"name": c.name, "error": e}),
            (None, _, None) => json!({"name": c.name}),
        };
        criteria.push(entry);
    }
    let names: Vec<&str> = r.criteria.iter().map(|c| c.name.as_str()).collect();
    let doc = json!({
        "gamma": gamma,
        "task": r.task,
        "question": question,
        "fidelity": r.fidelity.as_deref().unwrap_or("paper"),
        "extensions": r.extensions,
        "settings": {"criteria": names},
        "criteria": criteria,
        "overall": r.overall(gamma),
    });
    match doc {
        Value::Object(o) => Ok(o),
        _ => Err(OLDER_RECORD.into()),
    }
}

#[cfg(test)]
#[path = "open_doc_tests.rs"]
mod tests;
