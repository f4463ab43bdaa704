//! The lab's figures with their uncertainty: the meta-evaluation's intervals, two runs compared
//! on the items they share, and the two runs' judges against each other. This turns items and
//! runs into [`crate::meta::bootstrap`] figures; the statistics are there.
//!
//! Resampling units are the items' groups where they have one (a best-of-N set is drawn whole),
//! else the items ([`super::analysis::resampling_units`]; the comparison groups by run a's). Every figure of one report is
//! computed on the same resamples, [`DEFAULT_RESAMPLES`] of them, seeded with
//! [`DEFAULT_SEED`], so the same file gives the same intervals.

use std::collections::HashMap;

use super::analysis::{MetaReport, Prepared};
use super::record::ItemResult;
use crate::meta::bootstrap::{Bootstrap, Estimate, Figure};
use crate::meta::krippendorff::Alpha;
use crate::meta::pairwise::{best_of_n_pairs, Candidate, Pair};
use crate::meta::resample::Interval;
use crate::meta::weighted_kendall::{PairedKendall, WeightedKendall};
use crate::scoring::criteria::Criterion;

pub use crate::meta::bootstrap::{DEFAULT_RESAMPLES, DEFAULT_SEED};

/// What the interval means, in one sentence (shown under the figures, and in the docs).
pub const INTERVAL_MEANING: &str = "The bracket is a 95 % bootstrap interval: draw the items \
(whole groups, where the data have groups) again with replacement 1,000 times, recompute the \
figure each time, and keep the middle 95 % of the values; a figure from another sample of this \
size from the same source would usually land inside it.";

/// Intervals of the meta-evaluation report (values ×100, like the report's).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetaIntervals {
    /// The overall score's τ-b and τ-c.
    pub overall: [Estimate; 2],
    pub pairwise: Estimate,
    /// τ-b and τ-c per criterion (HarmonicEval results only).
    pub criteria: Vec<(Criterion, [Estimate; 2])>,
}

/// The report's figures bootstrapped a slice at a time ([`MetaBootstrap::step`]): first each
/// figure is built (one sort of its observations) in a step of its own, then the draws.
#[derive(Clone, Debug)]
pub struct MetaBootstrap {
    boot: Bootstrap,
    criteria: Vec<Criterion>,
    units: Vec<u32>,
    /// The overall score of every item at the report's γ.
    scores: Vec<f64>,
    /// (item, rating) pairs of the overall score, then of each criterion.
    ratings: Vec<Vec<(usize, f64)>>,
    pairs: Vec<Pair>,
    built: usize,
}

impl MetaBootstrap {
    /// The figures of `p`'s report at `gamma` (`results`: those `p` was prepared from). Only
    /// copies what the figures need; [`MetaBootstrap::step`] builds them.
    pub fn new(
        p: &Prepared,
        results: &[ItemResult],
        gamma: f64,
        resamples: usize,
        seed: u64,
    ) -> MetaBootstrap {
        let (units, n_units) = p.units();
        let mut scores = Vec::new();
        p.overall_scores_at(gamma, &mut scores);
        let criteria: Vec<Criterion> = if results.iter().any(|r| !r.criteria.is_empty()) {
            Criterion::ALL.to_vec()
        } else {
            Vec::new()
        };
        let ratings = std::iter::once(None)
            .chain(criteria.iter().map(|&c| Some(c)))
            .map(|of| p.ratings(of).to_vec())
            .collect();
        MetaBootstrap {
            boot: Bootstrap::new(n_units, Vec::new(), resamples, seed),
            criteria,
            units: units.to_vec(),
            scores,
            ratings,
            pairs: p.pairs().to_vec(),
            built: 0,
        }
    }

    fn tau(&self, scores: &[f64], k: usize) -> Figure {
        let units = &self.units;
        Figure::Tau(WeightedKendall::new(
            self.ratings[k]
                .iter()
                .map(|&(i, v)| (scores[i], v, units[i])),
        ))
    }

