//! A HarmonicEval export read back (open a result, a share link, the history, an example, a
//! candidate of a comparison): every criterion's score, σ and weight recomputed from its stored
//! distribution. A criterion whose recorded score its probabilities do not give, or anything
//! malformed, refuses the file with a sentence.

use serde_json::{Map, Value};

use super::weighting::{sigma, smoothed_score};
use super::{CriterionResult, CriterionSet};
use crate::answers::doubt::Doubt;
use crate::metrics::fidelity::Fidelity;
use crate::scoring::criteria::Criterion;
use crate::scoring::task::Task;

/// What the HarmonicEval panel needs to show a file as if it had just run.
#[derive(Clone, Debug, PartialEq)]
pub struct Reopened {
    pub task: Task,
    pub text: String,
    pub question: String,
    pub gamma: f64,
    pub criteria_set: CriterionSet,
    /// The extensions the run used (`extensions`), so a re-export records them again.
    pub fidelity: Fidelity,
    /// One per criterion in [`Criterion::ALL`] order: a result, the recorded error, or not run.
    pub results: [Option<Result<CriterionResult, String>>; 5],
    /// Explain's stored answers, one per criterion.
    pub explanations: [Option<String>; 5],
    /// The bars of a result set by hand (`by_hand`), checked against its distributions.
    pub by_hand: Option<super::by_hand::Hand>,
}

/// Reads a HarmonicEval export (`obj`) with at least one criterion scored, or says why it
/// cannot be shown.
pub fn reopen(obj: &Map<String, Value>) -> Result<Reopened, String> {
    let h = of(obj)?;
    if h.results.iter().all(|r| !matches!(r, Some(Ok(_)))) {
        return Err("This HarmonicEval file holds no criterion with a score to show.".into());
    }
    Ok(h)
}

/// A HarmonicEval result, every criterion rebuilt from its distribution; possibly none scored.
pub(crate) fn of(obj: &Map<String, Value>) -> Result<Reopened, String> {
    let task = Task::from_id(&str_of(obj, "task")).unwrap_or(Task::Ic);
    let gamma = obj
        .get("gamma")
        .and_then(Value::as_f64)
        .filter(|g| (0.0..=1.0).contains(g))
        .unwrap_or(crate::scoring::gamma_axis::GAMMA_DEFAULT);
    let listed: Vec<&Value> = obj
        .get("criteria")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let explained = obj.get("explanations").and_then(Value::as_object);
    let mut results: [Option<Result<CriterionResult, String>>; 5] = Default::default();
    let mut explanations: [Option<String>; 5] = Default::default();
    for c in Criterion::ALL {
        let entry = listed
            .iter()
            .filter_map(|v| v.as_object())
            .find(|o| o.get("name").and_then(Value::as_str) == Some(c.id()));
        // An export lists every criterion; one that was not run has only its name.
        let entry = entry.filter(|o| o.contains_key("distribution") || o.contains_key("error"));
        if let Some(entry) = entry {
            results[c.index()] = Some(read_criterion(c, entry)?);
        }
        explanations[c.index()] = explained
            .and_then(|e| e.get(c.id()))
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    let chosen: Vec<Criterion> = obj
        .get("settings")
        .and_then(|s| s.get("criteria"))
        .and_then(Value::as_array)
        .map(|ids| {
            Criterion::ALL
                .into_iter()
                .filter(|c| ids.iter().any(|i| i.as_str() == Some(c.id())))
                .collect()
        })
        .unwrap_or_else(|| Criterion::ALL.to_vec());
    let by_hand = match obj.get("by_hand") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let hand = super::by_hand::Hand::from_json(v)?;
            if !super::by_hand::agrees(&hand, &results) {
                return Err("This file's ratings set by hand do not give the probabilities it records, so it cannot be shown.".into());
            }
            // The bars are the truth: the numbers come from them exactly as they did on the
            // page, not from decimals read back from the file.
            for (i, r) in results.iter_mut().enumerate() {
                if let (Some(Ok(r)), Ok(exact)) = (
                    r.as_mut(),
                    super::by_hand::result(Criterion::ALL[i], &hand.0[i]),
                ) {
                    *r = exact;
                }
            }
            Some(hand)
        }
    };
    Ok(Reopened {
        by_hand,
        task,
        text: str_of(obj, "text"),
        question: str_of(obj, "question"),
        gamma,
        criteria_set: CriterionSet::of(&chosen),
        fidelity: Fidelity::from_export(obj.get("extensions")),
        results,
        explanations,
    })
}

/// One criterion: its recorded error, or a result rebuilt from its distribution.
fn read_criterion(
    c: Criterion,
    o: &Map<String, Value>,
) -> Result<Result<CriterionResult, String>, String> {
    if let Some(e) = o.get("error").and_then(Value::as_str) {
        return Ok(Err(e.to_string()));
    }
    let bad = |why: &str| {
        format!(
            "This file's {} result {why}, so it cannot be shown.",
            c.label()
        )
    };
    let p: Vec<f64> = o
        .get("distribution")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default();
    let Ok(p) = <[f64; 5]>::try_from(p) else {
        return Err(bad("has no five rating probabilities"));
    };
    let sum: f64 = p.iter().sum();
    if p.iter().any(|x| !x.is_finite() || *x < 0.0) || (sum - 1.0).abs() > 1e-6 {
        return Err(bad("has probabilities that do not add up to 1"));
    }
    let score = smoothed_score(&p);
    if let Some(stored) = o.get("score").and_then(Value::as_f64) {
        if (stored - score).abs() > 1e-6 {
            return Err(bad("records a score its probabilities do not give"));
        }
    }
    let smoothed = o.get("smoothed").and_then(Value::as_bool).unwrap_or(true);
    if !smoothed && !p.contains(&1.0) {
        return Err(bad("is marked unsmoothed but spreads its probability"));
    }
    let coverage = o
        .get("coverage")
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite() && *x > 0.0 && *x <= 1.0 + 1e-9);
    if smoothed && coverage.is_none() {
        return Err(bad("has no coverage between 0 and 1"));
    }
    let doubts = Doubt::from_export(o.get("doubts"));
    Ok(Ok(CriterionResult {
        distribution: p,
        score,
        sigma: smoothed.then(|| sigma(&p)),
        coverage: if smoothed { coverage } else { None },
        answer: str_of(o, "answer"),
        usage: o
            .get("usage")
            .and_then(|u| serde_json::from_value(u.clone()).ok()),
        doubts,
    }))
}

fn str_of(obj: &Map<String, Value>, key: &str) -> String {
    obj.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
