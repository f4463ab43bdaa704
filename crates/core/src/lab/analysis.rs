//! Meta-evaluation of batch results against human judgments (SPEC §6): Kendall τ-b and τ-c per
//! criterion and for the overall score, pairwise accuracy from best-of-N groups, and the γ
//! sweep. Everything is computed from the stored results, without asking a model again.
//!
//! Several human ratings per item follow the Flickr8k-Expert / CLIPScore protocol: the metric's
//! score is paired with each rating. Items without a score (failed) are left out of τ; in pairs
//! they count as wrong (a missing score is never "strictly higher").

use crate::meta::kendall::Kendall;
use crate::meta::pairwise::{
    best_of_n_pairs, pairwise_accuracy_indexed, Candidate, Pair, PairwiseAccuracy,
};
use crate::meta::protocol::{mean_rating, RatingProtocol};
use crate::scoring::criteria::Criterion;

use super::overall::OverallTable;
use super::record::ItemResult;

/// τ-b and τ-c (×100 as the papers print them) over `n` (score, rating) pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agreement {
    pub tau_b: Option<f64>,
    pub tau_c: Option<f64>,
    pub n: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MetaReport {
    pub overall: Agreement,
    /// Per criterion, in `Criterion::ALL` order (HarmonicEval results only).
    pub criteria: Vec<(Criterion, Agreement)>,
    /// Pairwise accuracy ×100 over the best-of-N pairs, when there are any.
    pub pairwise: Option<f64>,
    pub pairwise_counts: PairwiseAccuracy,
    /// Groups that gave no pairs (no choice, several chosen, a single item).
    pub skipped_groups: usize,
}

/// One point of the γ sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    pub gamma: f64,
    pub tau_b: Option<f64>,
    pub tau_c: Option<f64>,
    pub pairwise: Option<f64>,
}

/// The γ-independent part, built once per set of results: which (item, rating) pairs enter
/// each τ and which item pairs enter the accuracy.
/// Cloned by the page's sweep, which computes a point at a time over a snapshot.
#[derive(Clone)]
pub struct Prepared {
    overall_ratings: Vec<(usize, f64)>,
    criterion_ratings: Vec<(Criterion, Vec<(usize, f64)>)>,
    pairs: Vec<Pair>,
    /// The same pairs split by the task of their items (the Table-2 row).
    task_pairs: Vec<(String, Vec<Pair>)>,
    skipped_groups: usize,
    overall: OverallTable,
    kendall: Kendall,
    x: Vec<f64>,
    y: Vec<f64>,
    scores: Vec<f64>,
    /// Each item's resampling unit (its group, or the item alone), and how many units.
    units: (Vec<u32>, usize),
}

fn flatten(results: &[ItemResult], key: &str, protocol: RatingProtocol) -> Vec<(usize, f64)> {
    match protocol {
        RatingProtocol::Repeated => results
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.human.get(key).into_iter().flatten().map(move |&v| (i, v)))
            .filter(|(_, v)| v.is_finite())
            .collect(),
        RatingProtocol::Averaged => results
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, mean_rating(r.human.get(key)?))))
            .filter(|(_, v)| v.is_finite())
            .collect(),
    }
}

impl Prepared {
    /// Several ratings per item follow the repeated-ratings protocol (CLIPScore's).
    pub fn new(results: &[ItemResult]) -> Prepared {
        Prepared::with_protocol(results, RatingProtocol::Repeated)
    }

