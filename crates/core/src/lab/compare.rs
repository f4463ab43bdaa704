//! Metric against human, item by item (the scatter plot and the items where they disagree
//! most), and two runs side by side (their agreement with humans, and the items whose score
//! changed most). Pure, so the numbers are tested natively.

use super::analysis::Prepared;
use super::record::ItemResult;

/// One item on the scatter plot: the mean human rating and the metric's overall score.
#[derive(Clone, Debug, PartialEq)]
pub struct ScatterPoint {
    pub id: String,
    pub human: f64,
    pub metric: f64,
}

/// Items that have both a metric score (at `gamma`) and a human overall rating, in input order.
pub fn scatter(results: &[ItemResult], gamma: f64) -> Vec<ScatterPoint> {
    results
        .iter()
        .filter_map(|r| {
            let (human, metric) = scatter_values(r, gamma)?;
            Some(ScatterPoint {
                id: r.id.clone(),
                human,
                metric,
            })
        })
        .collect()
}

/// An item's place on the scatter: its mean human rating and its overall score at `gamma`.
fn scatter_values(r: &ItemResult, gamma: f64) -> Option<(f64, f64)> {
    let ratings = r.human.get("overall").filter(|v| !v.is_empty())?;
    let human = ratings.iter().sum::<f64>() / ratings.len() as f64;
    let metric = r.overall(gamma)?;
    (human.is_finite() && metric.is_finite()).then_some((human, metric))
}

/// Mid-ranks (ties share the mean of their ranks) scaled to 0…1.
fn rank_fractions(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0;
        for &k in &order[i..=j] {
            ranks[k] = if n > 1 { mid / (n - 1) as f64 } else { 0.5 };
        }
        i = j + 1;
    }
    ranks
}

/// How far apart the metric and the humans place each item: the difference of its rank
/// fractions (0 = same place, 1 = opposite ends). The `k` largest, largest first (ties in input
/// order).
pub fn disagreements(points: &[ScatterPoint], k: usize) -> Vec<(ScatterPoint, f64)> {
    let h = rank_fractions(&points.iter().map(|p| p.human).collect::<Vec<_>>());
    let m = rank_fractions(&points.iter().map(|p| p.metric).collect::<Vec<_>>());
    let gap: Vec<f64> = (0..points.len()).map(|i| (h[i] - m[i]).abs()).collect();
    // The k largest in one pass, ties in input order, as a stable sort by gap would give.
    super::rows::first_rows(
        points.len(),
        k,
        false,
        |_| true,
        |a, b| gap[b].total_cmp(&gap[a]),
    )
    .into_iter()
    .map(|i| (points[i].clone(), gap[i]))
    .collect()
}

/// Every item's rank gap (as in `disagreements`), by id: the metric–human disagreement a
/// results table sorts by. Items without a score or a human overall rating have none, nor do
/// partial items (scored on fewer than all criteria), which the meta-evaluation and the
/// scatter leave out by default: the gaps are the scatter's.
pub fn rank_gaps(results: &[ItemResult], gamma: f64) -> std::collections::HashMap<String, f64> {
    rank_gaps_by_position(results, gamma)
        .into_iter()
        .zip(results)
        .filter_map(|(g, r)| Some((r.id.clone(), g?)))
        .collect()
}

/// [`rank_gaps`] by position in `results` (`None`: not on the scatter, or partial): what the
/// results table keeps, with no id copied or hashed (at 100k results the map by id was a
/// large part of each showing).
pub fn rank_gaps_by_position(results: &[ItemResult], gamma: f64) -> Vec<Option<f64>> {
    let (mut at, mut human, mut metric) = (Vec::new(), Vec::new(), Vec::new());
    for (i, r) in results.iter().enumerate() {
        if let Some((h, m)) = scatter_values(r, gamma).filter(|_| !r.is_partial()) {
            at.push(i);
            human.push(h);
            metric.push(m);
        }
    }
    let (h, m) = (rank_fractions(&human), rank_fractions(&metric));
    let mut gaps = vec![None; results.len()];
    for (k, &i) in at.iter().enumerate() {
        gaps[i] = Some((h[k] - m[k]).abs());
    }
    gaps
}

