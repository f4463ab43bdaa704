//! One batch item's outcome as stored (IndexedDB), exported and re-imported: enough to
//! re-aggregate at any γ and to compare with human judgments without asking a model again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::metrics::Metric;
use crate::scoring::weighting::{Scored, Weighting};

pub use crate::metrics::room::CriterionRecord;

/// An item's result under one metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemResult {
    pub id: String,
    pub metric: String,
    #[serde(default)]
    pub task: String,
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// HarmonicEval's five criteria (empty for other metrics).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub criteria: Vec<CriterionRecord>,
    /// Other metrics' single score (FLEUR 0–1, G-VEval 0–100, MAEV mean 0–2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Why the item has no score at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Human judgments: `"overall"` or a criterion id → one or more ratings.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub human: BTreeMap<String, Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub chosen: bool,
    /// How the score was made: `"paper"` or `"extended"` (absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fidelity: Option<String>,
    /// Our extensions that were on (`crate::metrics::fidelity::Extension` ids).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// What opening the item in the evaluator needs beyond the fields above (see
    /// `crate::lab::open_doc`); absent in records stored before it was kept and in results
    /// files without it. Boxed: 8 bytes per item when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<Box<Kept>>,
    /// A batch's planned requests (their slots: criterion ids, MAEV's trials) that had no
    /// answer in the answers read (`batch::reading`): the item is *incomplete*, and has no
    /// overall until they are answered (issue 68). Empty for an item judged live, whose failed
    /// criteria leave an overall on the rest, as the evaluator shows it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_answers: Vec<String>,
}

/// The part of an item's result only the evaluator needs: who judged it, HarmonicEval's
/// question and coverages, and the other metrics' readings as their exports write them. Kept
/// apart from the criteria, so that results without it (a results file of a million lines)
/// cost nothing more in memory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// The judge's model and wire format (`Protocol::id`), as an export records them.
    pub model: String,
    pub provider: String,
    /// HarmonicEval: the item's question (VQA, VDU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// HarmonicEval: each smoothed criterion's mass on the rating tokens before renormalising,
    /// by criterion id (the evaluator's reader needs it).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub coverage: BTreeMap<String, f64>,
    /// FLEUR / RefFLEUR, G-VEval, MAEV: the metric's export document, compact, without what
    /// the record holds already (the judged text, metric, model, provider, base URL).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reading: String,
}

impl ItemResult {
    /// Records the fidelity a result was made with.
    pub fn set_fidelity(&mut self, fidelity: &crate::metrics::fidelity::Fidelity) {
        let record = fidelity.record();
        self.fidelity = Some(record.fidelity.to_string());
        self.extensions = record.extensions.iter().map(|e| e.to_string()).collect();
    }
}

impl ItemResult {
    /// The scored criteria as a [`Weighting`] wants them.
    pub fn scored(&self) -> Vec<Scored> {
        self.criteria
            .iter()
            .filter_map(|c| {
                c.score.map(|score| Scored {
                    score,
                    sigma: c.sigma,
                })
            })
            .collect()
    }