    /// With several ratings per item entering τ as `protocol` says.
    pub fn with_protocol(results: &[ItemResult], protocol: RatingProtocol) -> Prepared {
        let candidates: Vec<Candidate<String>> = results
            .iter()
            .map(|r| Candidate {
                group: r.group.clone().unwrap_or_default(),
                chosen: r.chosen,
            })
            .collect();
        // Items without a group are not part of any best-of-N comparison.
        let grouped = best_of_n_pairs(&candidates);
        let pairs: Vec<Pair> = grouped
            .pairs
            .into_iter()
            .filter(|p| results[p.preferred].group.is_some())
            .collect();
        let mut task_pairs: Vec<(String, Vec<Pair>)> = Vec::new();
        for p in &pairs {
            let task = &results[p.preferred].task;
            match task_pairs.iter_mut().find(|(t, _)| t == task) {
                Some((_, v)) => v.push(*p),
                None => task_pairs.push((task.clone(), vec![*p])),
            }
        }
        let skipped_groups = grouped
            .skipped
            .iter()
            .filter(|g| !g.group.is_empty())
            .count();
        let n = results.len();
        Prepared {
            overall_ratings: flatten(results, "overall", protocol),
            criterion_ratings: Criterion::ALL
                .iter()
                .map(|&c| (c, flatten(results, c.id(), protocol)))
                .collect(),
            pairs,
            task_pairs,
            skipped_groups,
            overall: OverallTable::new(results),
            kendall: Kendall::with_capacity(n * 3),
            x: Vec::with_capacity(n * 3),
            y: Vec::with_capacity(n * 3),
            scores: Vec::with_capacity(n),
            units: resampling_units(results),
        }
    }

    /// Each item's resampling unit and the number of units (see [`resampling_units`]).
    pub fn units(&self) -> (&[u32], usize) {
        (&self.units.0, self.units.1)
    }

    /// (item, rating) pairs of the overall score's τ, or of a criterion's.
    pub fn ratings(&self, of: Option<Criterion>) -> &[(usize, f64)] {
        match of {
            None => &self.overall_ratings,
            Some(c) => &self.criterion_ratings[c.index()].1,
        }
    }

    /// The best-of-N pairs of the pairwise accuracy.
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Every item's overall score at `gamma` (NaN where none), as the report uses them.
    pub fn overall_scores_at(&self, gamma: f64, out: &mut Vec<f64>) {
        self.overall.scores_at(gamma, out);
    }

    /// Groups that gave no pairs (no choice, several chosen, a single item).
    pub fn skipped_groups(&self) -> usize {
        self.skipped_groups
    }

    /// Whether any item carries a human judgment or a best-of-N choice.
    pub fn has_judgments(&self) -> bool {
        !self.overall_ratings.is_empty()
            || !self.pairs.is_empty()
            || self.criterion_ratings.iter().any(|(_, r)| !r.is_empty())
    }

    fn agreement(&mut self, ratings_of: Option<Criterion>) -> Agreement {
        let ratings = match ratings_of {
            None => &self.overall_ratings,
            Some(c) => &self.criterion_ratings[c.index()].1,
        };
        self.x.clear();
        self.y.clear();
        for &(i, v) in ratings {
            let s = self.scores[i];
            if s.is_finite() {
                self.x.push(s);
                self.y.push(v);
            }
        }
        match self.kendall.tau(&self.x, &self.y) {
            Some(t) => Agreement {
                tau_b: Some(100.0 * t.b),
                tau_c: Some(100.0 * t.c),
                n: t.n,
            },
            None => Agreement {
                n: self.x.len(),
                ..Agreement::default()
            },
        }
    }

    /// `results` must be the ones this was prepared from.
    fn overall_scores(&mut self, results: &[ItemResult], gamma: f64) {
        debug_assert_eq!(results.len(), self.overall.len());
        self.overall.scores_at(gamma, &mut self.scores);
    }

    /// Per-criterion agreement (γ does not enter: compute it once per set of results).
    pub fn criteria(&mut self, results: &[ItemResult]) -> Vec<(Criterion, Agreement)> {
        let mut criteria = Vec::new();
        if results.iter().any(|r| !r.criteria.is_empty()) {
            for c in Criterion::ALL {
                self.scores.clear();
                self.scores.extend(
                    results
                        .iter()
                        .map(|r| r.criterion_score(c.id()).unwrap_or(f64::NAN)),
                );
                criteria.push((c, self.agreement(Some(c))));
            }
        }
        criteria
    }