/// One run's agreement with humans at one γ.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    pub items: usize,
    pub scored: usize,
    pub tau_b: Option<f64>,
    pub tau_c: Option<f64>,
    /// ×100.
    pub pairwise: Option<f64>,
}

pub fn summary(results: &[ItemResult], gamma: f64) -> RunSummary {
    let mut p = Prepared::new(results);
    let (overall, counts) = p.overall_at(results, gamma);
    RunSummary {
        items: results.len(),
        scored: results
            .iter()
            .filter(|r| r.overall(gamma).is_some())
            .count(),
        tau_b: overall.tau_b,
        tau_c: overall.tau_c,
        pairwise: counts.accuracy().map(|a| 100.0 * a),
    }
}

/// An item in both runs whose overall score differs.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub id: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

impl Change {
    /// |b − a|; an item scored in one run only counts as the largest change.
    pub fn size(&self) -> f64 {
        match (self.a, self.b) {
            (Some(a), Some(b)) => (b - a).abs(),
            (None, None) => 0.0,
            _ => f64::INFINITY,
        }
    }
}

/// Two runs compared.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub a: RunSummary,
    pub b: RunSummary,
    /// Items in both runs.
    pub common: usize,
    /// Items of `a` missing from `b`, and of `b` missing from `a`.
    pub only_a: usize,
    pub only_b: usize,
    /// Items in both whose score changed, largest change first (then by id).
    pub changed: Vec<Change>,
}