    /// The next figure: the overall τ, the accuracy, then each criterion's τ.
    fn build_next(&mut self, results: &[ItemResult]) {
        let figure = match self.built {
            0 => self.tau(&self.scores, 0),
            // A missing score never wins a pair (NaN > x is false): counted wrong, as the
            // report does.
            1 => Figure::Accuracy(
                self.pairs
                    .iter()
                    .map(|q| {
                        (
                            self.units[q.preferred],
                            self.scores[q.preferred] > self.scores[q.other],
                        )
                    })
                    .collect(),
            ),
            k => {
                let c = self.criteria[k - 2];
                let s: Vec<f64> = results
                    .iter()
                    .map(|r| r.criterion_score(c.id()).unwrap_or(f64::NAN))
                    .collect();
                self.tau(&s, k - 1)
            }
        };
        self.boot.push(figure);
        self.built += 1;
    }

    /// Builds one figure, or does up to `budget` draws once all are built; true once done.
    /// `results` must be those given to [`MetaBootstrap::new`].
    pub fn step(&mut self, results: &[ItemResult], budget: usize) -> bool {
        if self.built < 2 + self.criteria.len() {
            self.build_next(results);
            return false;
        }
        self.boot.step(budget)
    }

    pub fn is_done(&self) -> bool {
        self.built == 2 + self.criteria.len() && self.boot.is_done()
    }

    pub fn intervals(&self) -> MetaIntervals {
        let e = self.boot.estimates();
        let at = |k: usize| e.get(k).copied().unwrap_or_default();
        MetaIntervals {
            overall: at(0),
            pairwise: at(1)[0],
            criteria: self
                .criteria
                .iter()
                .enumerate()
                .map(|(k, &c)| (c, at(k + 2)))
                .collect(),
        }
    }
}

/// The overall score's τ at `gamma` alone, for the γ sweep's band: the same resamples as
/// [`MetaBootstrap`] draws, so at the slider's γ the band and the table's interval agree.
pub fn sweep_band_bootstrap(p: &Prepared, gamma: f64, resamples: usize, seed: u64) -> Bootstrap {
    let (units, n_units) = p.units();
    let mut scores = Vec::new();
    p.overall_scores_at(gamma, &mut scores);
    let obs = p
        .ratings(None)
        .iter()
        .map(|&(i, v)| (scores[i], v, units[i]));
    Bootstrap::new(
        n_units,
        vec![Figure::Tau(WeightedKendall::new(obs))],
        resamples,
        seed,
    )
}

/// The whole report's intervals at once (native callers, tests, the benchmark).
pub fn meta_intervals(
    results: &[ItemResult],
    gamma: f64,
    resamples: usize,
    seed: u64,
) -> MetaIntervals {
    let p = Prepared::new(results);
    let mut b = MetaBootstrap::new(&p, results, gamma, resamples, seed);
    while !b.step(results, usize::MAX) {}
    b.intervals()
}

/// Two runs on the items they share: each run's figure, and run b − run a.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Paired {
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// b − a, with its paired bootstrap interval and permutation p-value.
    pub diff: Estimate,
}

/// One criterion's (or the overall score's) agreement between the two judges.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JudgeAgreement {
    /// `"overall"` or a criterion id.
    pub id: String,
    pub label: String,
    /// τ-b ×100.
    pub tau_b: Estimate,
    /// Krippendorff's α (interval level), not scaled.
    pub alpha: Estimate,
    /// Items scored by both.
    pub n: usize,
}

/// Two runs compared honestly: only the items in both count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairedComparison {
    /// Items present in both runs.
    pub common: usize,
    /// Of those, (item, rating) observations where both runs have a score (they enter τ).
    pub tau_n: usize,
    /// Best-of-N pairs among the common items.
    pub pairs: usize,
    pub tau_b: Paired,
    pub tau_c: Paired,
    pub accuracy: Paired,
    pub judges: Vec<JudgeAgreement>,
}

/// Where a [`CompareBootstrap`] is: each stage is one step, so none takes long.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    /// The overall scores of the shared items from this one on, [`SCORE_CHUNK`] per step.
    Scores(usize),
    /// Each run's figures, and the paired τ and accuracy.
    Base,
    /// Judge against judge: the overall score (0), then each criterion.
    Judge(usize),
    Draw,
}

/// Shared items whose overall scores one step computes.
const SCORE_CHUNK: usize = 2000;