    /// The overall score's agreement and pairwise accuracy at `gamma`: what a γ change redoes.
    pub fn overall_at(
        &mut self,
        results: &[ItemResult],
        gamma: f64,
    ) -> (Agreement, PairwiseAccuracy) {
        self.overall_scores(results, gamma);
        let overall = self.agreement(None);
        (
            overall,
            pairwise_accuracy_indexed(&self.scores, &self.pairs),
        )
    }

    /// Pairwise accuracy (×100) of one task's pairs, from the scores of the last
    /// [`Prepared::overall_at`] call (no second pass over the items).
    pub fn task_accuracy(&self, task: &str) -> Option<f64> {
        let (_, pairs) = self.task_pairs.iter().find(|(t, _)| t == task)?;
        pairwise_accuracy_indexed(&self.scores, pairs)
            .accuracy()
            .map(|a| 100.0 * a)
    }

    /// The whole report at `gamma`.
    pub fn report(&mut self, results: &[ItemResult], gamma: f64) -> MetaReport {
        let criteria = self.criteria(results);
        let (overall, counts) = self.overall_at(results, gamma);
        MetaReport {
            overall,
            criteria,
            pairwise: counts.accuracy().map(|a| 100.0 * a),
            pairwise_counts: counts,
            skipped_groups: self.skipped_groups,
        }
    }

    /// τ and accuracy of the overall score at `points` γ's evenly spaced over [0.01, 1].
    pub fn sweep(&mut self, results: &[ItemResult], points: usize) -> Vec<SweepPoint> {
        (0..points.max(2))
            .map(|k| {
                debug_assert_eq!(results.len(), self.overall.len());
                self.sweep_point(k, points)
            })
            .collect()
    }

    /// The `k`-th of the sweep's `points` points alone: the page computes the sweep one point
    /// per slice of main-thread time (at 100k results the whole sweep takes about a second),
    /// and this is the same point [`Prepared::sweep`] gives.
    pub fn sweep_point(&mut self, k: usize, points: usize) -> SweepPoint {
        let gamma = 0.01 + 0.99 * k as f64 / (points.max(2) - 1) as f64;
        self.overall.scores_at(gamma, &mut self.scores);
        let a = self.agreement(None);
        let acc = pairwise_accuracy_indexed(&self.scores, &self.pairs).accuracy();
        SweepPoint {
            gamma,
            tau_b: a.tau_b,
            tau_c: a.tau_c,
            pairwise: acc.map(|v| 100.0 * v),
        }
    }
}

/// Resampling units: the items of one group form one unit (a best-of-N set is drawn whole);
/// an item without a group is a unit of its own.
pub fn resampling_units(results: &[ItemResult]) -> (Vec<u32>, usize) {
    crate::meta::resample::dense_units(results.iter().enumerate().map(|(i, r)| match &r.group {
        Some(g) => (g.as_str(), usize::MAX),
        None => ("", i),
    }))
}

