//! HarmonicEval's part in the code every metric shares ([`MetricCore`]): one request per chosen
//! criterion, one record per criterion read, and its lab record opened again in the evaluator
//! from the criteria the record holds (their distributions and the kept coverages).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::{criterion_request, interpret, Input};
use crate::answers::errors::JudgeError;
use crate::metrics::room::{
    Answers, CriterionRecord, ItemReading, MetricCore, Run, Stored, Subject, OLDER_RECORD,
};
use crate::providers::{HttpRequest, Image};

/// HarmonicEval's room type.
pub struct Room;

impl MetricCore for Room {
    const INFO: &'static crate::metrics::MetricInfo = &super::INFO;
    type Reopened = super::reopen::Reopened;

    fn reopen(obj: &Map<String, Value>) -> Result<Self::Reopened, String> {
        super::reopen::reopen(obj)
    }

    fn item_requests(
        run: &Run,
        item: Subject,
        image: Option<Image>,
    ) -> Result<Vec<(String, HttpRequest)>, JudgeError> {
        let input = Input {
            task: item.task,
            text: item.text.to_string(),
            question: item.question.unwrap_or_default().to_string(),
            image,
            fidelity: run.fidelity.clone(),
            criteria: run.settings.chosen_criteria,
        };
        input
            .criteria
            .chosen()
            .iter()
            .map(|&c| {
                Ok((
                    c.id().to_string(),
                    criterion_request(run.backend, c, &input)?,
                ))
            })
            .collect()
    }

    /// One criterion per answer; each smoothed criterion's coverage is kept for the evaluator.
    fn read_item<F: Fn(JudgeError) -> String>(
        run: &Run,
        item: Subject,
        answers: Answers,
        say: &F,
    ) -> ItemReading {
        let mut criteria = Vec::with_capacity(answers.len());
        let mut coverage = BTreeMap::new();
        for (slot, answer) in answers {
            let read = answer.and_then(|a| interpret(&a, run.backend.protocol));
            if let Some(c) = read.as_ref().ok().and_then(|r| r.coverage) {
                coverage.insert(slot.clone(), c);
            }
            criteria.push(match read {
                Ok(r) => CriterionRecord {
                    name: slot,
                    score: Some(r.score),
                    sigma: r.sigma,
                    distribution: Some(r.distribution),
                    error: None,
                    doubts: r.doubts.iter().map(|d| d.code().to_string()).collect(),
                },
                Err(e) => CriterionRecord {
                    name: slot,
                    score: None,
                    sigma: None,
                    distribution: None,
                    error: Some(say(e)),
                    doubts: Vec::new(),
                },
            });
        }
        ItemReading::Criteria {
            criteria,
            coverage,
            question: item.question.map(str::to_string),
        }
    }

    /// Every scored criterion has its distribution, and a smoothed one its coverage.
    fn openable(stored: &Stored) -> bool {
        let covered = |name: &str| stored.coverage.contains_key(name);
        stored.criteria.iter().all(|c| {
            c.score.is_none()
                || (c.distribution.is_some() && (c.sigma.is_none() || covered(&c.name)))
        })
    }

    /// Each criterion as its export writes it, from the record; the overall at `gamma`.
    fn document(stored: &Stored, gamma: f64) -> Result<Map<String, Value>, String> {
        let mut criteria = Vec::with_capacity(stored.criteria.len());
        for c in stored.criteria {
            let entry = match (c.score, c.distribution, &c.error) {
                (Some(score), Some(p), _) => {
                    let smoothed = c.sigma.is_some();
                    let coverage = stored.coverage.get(&c.name).copied();
                    if smoothed && coverage.is_none() {
                        return Err(OLDER_RECORD.into());
                    }
                    json!({"name": c.name, "distribution": p, "score": score, "sigma": c.sigma,
                           "coverage": coverage, "smoothed": smoothed, "doubts": c.doubts})
                }
                (Some(_), None, _) => return Err(OLDER_RECORD.into()),
                (None, _, Some(e)) => json!({"name": c.name, "error": e}),
                (None, _, None) => json!({"name": c.name}),
            };
            criteria.push(entry);
        }
        let names: Vec<&str> = stored.criteria.iter().map(|c| c.name.as_str()).collect();
        let doc = json!({
            "gamma": gamma,
            "task": stored.task,
            "question": stored.question.unwrap_or_default(),
            "fidelity": stored.fidelity.unwrap_or("paper"),
            "extensions": stored.extensions,
            "settings": {"criteria": names},
            "criteria": criteria,
            "overall": stored.overall,
        });
        match doc {
            Value::Object(o) => Ok(o),
            _ => Err(OLDER_RECORD.into()),
        }
    }
}