/// The comparison's figures, built a stage per step, then bootstrapped and permuted a bounded
/// number of draws per step.
#[derive(Clone, Debug)]
pub struct CompareBootstrap {
    boot: Bootstrap,
    base: PairedComparison,
    judge_rows: Vec<(String, String, usize)>,
    gamma: f64,
    /// (position in run a, position in run b) of each shared item, in run a's order.
    common: Vec<(usize, usize)>,
    units: Vec<u32>,
    sa: Vec<f64>,
    sb: Vec<f64>,
    stage: Stage,
}

fn run_tau(obs: impl Iterator<Item = (f64, f64, u32)>) -> [Option<f64>; 2] {
    Figure::Tau(WeightedKendall::new(obs)).eval(None, None)
}

fn accuracy_of(pairs: &[(u32, bool, bool)], second: bool) -> Option<f64> {
    let right = pairs
        .iter()
        .filter(|p| if second { p.2 } else { p.1 })
        .count();
    (!pairs.is_empty()).then(|| 100.0 * right as f64 / pairs.len() as f64)
}

impl CompareBootstrap {
    /// Run `a` (the page's results, whose human ratings and groups count) against run `b`, by
    /// item id, overall scores at `gamma`. Only matches the items; the steps do the rest, and
    /// each must be given the same two runs.
    pub fn new(
        a: &[ItemResult],
        b: &[ItemResult],
        gamma: f64,
        resamples: usize,
        seed: u64,
    ) -> CompareBootstrap {
        let by_id: HashMap<&str, usize> = b
            .iter()
            .enumerate()
            .map(|(j, r)| (r.id.as_str(), j))
            .collect();
        let common: Vec<(usize, usize)> = a
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, *by_id.get(r.id.as_str())?)))
            .collect();
        let (units, n_units) =
            crate::meta::resample::dense_units(common.iter().map(|&(i, _)| match &a[i].group {
                Some(g) => (g.as_str(), usize::MAX),
                None => ("", i),
            }));
        CompareBootstrap {
            boot: Bootstrap::new(n_units, Vec::new(), resamples, seed),
            base: PairedComparison {
                common: common.len(),
                ..PairedComparison::default()
            },
            judge_rows: Vec::new(),
            gamma,
            sa: Vec::with_capacity(common.len()),
            sb: Vec::with_capacity(common.len()),
            common,
            units,
            stage: Stage::Scores(0),
        }
    }

    /// The runs' figures and the paired τ and accuracy, from the scores.
    fn build_base(&mut self, a: &[ItemResult]) {
        let (sa, sb, units) = (&self.sa, &self.sb, &self.units);
        let ratings: Vec<(usize, f64)> = self
            .common
            .iter()
            .enumerate()
            .flat_map(|(k, &(i, _))| {
                a[i].human
                    .get("overall")
                    .into_iter()
                    .flatten()
                    .map(move |&v| (k, v))
            })
            .filter(|(_, v)| v.is_finite())
            .collect();
        let paired_tau =
            PairedKendall::new(ratings.iter().map(|&(k, v)| (sa[k], sb[k], v, units[k])));
        let both = |k: usize| !sa[k].is_nan() && !sb[k].is_nan();
        let ta = run_tau(
            ratings
                .iter()
                .filter(|o| both(o.0))
                .map(|&(k, v)| (sa[k], v, units[k])),
        );
        let tb = run_tau(
            ratings
                .iter()
                .filter(|o| both(o.0))
                .map(|&(k, v)| (sb[k], v, units[k])),
        );
        let candidates: Vec<Candidate<String>> = self
            .common
            .iter()
            .map(|&(i, _)| Candidate {
                group: a[i].group.clone().unwrap_or_default(),
                chosen: a[i].chosen,
            })
            .collect();
        let pairs: Vec<(u32, bool, bool)> = best_of_n_pairs(&candidates)
            .pairs
            .into_iter()
            .filter(|p| a[self.common[p.preferred].0].group.is_some())
            .map(|p| {
                (
                    units[p.preferred],
                    sa[p.preferred] > sa[p.other],
                    sb[p.preferred] > sb[p.other],
                )
            })
            .collect();
        self.base.tau_n = paired_tau.len();
        self.base.pairs = pairs.len();
        self.base.tau_b = Paired {
            a: ta[0],
            b: tb[0],
            ..Paired::default()
        };
        self.base.tau_c = Paired {
            a: ta[1],
            b: tb[1],
            ..Paired::default()
        };
        self.base.accuracy = Paired {
            a: accuracy_of(&pairs, false),
            b: accuracy_of(&pairs, true),
            ..Paired::default()
        };
        self.boot.push(Figure::TauDiff(paired_tau));
        self.boot.push(Figure::AccuracyDiff(pairs));
    }

    /// Judge against judge on the overall score (`which` 0) or a criterion.
    fn build_judge(&mut self, a: &[ItemResult], b: &[ItemResult], which: usize) {
        let (id, label, obs): (&str, &str, Vec<(f64, f64, u32)>) = match which {
            0 => (
                "overall",
                "Overall",
                (0..self.common.len())
                    .map(|k| (self.sa[k], self.sb[k], self.units[k]))
                    .collect(),
            ),
            _ => {
                let c = Criterion::ALL[which - 1];
                let obs = self
                    .common
                    .iter()
                    .zip(&self.units)
                    .filter_map(|(&(i, j), &u)| {
                        Some((
                            a[i].criterion_score(c.id())?,
                            b[j].criterion_score(c.id())?,
                            u,
                        ))
                    })
                    .collect();
                (c.id(), c.label(), obs)
            }
        };
        let obs: Vec<_> = obs
            .into_iter()
            .filter(|(p, q, _)| p.is_finite() && q.is_finite())
            .collect();
        if obs.len() >= 2 {
            self.judge_rows
                .push((id.to_owned(), label.to_owned(), obs.len()));
            self.boot.push(Figure::Judges(
                WeightedKendall::new(obs.iter().copied()),
                Alpha::new(obs),
            ));
        }
    }

    /// One stage of building, or up to `budget` draws once built; true once all is done.
    /// `a` and `b` must be the runs given to [`CompareBootstrap::new`].
    pub fn step(&mut self, a: &[ItemResult], b: &[ItemResult], budget: usize) -> bool {
        match self.stage {
            Stage::Scores(from) => {
                let to = (from + SCORE_CHUNK).min(self.common.len());
                for &(i, j) in &self.common[from..to] {
                    self.sa.push(a[i].overall(self.gamma).unwrap_or(f64::NAN));
                    self.sb.push(b[j].overall(self.gamma).unwrap_or(f64::NAN));
                }
                self.stage = if to == self.common.len() {
                    Stage::Base
                } else {
                    Stage::Scores(to)
                };
            }
            Stage::Base => {
                self.build_base(a);
                self.stage = Stage::Judge(0);
            }
            Stage::Judge(k) if k <= Criterion::ALL.len() => {
                self.build_judge(a, b, k);
                self.stage = Stage::Judge(k + 1);
            }
            Stage::Judge(_) => self.stage = Stage::Draw,
            Stage::Draw => return self.boot.step(budget),
        }
        false
    }

    pub fn is_done(&self) -> bool {
        self.stage == Stage::Draw && self.boot.is_done()
    }

    /// The comparison; intervals and p-values once every draw is done.
    pub fn result(&self) -> PairedComparison {
        let e = self.boot.estimates();
        let mut c = self.base.clone();
        if e.len() >= 2 {
            c.tau_b.diff = e[0][0];
            c.tau_c.diff = e[0][1];
            c.accuracy.diff = e[1][0];
        }
        c.judges = self
            .judge_rows
            .iter()
            .zip(e.iter().skip(2))
            .map(|((id, label, n), [t, a])| JudgeAgreement {
                id: id.clone(),
                label: label.clone(),
                tau_b: *t,
                alpha: *a,
                n: *n,
            })
            .collect();
        c
    }
}