/// The sweep's best γ: the highest τ-b (the first of equals), else, with no τ-b anywhere, the
/// highest pairwise accuracy. Returns (γ, which measure, its value); `None` when the sweep has
/// neither.
pub fn best_gamma(points: &[SweepPoint]) -> Option<(f64, &'static str, f64)> {
    let pick = |f: fn(&SweepPoint) -> Option<f64>| {
        points
            .iter()
            .filter_map(|p| f(p).map(|v| (p.gamma, v)))
            .fold(None, |acc: Option<(f64, f64)>, (g, v)| match acc {
                Some((_, bv)) if bv >= v => acc,
                _ => Some((g, v)),
            })
    };
    pick(|p| p.tau_b)
        .map(|(g, v)| (g, "τ-b", v))
        .or_else(|| pick(|p| p.pairwise).map(|(g, v)| (g, "accuracy", v)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::record::CriterionRecord;

    #[test]
    fn the_best_gamma_is_the_first_highest_tau_else_accuracy() {
        let point = |gamma, tau_b, pairwise| SweepPoint {
            gamma,
            tau_b,
            tau_c: tau_b,
            pairwise,
        };
        let sweep = [
            point(0.01, Some(10.0), Some(90.0)),
            point(0.5, Some(40.0), Some(50.0)),
            point(0.75, Some(40.0), Some(60.0)),
            point(1.0, Some(-5.0), Some(95.0)),
        ];
        assert_eq!(best_gamma(&sweep), Some((0.5, "τ-b", 40.0)));
        let no_tau = [point(0.01, None, Some(70.0)), point(1.0, None, Some(80.0))];
        assert_eq!(best_gamma(&no_tau), Some((1.0, "accuracy", 80.0)));
        assert_eq!(best_gamma(&[point(0.5, None, None)]), None);
        assert_eq!(best_gamma(&[]), None);
    }

    fn item(
        id: &str,
        scores: [f64; 5],
        sigmas: [f64; 5],
        human: f64,
        group: Option<&str>,
        chosen: bool,
    ) -> ItemResult {
        let mut r = ItemResult {
            id: id.into(),
            metric: "harmonic_eval".into(),
            criteria: Criterion::ALL
                .iter()
                .enumerate()
                .map(|(i, c)| CriterionRecord {
                    name: c.id().into(),
                    score: Some(scores[i]),
                    sigma: Some(sigmas[i]),
                    distribution: None,
                    error: None,
                    doubts: Vec::new(),
                })
                .collect(),
            group: group.map(str::to_owned),
            chosen,
            ..ItemResult::default()
        };
        r.human.insert("overall".into(), vec![human]);
        r.human.insert("correctness".into(), vec![human]);
        r
    }

    fn data() -> Vec<ItemResult> {
        let s = [0.5, 0.5, 0.5, 0.5, 0.5];
        vec![
            item(
                "a",
                [5.0, 1.0, 3.0, 3.0, 3.0],
                [0.1, 2.0, 0.5, 0.5, 0.5],
                5.0,
                Some("g"),
                true,
            ),
            item(
                "b",
                [4.0, 5.0, 3.0, 3.0, 3.0],
                [0.1, 0.1, 0.5, 0.5, 0.5],
                4.0,
                Some("g"),
                false,
            ),
            item("c", [1.0, 2.0, 2.0, 2.0, 2.0], s, 1.0, Some("g"), false),
            item("d", [2.0, 2.0, 2.0, 2.0, 2.0], s, 2.0, None, false),
        ]
    }

    #[test]
    fn report_has_overall_criteria_and_pairs() {
        let results = data();
        let mut p = Prepared::new(&results);
        assert!(p.has_judgments());
        let r = p.report(&results, 0.75);
        // Correctness alone orders the items exactly as the humans did.
        let correctness = r.criteria[0].1;
        assert_eq!(correctness.tau_b, Some(100.0));
        assert_eq!(correctness.n, 4);
        // Best-of-three: a vs b and a vs c.
        assert_eq!(r.pairwise_counts.pairs, 2);
        assert!(r.overall.tau_b.is_some());
    }

    #[test]
    fn gamma_changes_the_overall_ranking_and_the_sweep_records_it() {
        let results = data();
        let mut p = Prepared::new(&results);
        let uniform = results[0].overall(1.0).unwrap();
        assert!((uniform - 3.0).abs() < 1e-12);
        // At small γ, item a leans on its confident correctness (5): above b's blend.
        let sweep = p.sweep(&results, 100);
        assert_eq!(sweep.len(), 100);
        assert!((sweep[0].gamma - 0.01).abs() < 1e-12 && (sweep[99].gamma - 1.0).abs() < 1e-12);
        let first = sweep[0].pairwise.unwrap();
        let last = sweep[99].pairwise.unwrap();
        assert!(first > last, "{first} vs {last}");
    }

    #[test]
    fn per_task_accuracy_reuses_the_overall_scores() {
        let mut results = data();
        results[1].task = "vqa".into();
        results[0].task = "ic".into();
        results[2].task = "ic".into();
        let mut p = Prepared::new(&results);
        p.overall_at(&results, 0.01);
        // a vs b is a VQA pair only if a is VQA: pairs take their preferred item's task.
        assert_eq!(p.task_accuracy("ic"), Some(100.0));
        assert_eq!(p.task_accuracy("vqa"), None);
        assert_eq!(p.task_accuracy("reg"), None);
    }

    #[test]
    fn the_averaged_protocol_gives_one_observation_per_item() {
        let mut results = data();
        for (r, extra) in results.iter_mut().zip([1.0, 5.0, 1.0, 2.0]) {
            r.human.get_mut("overall").unwrap().extend([extra, extra]);
        }
        let mut repeated = Prepared::new(&results);
        let mut averaged = Prepared::with_protocol(&results, RatingProtocol::Averaged);
        let (r, _) = repeated.overall_at(&results, 1.0);
        let (a, _) = averaged.overall_at(&results, 1.0);
        assert_eq!((r.n, a.n), (12, 4));
        // By hand: overall scores at γ = 1 against the mean ratings.
        let scores: Vec<f64> = results.iter().map(|x| x.overall(1.0).unwrap()).collect();
        let means: Vec<f64> = results
            .iter()
            .map(|x| mean_rating(&x.human["overall"]))
            .collect();
        let t = crate::meta::kendall::kendall_tau(&scores, &means).unwrap();
        assert_eq!(a.tau_b, Some(100.0 * t.b));
        assert_ne!(a.tau_b, r.tau_b);
    }

    #[test]
    fn failed_items_and_missing_groups_are_handled() {
        let mut results = data();
        results[3].criteria.iter_mut().for_each(|c| c.score = None);
        let mut p = Prepared::new(&results);
        let r = p.report(&results, 0.75);
        assert_eq!(r.overall.n, 3, "the failed item is left out of tau");
        let no_judgments = vec![ItemResult {
            id: "x".into(),
            score: Some(1.0),
            ..ItemResult::default()
        }];
        let p = Prepared::new(&no_judgments);
        assert!(!p.has_judgments());
    }

    /// Random HarmonicEval results with ties, groups and a chosen candidate per group.
    fn random_results(n: usize, rng: &mut crate::meta::resample::Rng) -> Vec<ItemResult> {
        let mut next = |m: u64| rng.below(m as usize) as u64;
        (0..n)
            .map(|i| {
                let scores = [0; 5].map(|_| 1.0 + next(5) as f64);
                let sigmas = [0; 5].map(|_| 0.1 + next(20) as f64 / 10.0);
                let group = format!("g{}", i / 4);
                item(
                    &format!("i{i}"),
                    scores,
                    sigmas,
                    1.0 + next(5) as f64,
                    Some(&group),
                    i % 4 == 0,
                )
            })
            .collect()
    }

    #[test]
    fn a_sweep_point_by_point_equals_the_whole_sweep_on_random_data() {
        let mut rng = crate::meta::resample::Rng::new(17);
        for n in [0, 1, 7, 60, 333] {
            let results = random_results(n, &mut rng);
            let whole = Prepared::new(&results).sweep(&results, 100);
            // One Prepared reused, points in another order, other work in between (as the
            // page does between slices): no state may leak from one point to the next.
            // A clone, as the page sweeps a snapshot of the analysis's preparation.
            let mut first = Prepared::new(&results);
            first.report(&results, 0.7);
            let mut p = first.clone();
            let mut by_point = vec![None; 100];
            for k in (0..100).rev().step_by(2).chain((0..100).step_by(2)) {
                by_point[k] = Some(p.sweep_point(k, 100));
                p.report(&results, 0.3);
            }
            let by_point: Vec<SweepPoint> = by_point.into_iter().map(Option::unwrap).collect();
            assert_eq!(by_point, whole, "{n} results");
        }
    }
}
