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
use crate::criteria::Criterion;
use crate::meta::bootstrap::{Bootstrap, Estimate, Figure};
use crate::meta::krippendorff::Alpha;
use crate::meta::pairwise::{best_of_n_pairs, Candidate};
use crate::meta::resample::Interval;
use crate::meta::weighted_kendall::{PairedKendall, WeightedKendall};

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

/// The report's figures bootstrapped a slice at a time ([`MetaBootstrap::step`]).
#[derive(Clone, Debug)]
pub struct MetaBootstrap {
    boot: Bootstrap,
    criteria: Vec<Criterion>,
}

impl MetaBootstrap {
    /// The figures of `p`'s report at `gamma` (`results`: those `p` was prepared from).
    pub fn new(p: &Prepared, results: &[ItemResult], gamma: f64, resamples: usize, seed: u64) -> MetaBootstrap {
        let (units, n_units) = p.units();
        let tau = |scores: &[f64], of| {
            Figure::Tau(WeightedKendall::new(
                p.ratings(of).iter().map(|&(i, v)| (scores[i], v, units[i])),
            ))
        };
        let mut scores = Vec::new();
        p.overall_scores_at(gamma, &mut scores);
        // A missing score never wins a pair (NaN > x is false): counted wrong, as the report does.
        let pairs = p.pairs().iter().map(|q| (units[q.preferred], scores[q.preferred] > scores[q.other]));
        let mut figures = vec![tau(&scores, None), Figure::Accuracy(pairs.collect())];
        let criteria: Vec<Criterion> = if results.iter().any(|r| !r.criteria.is_empty()) {
            Criterion::ALL.to_vec()
        } else {
            Vec::new()
        };
        for &c in &criteria {
            let s: Vec<f64> = results
                .iter()
                .map(|r| r.criterion_score(c.id()).unwrap_or(f64::NAN))
                .collect();
            figures.push(tau(&s, Some(c)));
        }
        MetaBootstrap {
            boot: Bootstrap::new(n_units, figures, resamples, seed),
            criteria,
        }
    }

    /// Up to `budget` resamples; true once all are done.
    pub fn step(&mut self, budget: usize) -> bool {
        self.boot.step(budget)
    }

    pub fn is_done(&self) -> bool {
        self.boot.is_done()
    }

    pub fn intervals(&self) -> MetaIntervals {
        let e = self.boot.estimates();
        MetaIntervals {
            overall: e[0],
            pairwise: e[1][0],
            criteria: self.criteria.iter().copied().zip(e[2..].iter().copied()).collect(),
        }
    }
}

/// The overall score's τ at `gamma` alone, for the γ sweep's band: the same resamples as
/// [`MetaBootstrap`] draws, so at the slider's γ the band and the table's interval agree.
pub fn sweep_band_bootstrap(p: &Prepared, gamma: f64, resamples: usize, seed: u64) -> Bootstrap {
    let (units, n_units) = p.units();
    let mut scores = Vec::new();
    p.overall_scores_at(gamma, &mut scores);
    let obs = p.ratings(None).iter().map(|&(i, v)| (scores[i], v, units[i]));
    Bootstrap::new(n_units, vec![Figure::Tau(WeightedKendall::new(obs))], resamples, seed)
}