/// The comparison at once (native callers, tests, the benchmark).
pub fn compare_paired(
    a: &[ItemResult],
    b: &[ItemResult],
    gamma: f64,
    resamples: usize,
    seed: u64,
) -> PairedComparison {
    let mut c = CompareBootstrap::new(a, b, gamma, resamples, seed);
    while !c.step(a, b, usize::MAX) {}
    c.result()
}

/// A difference is called real when its interval leaves out 0 and p < 0.05.
pub fn is_real(diff: &Estimate) -> bool {
    match (diff.value, diff.interval, diff.p) {
        (Some(_), Some(i), Some(p)) => p < 0.05 && (i.low > 0.0 || i.high < 0.0),
        _ => false,
    }
}

/// The plain sentence for a difference b − a in `unit` ("τ points", "accuracy points").
pub fn verdict(a_name: &str, b_name: &str, unit: &str, diff: &Estimate) -> String {
    let (Some(d), Some(i), Some(p)) = (diff.value, diff.interval, diff.p) else {
        return "Not enough shared items to compare.".into();
    };
    let detail = format!(
        "95 % interval {:.1} to {:.1}, p = {}",
        i.low,
        i.high,
        p_text(p)
    );
    if !is_real(diff) {
        return format!("The difference ({d:+.1} {unit}; {detail}) is within noise.");
    }
    let (better, worse) = if d > 0.0 {
        (b_name, a_name)
    } else {
        (a_name, b_name)
    };
    format!(
        "{better} agrees with the humans better than {worse} by {:.1} {unit} ({detail}).",
        d.abs()
    )
}