pub fn compare(a: &[ItemResult], b: &[ItemResult], gamma: f64) -> Comparison {
    let by_id: std::collections::HashMap<&str, &ItemResult> =
        b.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut common = 0;
    let mut changed = Vec::new();
    for r in a {
        if let Some(other) = by_id.get(r.id.as_str()) {
            common += 1;
            let c = Change {
                id: r.id.clone(),
                a: r.overall(gamma),
                b: other.overall(gamma),
            };
            if c.size() > 1e-12 {
                changed.push(c);
            }
        }
    }
    changed.sort_by(|x, y| y.size().total_cmp(&x.size()).then_with(|| x.id.cmp(&y.id)));
    Comparison {
        a: summary(a, gamma),
        b: summary(b, gamma),
        common,
        only_a: a.len() - common,
        only_b: b.len() - common,
        changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, score: Option<f64>, human: Option<f64>) -> ItemResult {
        let mut r = ItemResult {
            id: id.into(),
            metric: "fleur".into(),
            score,
            ..Default::default()
        };
        if let Some(h) = human {
            r.human.insert("overall".into(), vec![h]);
        }
        r
    }

    #[test]
    fn the_scatter_has_every_item_with_both_scores() {
        let mut two = item("two", Some(0.5), None);
        two.human.insert("overall".into(), vec![2.0, 4.0]);
        let rs = vec![
            item("a", Some(0.9), Some(5.0)),
            item("b", None, Some(1.0)),
            item("c", Some(0.1), None),
            two,
        ];
        let pts = scatter(&rs, 0.75);
        assert_eq!(pts.len(), 2);
        assert_eq!(
            pts[1],
            ScatterPoint {
                id: "two".into(),
                human: 3.0,
                metric: 0.5
            }
        );
    }

    #[test]
    fn disagreement_is_the_distance_between_ranks() {
        // Humans order a < b < c < d; the metric agrees except that it puts d lowest.
        let rs = vec![
            item("a", Some(0.2), Some(1.0)),
            item("b", Some(0.3), Some(2.0)),
            item("c", Some(0.4), Some(3.0)),
            item("d", Some(0.1), Some(4.0)),
        ];
        let d = disagreements(&scatter(&rs, 0.75), 2);
        assert_eq!(d[0].0.id, "d");
        assert!((d[0].1 - 1.0).abs() < 1e-12);
        assert!((d[1].1 - 1.0 / 3.0).abs() < 1e-12);
        // Ties share their mid-rank.
        assert_eq!(rank_fractions(&[1.0, 1.0, 3.0]), vec![0.25, 0.25, 1.0]);
        assert_eq!(rank_fractions(&[7.0]), vec![0.5]);
    }

    #[test]
    fn every_item_has_its_rank_gap_to_sort_by() {
        let rs = vec![
            item("a", Some(0.2), Some(1.0)),
            item("b", Some(0.3), Some(2.0)),
            item("c", Some(0.4), Some(3.0)),
            item("d", Some(0.1), Some(4.0)),
            item("unscored", None, Some(4.0)),
        ];
        let gaps = rank_gaps(&rs, 0.75);
        assert_eq!(gaps.len(), 4, "an item without a score has no gap");
        assert!((gaps["d"] - 1.0).abs() < 1e-12);
        assert!((gaps["a"] - 1.0 / 3.0).abs() < 1e-12);
        // The same numbers as the list of the worst ones.
        for (p, gap) in disagreements(&scatter(&rs, 0.75), 4) {
            assert_eq!(gaps[&p.id], gap);
        }
    }

    #[test]
    fn rank_gaps_by_position_are_those_of_the_scatter_on_random_data() {
        let mut rng = crate::meta::resample::Rng::new(5);
        let mut next = |m: u64| rng.below(m as usize) as u64;
        for n in [0, 1, 2, 9, 200] {
            let rs: Vec<ItemResult> = (0..n)
                .map(|i| {
                    let score = (next(4) != 0).then(|| next(6) as f64 / 5.0);
                    let human = (next(5) != 0).then(|| 1.0 + next(5) as f64);
                    item(&format!("i{i}"), score, human)
                })
                .collect();
            // The reference: the scatter's points (partial ones out), ranked, by id.
            let points = scatter(&rs, 0.5);
            let h = rank_fractions(&points.iter().map(|p| p.human).collect::<Vec<_>>());
            let m = rank_fractions(&points.iter().map(|p| p.metric).collect::<Vec<_>>());
            let by_position = rank_gaps_by_position(&rs, 0.5);
            assert_eq!(by_position.len(), rs.len());
            for (r, g) in rs.iter().zip(&by_position) {
                let expected = points
                    .iter()
                    .position(|p| p.id == r.id)
                    .map(|k| (h[k] - m[k]).abs());
                assert_eq!(*g, expected, "{}", r.id);
            }
            assert_eq!(rank_gaps(&rs, 0.5).len(), points.len());
            // The worst ones: those of a stable sort by gap, largest first.
            let mut all: Vec<(ScatterPoint, f64)> = points
                .iter()
                .cloned()
                .zip((0..points.len()).map(|k| (h[k] - m[k]).abs()))
                .collect();
            all.sort_by(|a, b| b.1.total_cmp(&a.1));
            for k in [0, 1, 5, 300] {
                let expected: Vec<_> = all.iter().take(k).cloned().collect();
                assert_eq!(
                    disagreements(&points, k),
                    expected,
                    "{n} results, {k} worst"
                );
            }
        }
    }

    #[test]
    fn two_runs_compare_by_id() {
        let a = vec![
            item("x", Some(0.9), Some(5.0)),
            item("y", Some(0.5), Some(3.0)),
            item("z", Some(0.1), Some(1.0)),
            item("only-a", Some(0.3), Some(2.0)),
        ];
        let b = vec![
            item("z", Some(0.8), Some(1.0)),
            item("y", Some(0.5), Some(3.0)),
            item("x", None, Some(5.0)),
            item("only-b", Some(0.3), Some(2.0)),
        ];
        let c = compare(&a, &b, 0.75);
        assert_eq!((c.common, c.only_a, c.only_b), (3, 1, 1));
        let ids: Vec<&str> = c.changed.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(
            ids,
            ["x", "z"],
            "x lost its score; z moved 0.7; y did not change"
        );
        assert_eq!(c.a.items, 4);
        assert_eq!(c.a.tau_b.map(|t| t.round()), Some(100.0));
        assert!(c.b.tau_b.unwrap() < c.a.tau_b.unwrap());
        assert_eq!(c.b.scored, 3);
    }
}