/// The whole report's intervals at once (native callers, tests, the benchmark).
pub fn meta_intervals(results: &[ItemResult], gamma: f64, resamples: usize, seed: u64) -> MetaIntervals {
    let p = Prepared::new(results);
    let mut b = MetaBootstrap::new(&p, results, gamma, resamples, seed);
    b.step(usize::MAX);
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

/// The comparison's figures, bootstrapped and permuted a slice at a time.
#[derive(Clone, Debug)]
pub struct CompareBootstrap {
    boot: Bootstrap,
    base: PairedComparison,
    judge_rows: Vec<(String, String, usize)>,
}

fn run_tau(obs: impl Iterator<Item = (f64, f64, u32)>) -> [Option<f64>; 2] {
    Figure::Tau(WeightedKendall::new(obs)).eval(None, None)
}

fn accuracy_of(pairs: &[(u32, bool, bool)], second: bool) -> Option<f64> {
    let right = pairs.iter().filter(|p| if second { p.2 } else { p.1 }).count();
    (!pairs.is_empty()).then(|| 100.0 * right as f64 / pairs.len() as f64)
}

impl CompareBootstrap {
    /// Run `a` (the page's results, whose human ratings and groups count) against run `b`, by
    /// item id, overall scores at `gamma`.
    pub fn new(a: &[ItemResult], b: &[ItemResult], gamma: f64, resamples: usize, seed: u64) -> CompareBootstrap {
        let by_id: HashMap<&str, &ItemResult> = b.iter().map(|r| (r.id.as_str(), r)).collect();
        let common: Vec<(&ItemResult, &ItemResult)> = a
            .iter()
            .filter_map(|r| Some((r, *by_id.get(r.id.as_str())?)))
            .collect();
        let (units, n_units) = resampling_units_of(&common);
        let sa: Vec<f64> = common.iter().map(|(r, _)| r.overall(gamma).unwrap_or(f64::NAN)).collect();
        let sb: Vec<f64> = common.iter().map(|(_, r)| r.overall(gamma).unwrap_or(f64::NAN)).collect();
        let ratings: Vec<(usize, f64)> = common
            .iter()
            .enumerate()
            .flat_map(|(i, (r, _))| r.human.get("overall").into_iter().flatten().map(move |&v| (i, v)))
            .filter(|(_, v)| v.is_finite())
            .collect();
        let tau_obs = || ratings.iter().map(|&(i, v)| (sa[i], sb[i], v, units[i]));
        let paired_tau = PairedKendall::new(tau_obs());
        let both = |i: usize| !sa[i].is_nan() && !sb[i].is_nan();
        let ta = run_tau(ratings.iter().filter(|o| both(o.0)).map(|&(i, v)| (sa[i], v, units[i])));
        let tb = run_tau(ratings.iter().filter(|o| both(o.0)).map(|&(i, v)| (sb[i], v, units[i])));
        let candidates: Vec<Candidate<String>> = common
            .iter()
            .map(|(r, _)| Candidate {
                group: r.group.clone().unwrap_or_default(),
                chosen: r.chosen,
            })
            .collect();
        let pairs: Vec<(u32, bool, bool)> = best_of_n_pairs(&candidates)
            .pairs
            .into_iter()
            .filter(|p| common[p.preferred].0.group.is_some())
            .map(|p| (units[p.preferred], sa[p.preferred] > sa[p.other], sb[p.preferred] > sb[p.other]))
            .collect();
        let base = PairedComparison {
            common: common.len(),
            tau_n: paired_tau.len(),
            pairs: pairs.len(),
            tau_b: Paired { a: ta[0], b: tb[0], ..Paired::default() },
            tau_c: Paired { a: ta[1], b: tb[1], ..Paired::default() },
            accuracy: Paired {
                a: accuracy_of(&pairs, false),
                b: accuracy_of(&pairs, true),
                ..Paired::default()
            },
            judges: Vec::new(),
        };
        let mut figures = vec![Figure::TauDiff(paired_tau), Figure::AccuracyDiff(pairs)];
        let mut judge_rows = Vec::new();
        let mut judge = |id: &str, label: &str, x: &dyn Fn(&ItemResult) -> Option<f64>| {
            let obs: Vec<(f64, f64, u32)> = common
                .iter()
                .zip(&units)
                .filter_map(|((ra, rb), &u)| Some((x(ra)?, x(rb)?, u)))
                .filter(|(p, q, _)| p.is_finite() && q.is_finite())
                .collect();
            if obs.len() >= 2 {
                judge_rows.push((id.to_owned(), label.to_owned(), obs.len()));
                figures.push(Figure::Judges(WeightedKendall::new(obs.iter().copied()), Alpha::new(obs)));
            }
        };
        judge("overall", "Overall", &|r| r.overall(gamma));
        for c in Criterion::ALL {
            judge(c.id(), c.label(), &|r| r.criterion_score(c.id()));
        }
        CompareBootstrap {
            boot: Bootstrap::new(n_units, figures, resamples, seed),
            base,
            judge_rows,
        }
    }

    /// Up to `budget` draws; true once all are done.
    pub fn step(&mut self, budget: usize) -> bool {
        self.boot.step(budget)
    }

    pub fn is_done(&self) -> bool {
        self.boot.is_done()
    }

    /// The comparison; intervals and p-values once every draw is done.
    pub fn result(&self) -> PairedComparison {
        let e = self.boot.estimates();
        let mut c = self.base.clone();
        c.tau_b.diff = e[0][0];
        c.tau_c.diff = e[0][1];
        c.accuracy.diff = e[1][0];
        c.judges = self
            .judge_rows
            .iter()
            .zip(&e[2..])
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

fn resampling_units_of(common: &[(&ItemResult, &ItemResult)]) -> (Vec<u32>, usize) {
    crate::meta::resample::dense_units(common.iter().enumerate().map(|(i, (r, _))| match &r.group {
        Some(g) => (g.as_str(), usize::MAX),
        None => ("", i),
    }))
}

/// The comparison at once (native callers, tests, the benchmark).
pub fn compare_paired(a: &[ItemResult], b: &[ItemResult], gamma: f64, resamples: usize, seed: u64) -> PairedComparison {
    let mut c = CompareBootstrap::new(a, b, gamma, resamples, seed);
    c.step(usize::MAX);
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
    let detail = format!("95 % interval {:.1} to {:.1}, p = {}", i.low, i.high, p_text(p));
    if !is_real(diff) {
        return format!("The difference ({d:+.1} {unit}; {detail}) is within noise.");
    }
    let (better, worse) = if d > 0.0 { (b_name, a_name) } else { (a_name, b_name) };
    format!("{better} agrees with the humans better than {worse} by {:.1} {unit} ({detail}).", d.abs())
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
    interval.map_or_else(Default::default, |i| (i.low.to_string(), i.high.to_string()))
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
pub fn agreement_json(report: &MetaReport, intervals: Option<&MetaIntervals>, gamma: f64) -> String {
    let iv = |f: &dyn Fn(&MetaIntervals) -> Option<Estimate>, value: Option<f64>| {
        let e = intervals.and_then(f).unwrap_or_default();
        estimate_json(&Estimate { value, ..e })
    };
    let criteria: Vec<serde_json::Value> = report
        .criteria
        .iter()
        .map(|(c, a)| {
            let of = |k: usize| move |m: &MetaIntervals| m.criteria.iter().find(|x| x.0 == *c).map(|x| x.1[k]);
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
        assert!((i.low - 70.00).abs() <= 1.5 && (i.high - 78.63).abs() <= 1.5, "{i:?}");
        let i = c.interval.unwrap();
        assert!((i.low - 67.53).abs() <= 1.5 && (i.high - 76.09).abs() <= 1.5, "{i:?}");
        assert_eq!(m.pairwise.value, None, "no groups, no pairs");
        assert!(m.criteria.is_empty());
        // The same file gives the same interval.
        assert_eq!(meta_intervals(&results, 0.75, DEFAULT_RESAMPLES, DEFAULT_SEED), m);
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
        assert_eq!((overall.tau_b.value, overall.alpha.value), (Some(100.0), Some(1.0)));
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
        assert!(s.starts_with(&format!("Run B agrees with the humans better than Run A by {:.1} τ points (95 % interval", want)), "{s}");
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
        let v: serde_json::Value = serde_json::from_str(&agreement_json(&report, Some(&m), 0.75)).unwrap();
        let i = m.overall[0].interval.unwrap();
        assert_eq!(v["overall"]["tau_b"]["value"], serde_json::json!(report.overall.tau_b.unwrap()));
        assert_eq!(v["overall"]["tau_b"]["ci_low"], serde_json::json!(i.low));
        assert_eq!(v["overall"]["tau_b"]["ci_high"], serde_json::json!(i.high));
        assert_eq!(v["interval"]["resamples"], 1000);
        // Before the intervals are known: the figures, with null ends.
        let v: serde_json::Value = serde_json::from_str(&agreement_json(&report, None, 0.75)).unwrap();
        assert!(v["overall"]["tau_c"]["ci_low"].is_null());
        assert_eq!(with_interval(Some(53.04), Some(Interval { low: 51.16, high: 54.8 })), "53.0 [51.2, 54.8]");
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
                                score: Some((human + shift + rng.below(300) as f64 / 100.0).min(5.0)),
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
        let mut m = MetaBootstrap::new(&p, &a, 0.75, DEFAULT_RESAMPLES, DEFAULT_SEED);
        let prepared = t.elapsed();
        let mut slowest = std::time::Duration::ZERO;
        while !m.is_done() {
            let s = std::time::Instant::now();
            m.step(10);
            slowest = slowest.max(s.elapsed());
        }
        let i = m.intervals();
        eprintln!("meta 1000 x 10000: {:?} (prepare {prepared:?}, slowest 10 resamples {slowest:?}) {:?}", t.elapsed(), i.overall[0]);
        let t = std::time::Instant::now();
        let c = compare_paired(&a, &b, 0.75, DEFAULT_RESAMPLES, DEFAULT_SEED);
        eprintln!("compare 1000 + 1000 permutations x 10000: {:?} {:?}", t.elapsed(), c.tau_b.diff);
    }
}