    /// How its metric weighs criteria at γ; `None` when the metric has one score (or is not
    /// known here).
    pub fn weighting(&self) -> Option<&'static dyn Weighting> {
        Metric::from_id(&self.metric).and_then(Metric::weighting)
    }

    /// Its metric's weighting when there are criteria to weigh; `None` means the item's one
    /// stored score is its overall at every γ ([`Self::overall`], `lab::overall::OverallTable`).
    pub fn weighted(&self) -> Option<&'static dyn Weighting> {
        self.weighting().filter(|_| !self.criteria.is_empty())
    }

    /// The item's overall score at `gamma` (γ only matters where the metric weighs criteria);
    /// `None` for an [incomplete](Self::is_incomplete) item, which has no overall to report
    /// until its missing answers are read: a number from the rest would look like a complete
    /// item's. Every results file, figure and table reports this one.
    pub fn overall(&self, gamma: f64) -> Option<f64> {
        if self.is_incomplete() {
            return None;
        }
        self.scored_overall(gamma)
    }

    /// What its scored criteria give at `gamma`, whatever is missing: the evaluator's overall of
    /// a run with some criteria failed (`lab::open_doc` opens an item with it). Use
    /// [`Self::overall`] to report an item's overall.
    pub fn scored_overall(&self, gamma: f64) -> Option<f64> {
        let Some(weighting) = self.weighted() else {
            return self.score;
        };
        // On the stack: called for every item on every γ change.
        let mut buf = [Scored {
            score: 0.0,
            sigma: None,
        }; 8];
        let mut n = 0;
        for c in &self.criteria {
            if let Some(score) = c.score {
                if n == buf.len() {
                    return weighting.overall(&self.scored(), gamma);
                }
                buf[n] = Scored {
                    score,
                    sigma: c.sigma,
                };
                n += 1;
            }
        }
        weighting.overall(&buf[..n], gamma)
    }

    /// A criterion's score by id.
    pub fn criterion_score(&self, name: &str) -> Option<f64> {
        self.criteria
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.score)
    }

    /// Done means it has a score to compare; an item whose every criterion failed is failed.
    /// An incomplete item with some criteria scored is partial, not failed.
    pub fn is_failed(&self) -> bool {
        self.scored_overall(1.0).is_none()
    }

    /// Some of a batch's planned requests for it had no answer ([`Self::missing_answers`]).
    pub fn is_incomplete(&self) -> bool {
        !self.missing_answers.is_empty()
    }

    /// Why an incomplete item has no overall, in the words every door uses (a results line's
    /// `incomplete`, `hj`'s report); `None` when it is not incomplete.
    pub fn incomplete_sentence(&self) -> Option<String> {
        self.is_incomplete().then(|| {
            format!(
                "No overall: no answer to its planned request{} for {}, so it is not scored as \
                 if it were whole; score again with {} added.",
                if self.missing_answers.len() == 1 {
                    ""
                } else {
                    "s"
                },
                self.missing_answers.join(", "),
                if self.missing_answers.len() == 1 {
                    "that answer"
                } else {
                    "those answers"
                }
            )
        })
    }

    /// HarmonicEval: how many criteria have no score (0 for the other metrics).
    pub fn failed_criteria(&self) -> usize {
        self.criteria.iter().filter(|c| c.score.is_none()).count()
    }

    /// Scored, but on fewer than all its criteria: its overall rests on the rest (an
    /// incomplete item's criteria left unanswered count among them; it has no overall).
    pub fn is_partial(&self) -> bool {
        !self.is_failed() && self.failed_criteria() > 0
    }

    /// Scored on every criterion, every planned request answered.
    pub fn is_complete(&self) -> bool {
        !self.is_failed() && self.failed_criteria() == 0 && !self.is_incomplete()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn he(scores: &[(f64, Option<f64>)]) -> ItemResult {
        ItemResult {
            id: "a".into(),
            metric: "harmonic_eval".into(),
            criteria: scores
                .iter()
                .enumerate()
                .map(|(i, (s, sigma))| CriterionRecord {
                    name: format!("c{i}"),
                    score: Some(*s),
                    sigma: *sigma,
                    distribution: None,
                    error: None,
                    doubts: Vec::new(),
                })
                .collect(),
            ..ItemResult::default()
        }
    }

    #[test]
    fn overall_follows_gamma_for_harmonic_eval_only() {
        let r = he(&[(4.0, Some(0.2)), (2.0, Some(1.0))]);
        assert_eq!(r.overall(1.0), Some(3.0));
        assert!(r.overall(0.5).unwrap() > 3.5);
        let single = ItemResult {
            score: Some(0.8),
            ..ItemResult::default()
        };
        assert_eq!(single.overall(0.1), Some(0.8));
        assert!(ItemResult::default().is_failed());
    }

    #[test]
    fn a_failed_criterion_makes_the_item_partial_not_complete() {
        let mut r = he(&[(4.0, Some(0.2)), (2.0, Some(1.0)), (3.0, Some(0.5))]);
        assert!(r.is_complete() && !r.is_partial());
        r.criteria[1].score = None;
        r.criteria[1].error = Some("no rating".into());
        assert_eq!(r.failed_criteria(), 1);
        assert!(r.is_partial() && !r.is_complete() && !r.is_failed());
        for c in &mut r.criteria {
            c.score = None;
        }
        assert!(r.is_failed() && !r.is_partial() && !r.is_complete());
    }

    #[test]
    fn an_incomplete_item_has_no_overall_but_its_scored_criteria_still_weigh() {
        let mut r = he(&[(4.0, Some(0.2)), (2.0, Some(1.0)), (3.0, Some(0.5))]);
        let whole = r.overall(0.5);
        r.criteria[2].score = None;
        r.criteria[2].sigma = None;
        // Failed live (the evaluator's partial run): the overall rests on the rest.
        let rest = r.overall(0.5).unwrap();
        assert_ne!(Some(rest), whole);
        assert_eq!(r.scored_overall(0.5), Some(rest));
        assert!(r.incomplete_sentence().is_none());
        // Unanswered in a batch: no overall at any γ, partial not failed, never complete.
        r.missing_answers = vec!["c2".into()];
        for g in [0.01, 0.5, 1.0] {
            assert_eq!(r.overall(g), None, "γ = {g}");
        }
        assert_eq!(
            r.scored_overall(0.5),
            Some(rest),
            "what the evaluator would show"
        );
        assert!(r.is_incomplete() && r.is_partial() && !r.is_failed() && !r.is_complete());
        let said = r.incomplete_sentence().unwrap();
        assert!(
            said.starts_with("No overall: no answer to its planned request for c2"),
            "{said}"
        );
        // The mark survives a results file.
        let back: ItemResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back.missing_answers, ["c2"]);
        assert_eq!(back.overall(0.5), None);
        // Serialised only when set: older files and live results are unchanged.
        r.missing_answers.clear();
        assert!(!serde_json::to_string(&r)
            .unwrap()
            .contains("missing_answers"));
    }

    #[test]
    fn round_trips_through_json() {
        let mut r = he(&[(4.0, None)]);
        r.human.insert("overall".into(), vec![3.0, 4.0]);
        r.group = Some("g1".into());
        r.chosen = true;
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<ItemResult>(&json).unwrap(), r);
    }
}
