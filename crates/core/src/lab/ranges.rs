//! Whether an imported result's numbers can be used: scores within their metric's scale, σ
//! and probabilities finite and in range, human ratings finite. A leaf, read by both results
//! readers (`io`'s CSV, `jsonl_reader`) and by the candidates' hand-over.

use super::record::ItemResult;

/// The metric's score range from its registry entry (`"1–5"` → 1..=5); `None` for a metric this
/// version does not know (its scores are then only required to be finite).
fn score_range(metric: &str) -> Option<(f64, f64)> {
    let info = crate::metrics::Metric::from_id(metric)?.info();
    let (lo, hi) = info.range.split_once('\u{2013}')?;
    Some((lo.trim().parse().ok()?, hi.trim().parse().ok()?))
}

/// Why an imported result cannot be used, if it cannot: a score outside its metric's scale
/// (a criterion's 1–5 for HarmonicEval), a σ or probability that is not a finite number in
/// its range, or a human rating that is not a finite number. Such values used to be shown
/// ("23.000", "inf") and used in τ.
pub fn range_problem(r: &ItemResult) -> Option<String> {
    if !r.criteria.is_empty() && r.weighting().is_none() {
        return Some(match r.metric.as_str() {
            "" => "it has criteria but names no metric to weigh them".to_string(),
            m => format!(
                "it has criteria, but its metric \u{201c}{m}\u{201d} does not weigh criteria"
            ),
        });
    }
    let range = score_range(&r.metric);
    let (lo, hi) = range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let outside = |what: &str, v: f64, lo: f64, hi: f64| {
        (!(v.is_finite() && (lo..=hi).contains(&v))).then(|| {
            let scale = if lo.is_finite() {
                format!("{lo}\u{2013}{hi}")
            } else {
                "a finite number".to_string()
            };
            format!("{what} is {v}, outside {scale}")
        })
    };
    if let Some(s) = r.score {
        if let Some(p) = outside("the score", s, lo, hi) {
            return Some(p);
        }
    }
    let (clo, chi) = if r.criteria.is_empty() || range.is_none() {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else {
        (1.0, crate::answers::rating::RATING_LEVELS as f64)
    };
    for c in &r.criteria {
        let name = &c.name;
        let problem = c
            .score
            .and_then(|s| outside(&format!("the {name} score"), s, clo, chi))
            .or_else(|| {
                c.sigma
                    .and_then(|s| outside(&format!("the {name} \u{3c3}"), s, 0.0, f64::INFINITY))
            })
            .or_else(|| {
                c.distribution.and_then(|d| {
                    d.iter()
                        .find_map(|p| outside(&format!("a {name} probability"), *p, 0.0, 1.0))
                })
            });
        if problem.is_some() {
            return problem;
        }
    }
    for (key, ratings) in &r.human {
        if let Some(v) = ratings.iter().find(|v| !v.is_finite()) {
            return Some(format!(
                "the human rating {key} is {v}, not a finite number"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::record::CriterionRecord;

    fn with_criteria(metric: &str) -> ItemResult {
        ItemResult {
            id: "a".into(),
            metric: metric.into(),
            criteria: vec![CriterionRecord {
                name: "clarity".into(),
                score: Some(4.0),
                sigma: Some(0.5),
                distribution: None,
                error: None,
                doubts: Vec::new(),
            }],
            ..ItemResult::default()
        }
    }

    /// Criteria are weighed by their metric's weighting: a result whose metric has none (or
    /// that names none) is refused with a sentence, not read as an item without a score.
    #[test]
    fn criteria_need_a_metric_that_weighs_them() {
        assert_eq!(range_problem(&with_criteria("harmonic_eval")), None);
        let none = range_problem(&with_criteria("")).unwrap();
        assert!(none.contains("names no metric"), "{none}");
        let fleur = range_problem(&with_criteria("fleur")).unwrap();
        assert!(
            fleur.contains("\u{201c}fleur\u{201d} does not weigh criteria"),
            "{fleur}"
        );
    }
}