/// p to two significant digits, "< 0.001" below the permutations' resolution.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else if p >= 0.1 {
        format!("{p:.2}")
    } else {
        format!("{p:.3}")
    }
}

/// A figure and its interval as the page shows them: "53.0 [51.2, 54.8]"; the figure alone
/// while the interval is not known yet, "–" when there is no figure.
pub fn with_interval(value: Option<f64>, interval: Option<Interval>) -> String {
    match (value, interval) {
        (None, _) => "–".into(),
        (Some(v), None) => format!("{v:.1}"),
        (Some(v), Some(i)) => format!("{v:.1} [{:.1}, {:.1}]", i.low, i.high),
    }
}

/// The interval's ends for `data-ci-low` / `data-ci-high` (empty when unknown).
pub fn interval_attrs(interval: Option<Interval>) -> (String, String) {
    interval.map_or_else(Default::default, |i| {
        (i.low.to_string(), i.high.to_string())
    })
}

fn estimate_json(e: &Estimate) -> serde_json::Value {
    serde_json::json!({
        "value": e.value,
        "ci_low": e.interval.map(|i| i.low),
        "ci_high": e.interval.map(|i| i.high),
    })
}

/// The agreement figures with their intervals, as the lab's "Export agreement" file: τ-b, τ-c
/// (×100) overall and per criterion, pairwise accuracy (%), each `{value, ci_low, ci_high}`,
/// and how the intervals were drawn.
pub fn agreement_json(
    report: &MetaReport,
    intervals: Option<&MetaIntervals>,
    gamma: f64,
) -> String {
    let iv = |f: &dyn Fn(&MetaIntervals) -> Option<Estimate>, value: Option<f64>| {
        let e = intervals.and_then(f).unwrap_or_default();
        estimate_json(&Estimate { value, ..e })
    };
    let criteria: Vec<serde_json::Value> = report
        .criteria
        .iter()
        .map(|(c, a)| {
            let of = |k: usize| {
                move |m: &MetaIntervals| m.criteria.iter().find(|x| x.0 == *c).map(|x| x.1[k])
            };
            serde_json::json!({
                "criterion": c.id(),
                "n": a.n,
                "tau_b": iv(&of(0), a.tau_b),
                "tau_c": iv(&of(1), a.tau_c),
            })
        })
        .collect();
    let doc = serde_json::json!({
        "gamma": gamma,
        "interval": {
            "level": 0.95,
            "method": "percentile bootstrap",
            "resamples": DEFAULT_RESAMPLES,
            "seed": DEFAULT_SEED,
            "units": "items, or whole groups where the items have groups",
        },
        "overall": {
            "n": report.overall.n,
            "tau_b": iv(&|m| Some(m.overall[0]), report.overall.tau_b),
            "tau_c": iv(&|m| Some(m.overall[1]), report.overall.tau_c),
        },
        "pairwise_accuracy": {
            "pairs": report.pairwise_counts.pairs,
            "accuracy": iv(&|m| Some(m.pairwise), report.pairwise),
        },
        "criteria": criteria,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::bootstrap_tests_data::msvd;

    /// MSVD-Eval as lab results: annotator 1's mean is the metric's score, annotator 2's mean
    /// the human overall rating.
    fn msvd_results(metric_field: usize) -> Vec<ItemResult> {
        msvd()
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut item = ItemResult {
                    id: format!("clip{i}"),
                    metric: "g_veval".into(),
                    score: Some(r[metric_field]),
                    ..ItemResult::default()
                };
                item.human.insert("overall".into(), vec![r[9]]);
                item
            })
            .collect()
    }

    #[test]
    fn the_labs_msvd_eval_interval_matches_scipy() {
        let results = msvd_results(4);
        let m = meta_intervals(&results, 0.75, DEFAULT_RESAMPLES, DEFAULT_SEED);
        // scipy 1.17.1: kendalltau 0.745160679943882, percentile bootstrap [70.00, 78.63].
        let [b, c] = m.overall;
        assert!((b.value.unwrap() - 74.5160679943882).abs() < 1e-9);
        assert!((c.value.unwrap() - 72.22517113727915).abs() < 1e-9);
        let i = b.interval.unwrap();
        assert!(
            (i.low - 70.00).abs() <= 1.5 && (i.high - 78.63).abs() <= 1.5,
            "{i:?}"
        );
        let i = c.interval.unwrap();
        assert!(
            (i.low - 67.53).abs() <= 1.5 && (i.high - 76.09).abs() <= 1.5,
            "{i:?}"
        );
        assert_eq!(m.pairwise.value, None, "no groups, no pairs");
        assert!(m.criteria.is_empty());
        // The same file gives the same interval.
        assert_eq!(
            meta_intervals(&results, 0.75, DEFAULT_RESAMPLES, DEFAULT_SEED),
            m
        );
    }

    #[test]
    fn a_run_compared_with_itself() {
        let results = msvd_results(4);
        let c = compare_paired(&results, &results, 0.75, 200, DEFAULT_SEED);
        assert_eq!((c.common, c.tau_n), (197, 197));
        for d in [c.tau_b.diff, c.tau_c.diff] {
            assert_eq!(d.value, Some(0.0));
            assert_eq!(d.p, Some(1.0));
        }
        assert!(!is_real(&c.tau_b.diff));
        assert!(verdict("A", "B", "τ points", &c.tau_b.diff).contains("within noise"));
        let overall = &c.judges[0];
        assert_eq!(overall.id, "overall");
        assert_eq!(
            (overall.tau_b.value, overall.alpha.value),
            (Some(100.0), Some(1.0))
        );
    }

    #[test]
    fn only_shared_items_count_and_the_better_run_is_named() {
        // Run a: annotator 1's completeness; run b: their mean, which agrees far better, on
        // the first 150 clips only.
        let a = msvd_results(1);
        let b: Vec<ItemResult> = msvd_results(4).into_iter().take(150).collect();
        let c = compare_paired(&a, &b, 0.75, DEFAULT_RESAMPLES, DEFAULT_SEED);
        assert_eq!((c.common, c.tau_n), (150, 150));
        let d = c.tau_b.diff;
        let want = c.tau_b.b.unwrap() - c.tau_b.a.unwrap();
        assert!((d.value.unwrap() - want).abs() < 1e-9);
        assert!(is_real(&d), "{d:?}");
        let s = verdict("Run A", "Run B", "τ points", &d);
        assert!(
            s.starts_with(&format!(
                "Run B agrees with the humans better than Run A by {:.1} τ points (95 % interval",
                want
            )),
            "{s}"
        );
        // Judge against judge: the two annotators' fields agree, but not perfectly.
        let j = &c.judges[0];
        assert!(j.alpha.value.unwrap() < 1.0 && j.tau_b.interval.is_some());
        assert_eq!(j.n, 150);
    }

    #[test]
    fn the_export_carries_each_figure_with_its_interval() {
        let results = msvd_results(4);
        let report = Prepared::new(&results).report(&results, 0.75);
        let m = meta_intervals(&results, 0.75, 100, DEFAULT_SEED);
        let v: serde_json::Value =
            serde_json::from_str(&agreement_json(&report, Some(&m), 0.75)).unwrap();
        let i = m.overall[0].interval.unwrap();
        assert_eq!(
            v["overall"]["tau_b"]["value"],
            serde_json::json!(report.overall.tau_b.unwrap())
        );
        assert_eq!(v["overall"]["tau_b"]["ci_low"], serde_json::json!(i.low));
        assert_eq!(v["overall"]["tau_b"]["ci_high"], serde_json::json!(i.high));
        assert_eq!(v["interval"]["resamples"], 1000);
        // Before the intervals are known: the figures, with null ends.
        let v: serde_json::Value =
            serde_json::from_str(&agreement_json(&report, None, 0.75)).unwrap();
        assert!(v["overall"]["tau_c"]["ci_low"].is_null());
        assert_eq!(
            with_interval(
                Some(53.04),
                Some(Interval {
                    low: 51.16,
                    high: 54.8
                })
            ),
            "53.0 [51.2, 54.8]"
        );
        assert_eq!(with_interval(Some(53.04), None), "53.0");
        assert_eq!(with_interval(None, None), "–");
    }

    #[test]
    fn the_sweep_band_at_the_sliders_gamma_is_the_tables_interval() {
        let results = msvd_results(4);
        let p = Prepared::new(&results);
        let band = sweep_band_bootstrap(&p, 0.5, 300, DEFAULT_SEED).run();
        let m = meta_intervals(&results, 0.5, 300, DEFAULT_SEED);
        assert_eq!(band[0][0], m.overall[0]);
    }

    #[test]
    fn p_is_written_plainly() {
        assert_eq!(p_text(1.0), "1.00");
        assert_eq!(p_text(0.0123), "0.012");
        assert_eq!(p_text(0.0005), "< 0.001");
    }

    /// 10,000 HarmonicEval items in best-of-5 groups, one human rating each: the issue's
    /// 1,000 × 10,000 (overall τ, accuracy and five criteria on the same resamples), then the
    /// comparison of two such runs. Timed in release: `cargo test --release --lib
    /// bootstrap_at_scale -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn bootstrap_at_scale() {
        use crate::lab::record::CriterionRecord;
        let mut rng = crate::meta::resample::Rng::new(1);
        let mut run = |shift: f64| -> Vec<ItemResult> {
            (0..10_000)
                .map(|i| {
                    let human = 1.0 + rng.below(5) as f64;
                    let mut r = ItemResult {
                        id: format!("i{i}"),
                        metric: "harmonic_eval".into(),
                        criteria: Criterion::ALL
                            .iter()
                            .map(|c| CriterionRecord {
                                name: c.id().into(),
                                score: Some(
                                    (human + shift + rng.below(300) as f64 / 100.0).min(5.0),
                                ),
                                sigma: Some(0.1 + rng.below(100) as f64 / 100.0),
                                distribution: None,
                                error: None,
                                doubts: Vec::new(),
                            })
                            .collect(),
                        group: Some(format!("g{}", i / 5)),
                        chosen: i % 5 == 0,
                        ..ItemResult::default()
                    };
                    r.human.insert("overall".into(), vec![human]);
                    r.human.insert("correctness".into(), vec![human]);
                    r
                })
                .collect()
        };
        let (a, b) = (run(0.0), run(0.3));
        let t = std::time::Instant::now();
        let p = Prepared::new(&a);
        let prepared = t.elapsed();
        let mut m = MetaBootstrap::new(&p, &a, 0.75, DEFAULT_RESAMPLES, DEFAULT_SEED);
        let mut slowest = t.elapsed() - prepared;
        while !m.is_done() {
            let s = std::time::Instant::now();
            m.step(&a, 1);
            slowest = slowest.max(s.elapsed());
        }
        let i = m.intervals();
        eprintln!(
            "meta 1000 x 10000: {:?} (prepare {prepared:?}, longest step {slowest:?}) {:?}",
            t.elapsed(),
            i.overall[0]
        );
        let t = std::time::Instant::now();
        let mut c = CompareBootstrap::new(&a, &b, 0.75, DEFAULT_RESAMPLES, DEFAULT_SEED);
        let mut slowest = t.elapsed();
        while !c.is_done() {
            let s = std::time::Instant::now();
            c.step(&a, &b, 1);
            slowest = slowest.max(s.elapsed());
        }
        let c = c.result();
        eprintln!(
            "compare 1000 + 1000 permutations x 10000: {:?} (longest step {slowest:?}) {:?}",
            t.elapsed(),
            c.tau_b.diff
        );
    }
}
