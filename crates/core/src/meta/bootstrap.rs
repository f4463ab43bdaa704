//! Uncertainty on every agreement figure: percentile bootstrap intervals, paired comparisons of
//! two runs, and judge-against-judge agreement.
//!
//! * **Interval.** Units (items, or whole groups) are drawn with replacement as many times as
//!   there are units; the figure is recomputed on each of [`DEFAULT_RESAMPLES`] resamples; the
//!   95 % interval runs from the 2.5th to the 97.5th percentile of those values (numpy's linear
//!   percentile: `scipy.stats.bootstrap(..., method='percentile')`). It says how far the figure
//!   could move if the same kind of items had been drawn again: with a new sample of this size
//!   from the same source, the figure lands inside about 95 times in 100.
//! * **Paired comparison.** Two runs on the same units: the difference (run b − run a) is
//!   bootstrapped with the same draws for both runs (so what both get right cancels), and its
//!   two-sided p-value comes from a paired permutation test: each unit's two scores trade places
//!   with probability ½ ([`two_sided_p`], scipy's `permutation_type='samples'`).
//! * **Judges.** τ-b and Krippendorff's α (interval level) of one run's scores against the
//!   other's, with intervals.
//!
//! All figures of one [`Bootstrap`] share its resamples. [`Bootstrap::step`] does a bounded
//! number of draws, so the page can spread the work over slices of main-thread time.

use super::krippendorff::Alpha;
use super::resample::{percentile_interval, two_sided_p, Interval, Resampler};
use super::weighted_kendall::{PairedKendall, WeightedKendall};

pub use super::resample::{DEFAULT_RESAMPLES, DEFAULT_SEED};

/// One figure to bootstrap. Each gives up to two values ([`Figure::eval`]).
#[derive(Clone, Debug)]
pub enum Figure {
    /// A metric against human ratings: τ-b and τ-c, ×100.
    Tau(WeightedKendall),
    /// Pairwise accuracy ×100: per pair, its unit and whether the metric got it right.
    Accuracy(Vec<(u32, bool)>),
    /// Run b minus run a against the same ratings: τ-b and τ-c, ×100.
    TauDiff(PairedKendall),
    /// Run b minus run a: accuracy ×100; per pair, its unit and whether a and b got it right.
    AccuracyDiff(Vec<(u32, bool, bool)>),
    /// One judge's scores against the other's: τ-b ×100 and Krippendorff's α (not scaled).
    Judges(WeightedKendall, Alpha),
}

fn accuracy(pairs: impl Iterator<Item = (u64, bool)>) -> Option<f64> {
    let (mut right, mut all) = (0u64, 0u64);
    for (w, ok) in pairs {
        all += w;
        right += w * u64::from(ok);
    }
    (all > 0).then(|| 100.0 * right as f64 / all as f64)
}

fn diff(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(b? - a?)
}

impl Figure {
    /// Whether this figure is a difference between two runs (gets a permutation test).
    pub fn is_paired(&self) -> bool {
        matches!(self, Figure::TauDiff(_) | Figure::AccuracyDiff(_))
    }

    /// The figure's values on the units drawn `weights[u]` times (all once when `None`), with
    /// the two runs' scores swapped on the units where `flips[u]` (paired figures only).
    pub fn eval(&mut self, weights: Option<&[u32]>, flips: Option<&[bool]>) -> [Option<f64>; 2] {
        let w = |u: u32| weights.map_or(1, |w| u64::from(w[u as usize]));
        let flip = |u: u32| flips.is_some_and(|f| f[u as usize]);
        match self {
            Figure::Tau(k) => {
                let c = match weights {
                    Some(w) => k.counts(w),
                    None => k.counts_unweighted(),
                };
                [c.tau_b().map(|t| 100.0 * t), c.tau_c().map(|t| 100.0 * t)]
            }
            Figure::Accuracy(pairs) => [accuracy(pairs.iter().map(|&(u, ok)| (w(u), ok))), None],
            Figure::TauDiff(k) => {
                let [a, b] = k.counts(weights, flips);
                let b_ = diff(a.tau_b(), b.tau_b()).map(|d| 100.0 * d);
                let c_ = diff(a.tau_c(), b.tau_c()).map(|d| 100.0 * d);
                [b_, c_]
            }
            Figure::AccuracyDiff(pairs) => {
                let side = |second: bool| {
                    accuracy(
                        pairs
                            .iter()
                            .map(|&(u, a, b)| (w(u), if flip(u) != second { b } else { a })),
                    )
                };
                [diff(side(false), side(true)), None]
            }
            Figure::Judges(k, alpha) => {
                let c = match weights {
                    Some(w) => k.counts(w),
                    None => k.counts_unweighted(),
                };
                let a = match weights {
                    Some(w) => alpha.alpha_weighted(w),
                    None => alpha.alpha(),
                };
                [c.tau_b().map(|t| 100.0 * t), a]
            }
        }
    }
}

/// A figure with its uncertainty.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    /// The figure on the data as they are.
    pub value: Option<f64>,
    /// The 95 % percentile bootstrap interval (`None`: undefined on every resample, or the
    /// bootstrap has not finished).
    pub interval: Option<Interval>,
    /// Paired figures: the permutation test's two-sided p-value.
    pub p: Option<f64>,
}

/// Bootstraps several figures over the same resamples of `units` units, a bounded number of
/// draws at a time.
#[derive(Clone, Debug)]
pub struct Bootstrap {
    figures: Vec<Figure>,
    point: Vec<[Option<f64>; 2]>,
    samples: Vec<[Vec<f64>; 2]>,
    null: Vec<[Vec<f64>; 2]>,
    resampler: Resampler,
    permuter: Resampler,
    flips: Vec<bool>,
    resamples: usize,
    permutations: usize,
    drawn: usize,
    permuted: usize,
}

impl Bootstrap {
    /// `resamples` resamples (and as many permutations when a figure is paired), seeded.
    pub fn new(units: usize, figures: Vec<Figure>, resamples: usize, seed: u64) -> Bootstrap {
        let mut b = Bootstrap {
            samples: Vec::new(),
            null: Vec::new(),
            figures: Vec::new(),
            point: Vec::new(),
            resampler: Resampler::new(seed, units),
            // Another stream for the permutations, so they do not repeat the resamples' draws.
            permuter: Resampler::new(seed ^ 0x9e37_79b9_7f4a_7c15, units),
            flips: Vec::new(),
            resamples: if units == 0 { 0 } else { resamples },
            permutations: 0,
            drawn: 0,
            permuted: 0,
        };
        figures.into_iter().for_each(|f| b.push(f));
        b
    }

    /// Adds a figure (its point estimate computed now), so a caller can build figures one per
    /// slice of time. Only before the first draw: every figure sees every resample.
    pub fn push(&mut self, mut figure: Figure) {
        assert_eq!(
            self.drawn + self.permuted,
            0,
            "figures are added before drawing"
        );
        self.point.push(figure.eval(None, None));
        if figure.is_paired() && self.resamples > 0 {
            self.permutations = self.resamples;
        }
        let n = self.resamples;
        self.samples
            .push([Vec::with_capacity(n), Vec::with_capacity(n)]);
        self.null.push([Vec::new(), Vec::new()]);
        self.figures.push(figure);
    }

    /// Draws done so far and in all (resamples, then permutations).
    pub fn progress(&self) -> (usize, usize) {
        (
            self.drawn + self.permuted,
            self.resamples + self.permutations,
        )
    }

    pub fn is_done(&self) -> bool {
        self.drawn == self.resamples && self.permuted == self.permutations
    }

    /// Up to `budget` draws; true once every draw is done.
    pub fn step(&mut self, budget: usize) -> bool {
        for _ in 0..budget {
            if self.drawn < self.resamples {
                let w = self.resampler.next_counts();
                for (f, s) in self.figures.iter_mut().zip(&mut self.samples) {
                    for (v, s) in f.eval(Some(w), None).into_iter().zip(s) {
                        s.extend(v);
                    }
                }
                self.drawn += 1;
            } else if self.permuted < self.permutations {
                self.permuter.next_flips(&mut self.flips);
                for (f, s) in self.figures.iter_mut().zip(&mut self.null) {
                    if f.is_paired() {
                        for (v, s) in f.eval(None, Some(&self.flips)).into_iter().zip(s) {
                            // An undefined permuted statistic cannot be as extreme as any.
                            s.push(v.unwrap_or(f64::NAN));
                        }
                    }
                }
                self.permuted += 1;
            } else {
                break;
            }
        }
        self.is_done()
    }

    /// Every draw at once (native callers and tests).
    pub fn run(mut self) -> Vec<[Estimate; 2]> {
        self.step(usize::MAX);
        self.estimates()
    }

    /// Each figure's two estimates; intervals and p-values once the draws are done.
    pub fn estimates(&self) -> Vec<[Estimate; 2]> {
        let done = self.is_done();
        self.point
            .iter()
            .zip(&self.samples)
            .zip(&self.null)
            .zip(&self.figures)
            .map(|(((point, samples), null), figure)| {
                std::array::from_fn(|i| Estimate {
                    value: point[i],
                    interval: if done {
                        percentile_interval(&mut samples[i].clone())
                    } else {
                        None
                    },
                    p: match (point[i], done && figure.is_paired()) {
                        (Some(v), true) => Some(two_sided_p(v, &null[i])),
                        _ => None,
                    },
                })
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "bootstrap_tests.rs"]
mod tests;
