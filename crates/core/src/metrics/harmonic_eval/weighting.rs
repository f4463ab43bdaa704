//! HarmonicEval's score smoothing and harmonic weighting (its paper's Eqs. 1-4; SPEC §1).
//!
//! For each criterion c with rating distribution p_c over 1..=5:
//!
//! * smoothed score  s̃_c = Σ_r r · p_c(r)
//! * uncertainty     σ_c = sqrt(Σ_r (r − s̃_c)² · p_c(r))
//! * weight          w_c = σ_c^(−2(1−γ)/γ) / H, with H making Σ_c w_c = 1
//! * overall         S = Σ_c w_c · s̃_c, which lies in [1, 5].
//!
//! γ = 1 gives uniform weights, γ = 0.5 inverse-variance weights, γ → 0 puts all weight on the
//! criterion with the smallest σ. At γ = 0.01 the exponent is −198, so raw powers overflow; the
//! weights are a softmax of −2(1−γ)/γ · ln σ_c instead.
//!
//! **σ = 0** (a criterion whose distribution is a single rating) is the limit of the formula:
//! for γ < 1 its weight σ^(−k) is infinitely larger than any σ > 0, so the criteria with σ = 0
//! share all the weight equally and the others get 0. At γ = 1 the exponent is 0 and weights
//! stay uniform. No NaN or infinity is ever produced.
//!
//! **Unsmoothed criteria** (σ unknown: the backend gave no token probabilities, as Anthropic's
//! API never does, so the score is the printed rating) carry no uncertainty to weigh by. Each
//! keeps the uniform share 1/n it would get at γ = 1, and the smoothed criteria share the rest,
//! (n − u)/n, by their harmonic weights. So γ only moves weight among criteria whose σ is
//! known, an unknown σ is never treated as certainty (σ = 0) or as doubt, and with every
//! criterion unsmoothed the overall score is the plain mean at every γ.

use crate::scoring::gamma_axis::GAMMA_MIN;
pub use crate::scoring::weighting::Scored;
use crate::scoring::weighting::Weighting;

/// Expected rating s̃ = Σ r·p(r) for a distribution over 1..=5.
pub fn smoothed_score(p: &[f64; 5]) -> f64 {
    p.iter()
        .enumerate()
        .map(|(i, pi)| (i + 1) as f64 * pi)
        .sum()
}

/// Standard deviation of the rating under `p`, around the smoothed score.
pub fn sigma(p: &[f64; 5]) -> f64 {
    let mean = smoothed_score(p);
    let variance: f64 = p
        .iter()
        .enumerate()
        .map(|(i, pi)| {
            let d = (i + 1) as f64 - mean;
            d * d * pi
        })
        .sum();
    variance.max(0.0).sqrt()
}

/// Harmonic weights for the given σ's at `gamma`, summing to 1 (empty in, empty out).
///
/// `gamma` is clamped to [0, 1]; 0 (or NaN) means the γ → 0 limit: equal weight on the
/// criteria with the smallest σ.
pub fn harmonic_weights(sigmas: &[f64], gamma: f64) -> Vec<f64> {
    let n = sigmas.len();
    if n == 0 {
        return Vec::new();
    }
    let gamma = if gamma.is_nan() {
        0.0
    } else {
        gamma.clamp(0.0, 1.0)
    };
    let uniform = || vec![1.0 / n as f64; n];
    if gamma >= 1.0 {
        return uniform();
    }
    let min_sigma = sigmas.iter().copied().fold(f64::INFINITY, f64::min);
    // Criteria that share all the weight in the limits: σ = 0 for any γ < 1, or the smallest σ
    // when γ → 0.
    let share_among = |target: f64| {
        let k = sigmas.iter().filter(|&&s| s == target).count() as f64;
        sigmas
            .iter()
            .map(|&s| if s == target { 1.0 / k } else { 0.0 })
            .collect()
    };
    if min_sigma <= 0.0 {
        return share_among(min_sigma);
    }
    if gamma <= 0.0 {
        return share_among(min_sigma);
    }
    let exponent = 2.0 * (1.0 - gamma) / gamma;
    // log w_c = −exponent · ln σ_c − log H. Subtracting the largest logit (the smallest σ)
    // keeps every exp() in (0, 1].
    let logits: Vec<f64> = sigmas
        .iter()
        .map(|s| -exponent * (s / min_sigma).ln())
        .collect();
    let unnormalised: Vec<f64> = logits.iter().map(|l| l.exp()).collect();
    let h: f64 = unnormalised.iter().sum();
    unnormalised.iter().map(|u| u / h).collect()
}

/// Σ w_c · s̃_c.
pub fn weighted_score(scores: &[f64], weights: &[f64]) -> f64 {
    scores.iter().zip(weights).map(|(s, w)| s * w).sum()
}

/// Weights and overall score over the criteria that have a score. `None` when none has.
/// Unsmoothed criteria are weighted as the module documentation says.
///
/// # Example
///
/// SPEC §1's test vector: five criteria's rating distributions, their smoothed scores and σ's,
/// and the overall score at γ = 0.75 (the paper's default), 0.5 and 1.
///
/// ```
/// use harmonic_judge_core::metrics::harmonic_eval::weighting::{aggregate, sigma, smoothed_score, Scored};
///
/// let p = [
///     [0.0, 0.05, 0.15, 0.6, 0.2], // Correctness
///     [0.1, 0.2, 0.4, 0.2, 0.1],   // Completeness
///     [0.0, 0.0, 0.02, 0.18, 0.8], // Clarity
///     [0.0, 0.0, 0.0, 0.05, 0.95], // Fluency
///     [0.0, 0.1, 0.3, 0.4, 0.2],   // Conciseness
/// ];
/// let items: Vec<Scored> = p
///     .iter()
///     .map(|p| Scored { score: smoothed_score(p), sigma: Some(sigma(p)) })
///     .collect();
/// assert!((items[0].score - 3.95).abs() < 1e-9);
/// assert!((items[0].sigma.unwrap() - 0.7399).abs() < 1e-4);
///
/// let (weights, overall) = aggregate(&items, 0.75).unwrap();
/// let expected = [0.1593, 0.1226, 0.2186, 0.3597, 0.1398];
/// for (w, e) in weights.iter().zip(expected) {
///     assert!((w - e).abs() < 1e-4);
/// }
/// assert!((overall - 4.3398).abs() < 1e-4);
/// assert!((aggregate(&items, 0.5).unwrap().1 - 4.7546).abs() < 1e-4);
/// assert!((aggregate(&items, 1.0).unwrap().1 - 4.0760).abs() < 1e-4);
/// ```
pub fn aggregate(items: &[Scored], gamma: f64) -> Option<(Vec<f64>, f64)> {
    if items.is_empty() {
        return None;
    }
    let n = items.len() as f64;
    let known: Vec<f64> = items.iter().filter_map(|i| i.sigma).collect();
    let share = known.len() as f64 / n;
    let mut harmonic = harmonic_weights(&known, gamma).into_iter();
    let weights: Vec<f64> = items
        .iter()
        .map(|i| match i.sigma {
            Some(_) => harmonic.next().unwrap_or(0.0) * share,
            None => 1.0 / n,
        })
        .collect();
    let scores: Vec<f64> = items.iter().map(|i| i.score).collect();
    let overall = weighted_score(&scores, &weights);
    Some((weights, overall))
}

/// The γ-independent part of [`overall_score`]: the batch lab takes it once per result and
/// then only [`Split::at`] per γ (see `lab::overall`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Split {
    /// Sum of the unsmoothed criteria's scores over all n scored criteria.
    pub unsmoothed: f64,
    /// known / n: the smoothed criteria's share.
    pub share: f64,
    /// Plain mean of the smoothed scores (γ = 1).
    pub mean: f64,
    /// Mean of the scores at the smallest σ (γ = 0, or a σ of 0).
    pub at_min: f64,
    pub min_sigma: f64,
}

/// `None` without items; `Some(Err(mean))` when no criterion is smoothed (γ plays no part).
pub fn split(items: &[Scored]) -> Option<Result<Split, f64>> {
    if items.is_empty() {
        return None;
    }
    let n = items.len() as f64;
    let smoothed = || items.iter().filter_map(|i| i.sigma.map(|s| (s, i.score)));
    let known = smoothed().count();
    let unsmoothed: f64 = items
        .iter()
        .filter(|i| i.sigma.is_none())
        .map(|i| i.score)
        .sum::<f64>()
        / n;
    if known == 0 {
        return Some(Err(unsmoothed));
    }
    let min_sigma = smoothed().map(|(s, _)| s).fold(f64::INFINITY, f64::min);
    let (count, sum) = smoothed()
        .filter(|(s, _)| *s == min_sigma)
        .fold((0usize, 0.0), |(c, t), (_, x)| (c + 1, t + x));
    Some(Ok(Split {
        unsmoothed,
        share: known as f64 / n,
        mean: smoothed().map(|(_, x)| x).sum::<f64>() / known as f64,
        at_min: sum / count as f64,
        min_sigma,
    }))
}

impl Split {
    /// The overall score at `gamma`; `smoothed` gives each smoothed criterion's
    /// `(ln(σ / min_sigma), score)` in order, and is only read when the weights need it.
    pub fn at(&self, gamma: f64, smoothed: impl Iterator<Item = (f64, f64)>) -> f64 {
        let gamma = if gamma.is_nan() {
            0.0
        } else {
            gamma.clamp(0.0, 1.0)
        };
        let harmonic = if gamma >= 1.0 {
            self.mean
        } else if self.min_sigma <= 0.0 || gamma <= 0.0 {
            self.at_min
        } else {
            let exponent = 2.0 * (1.0 - gamma) / gamma;
            let (h, total) = smoothed.fold((0.0, 0.0), |(h, t), (log_ratio, x)| {
                let w = (-exponent * log_ratio).exp();
                (h + w, t + w * x)
            });
            total / h
        };
        self.unsmoothed + self.share * harmonic
    }
}

/// The overall score alone, as [`aggregate`] computes it, without allocating: the batch lab
/// calls it for every item on every γ change.
///
/// # Example
///
/// SPEC §1's test vector at γ = 0.25 and at the smallest γ offered, 0.01, where the weight
/// goes almost all to the most certain criterion (Fluency, 4.95) without overflowing.
///
/// ```
/// use harmonic_judge_core::metrics::harmonic_eval::weighting::{overall_score, sigma, smoothed_score, Scored};
/// use harmonic_judge_core::scoring::gamma_axis::GAMMA_MIN;
///
/// let items: Vec<Scored> = [
///     [0.0, 0.05, 0.15, 0.6, 0.2],
///     [0.1, 0.2, 0.4, 0.2, 0.1],
///     [0.0, 0.0, 0.02, 0.18, 0.8],
///     [0.0, 0.0, 0.0, 0.05, 0.95],
///     [0.0, 0.1, 0.3, 0.4, 0.2],
/// ]
/// .iter()
/// .map(|p| Scored { score: smoothed_score(p), sigma: Some(sigma(p)) })
/// .collect();
/// assert!((overall_score(&items, 0.25).unwrap() - 4.9471).abs() < 1e-4);
/// assert!((overall_score(&items, GAMMA_MIN).unwrap() - 4.9500).abs() < 1e-4);
/// assert_eq!(overall_score(&[], 0.75), None);
/// ```
pub fn overall_score(items: &[Scored], gamma: f64) -> Option<f64> {
    Some(match split(items)? {
        Err(mean) => mean,
        Ok(sp) => sp.at(
            gamma,
            items
                .iter()
                .filter_map(|i| i.sigma.map(|s| ((s / sp.min_sigma).ln(), i.score))),
        ),
    })
}

/// The overall score at `points` evenly spaced γ's from [`GAMMA_MIN`] to 1, for plotting how
/// the weighting moves the score.
pub fn overall_curve(items: &[Scored], points: usize) -> Vec<(f64, f64)> {
    if items.is_empty() || points < 2 {
        return Vec::new();
    }
    (0..points)
        .map(|i| {
            let gamma = GAMMA_MIN + (1.0 - GAMMA_MIN) * i as f64 / (points - 1) as f64;
            let (_, s) = aggregate(items, gamma).expect("non-empty");
            (gamma, s)
        })
        .collect()
}

/// HarmonicEval's weighting as shared code asks for it (`Metric::weighting`).
pub struct Harmonic;

/// `prepare`'s layout: the [`Split`]'s five numbers, then `(ln(σ/σ_min), score)` per smoothed
/// criterion.
const SPLIT_LEN: usize = 5;

impl Weighting for Harmonic {
    fn overall(&self, items: &[Scored], gamma: f64) -> Option<f64> {
        overall_score(items, gamma)
    }

    fn prepare(&self, items: &[Scored], into: &mut Vec<f64>) -> Result<(), Option<f64>> {
        let sp = match split(items) {
            None => return Err(None),
            Some(Err(mean)) => return Err(Some(mean)),
            Some(Ok(sp)) => sp,
        };
        into.extend([sp.unsmoothed, sp.share, sp.mean, sp.at_min, sp.min_sigma]);
        for (s, x) in items.iter().filter_map(|i| i.sigma.map(|s| (s, i.score))) {
            into.extend([(s / sp.min_sigma).ln(), x]);
        }
        Ok(())
    }

    fn at(&self, prepared: &[f64], gamma: f64) -> f64 {
        let (head, pairs) = prepared.split_at(SPLIT_LEN);
        let sp = Split {
            unsmoothed: head[0],
            share: head[1],
            mean: head[2],
            at_min: head[3],
            min_sigma: head[4],
        };
        sp.at(gamma, pairs.chunks_exact(2).map(|p| (p[0], p[1])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SPEC §1 test vector.
    const P: [[f64; 5]; 5] = [
        [0.0, 0.05, 0.15, 0.6, 0.2],
        [0.1, 0.2, 0.4, 0.2, 0.1],
        [0.0, 0.0, 0.02, 0.18, 0.8],
        [0.0, 0.0, 0.0, 0.05, 0.95],
        [0.0, 0.1, 0.3, 0.4, 0.2],
    ];

    fn items() -> Vec<Scored> {
        P.iter()
            .map(|p| Scored {
                score: smoothed_score(p),
                sigma: Some(sigma(p)),
            })
            .collect()
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn spec_means_and_sigmas() {
        let means = [3.95, 3.00, 4.78, 4.95, 3.70];
        let sigmas = [0.7399, 1.0954, 0.4600, 0.2179, 0.9000];
        for (i, it) in items().iter().enumerate() {
            assert!(close(it.score, means[i], 1e-12), "mean {i}: {}", it.score);
            let s = it.sigma.unwrap();
            assert!(close(s, sigmas[i], 5e-5), "sigma {i}: {s}");
        }
    }

    #[test]
    fn spec_weights_at_default_gamma() {
        let (w, s) = aggregate(&items(), 0.75).unwrap();
        let expected = [0.1593, 0.1226, 0.2186, 0.3597, 0.1398];
        for (a, b) in w.iter().zip(expected) {
            assert!(close(*a, b, 5e-5), "{w:?}");
        }
        assert!(close(s, 4.3398, 5e-5), "{s}");
    }

    #[test]
    fn spec_overall_at_every_listed_gamma() {
        for (gamma, expected) in [
            (0.75, 4.3398),
            (0.5, 4.7546),
            (1.0, 4.0760),
            (0.25, 4.9471),
            (0.01, 4.9500),
        ] {
            let (w, s) = aggregate(&items(), gamma).unwrap();
            assert!(close(s, expected, 5e-5), "gamma {gamma}: {s}");
            assert!(close(w.iter().sum::<f64>(), 1.0, 1e-12));
        }
    }

    #[test]
    fn gamma_one_is_the_plain_mean_and_half_is_inverse_variance() {
        let it = items();
        let (w, _) = aggregate(&it, 1.0).unwrap();
        assert!(w.iter().all(|&x| x == 0.2));
        let (w, _) = aggregate(&it, 0.5).unwrap();
        let inv: Vec<f64> = it.iter().map(|i| i.sigma.unwrap().powi(-2)).collect();
        let total: f64 = inv.iter().sum();
        for (a, b) in w.iter().zip(inv.iter().map(|x| x / total)) {
            assert!(close(*a, b, 1e-12));
        }
    }

    #[test]
    fn finite_for_every_gamma_and_extreme_sigmas() {
        let sigma_sets: [&[f64]; 5] = [
            &[0.0, 0.5, 1.0],
            &[1e-6, 0.5, 2.0],
            &[1e-300, 1e-300, 2.0],
            &[2.0, 2.0, 2.0],
            &[0.0, 0.0, 1.0],
        ];
        for sigmas in sigma_sets {
            for step in 1..=100 {
                let gamma = step as f64 / 100.0;
                let w = harmonic_weights(sigmas, gamma);
                assert!(
                    w.iter().all(|x| x.is_finite() && *x >= 0.0),
                    "{sigmas:?} {gamma}: {w:?}"
                );
                assert!(
                    close(w.iter().sum(), 1.0, 1e-9),
                    "{sigmas:?} {gamma}: {w:?}"
                );
            }
        }
    }

    #[test]
    fn sigma_zero_takes_all_weight_below_gamma_one() {
        let w = harmonic_weights(&[0.0, 0.5, 1.0], 0.75);
        assert_eq!(w, vec![1.0, 0.0, 0.0]);
        let w = harmonic_weights(&[0.0, 0.0, 1.0], 0.5);
        assert_eq!(w, vec![0.5, 0.5, 0.0]);
        let w = harmonic_weights(&[0.0, 0.5, 1.0], 1.0);
        assert!(w.iter().all(|&x| close(x, 1.0 / 3.0, 1e-15)));
    }

    #[test]
    fn tiny_sigma_at_smallest_gamma_dominates_without_overflow() {
        // σ = 1e-6 at γ = 0.01: raw power would be (1e-6)^-198 = 1e1188, far past f64.
        let w = harmonic_weights(&[1e-6, 0.2179, 0.46], 0.01);
        assert!(close(w[0], 1.0, 1e-12), "{w:?}");
        assert!(w[1] >= 0.0 && w[1] < 1e-12);
    }

    #[test]
    fn gamma_to_zero_selects_smallest_sigma() {
        let it = items();
        let (w, s) = aggregate(&it, 0.0).unwrap();
        assert_eq!(w, vec![0.0, 0.0, 0.0, 1.0, 0.0]); // Fluency has the smallest σ
        assert_eq!(s, 4.95);
    }

    #[test]
    fn overall_stays_within_the_rating_range() {
        for (g, s) in overall_curve(&items(), 100) {
            assert!((1.0..=5.0).contains(&s), "{g} -> {s}");
        }
    }

    #[test]
    fn failed_criterion_is_left_out_and_weights_renormalise() {
        // Coverage 0 means no distribution: the criterion is absent from `items`.
        let mut it = items();
        it.remove(0);
        let (w, s) = aggregate(&it, 0.75).unwrap();
        assert_eq!(w.len(), 4);
        assert!(close(w.iter().sum(), 1.0, 1e-12));
        assert!((1.0..=5.0).contains(&s));
        assert!(aggregate(&[], 0.75).is_none());
    }

    #[test]
    fn unsmoothed_criteria_keep_a_uniform_share() {
        // SPEC items with Correctness (3.95) replaced by a printed rating 4 of unknown σ.
        let mut it = items();
        it[0] = Scored {
            score: 4.0,
            sigma: None,
        };
        for gamma in [0.01, 0.25, 0.5, 0.75, 1.0] {
            let (w, s) = aggregate(&it, gamma).unwrap();
            assert!(close(w[0], 0.2, 1e-15), "{gamma}: {w:?}");
            assert!(close(w.iter().sum(), 1.0, 1e-12));
            // The other four split 0.8 by their own harmonic weights.
            let sigmas: Vec<f64> = it[1..].iter().map(|i| i.sigma.unwrap()).collect();
            let h = harmonic_weights(&sigmas, gamma);
            for (a, b) in w[1..].iter().zip(&h) {
                assert!(close(*a, 0.8 * b, 1e-15));
            }
            let expected = 0.2 * 4.0
                + it[1..]
                    .iter()
                    .zip(&h)
                    .map(|(i, hw)| 0.8 * hw * i.score)
                    .sum::<f64>();
            assert!(close(s, expected, 1e-12));
        }
        // At γ = 1 everything is uniform, as without unsmoothed criteria.
        let (w, _) = aggregate(&it, 1.0).unwrap();
        assert!(w.iter().all(|&x| close(x, 0.2, 1e-15)));
    }

    #[test]
    fn all_unsmoothed_is_the_plain_mean_at_every_gamma() {
        let it = [4.0, 3.0, 5.0].map(|score| Scored { score, sigma: None });
        for gamma in [0.01, 0.75, 1.0] {
            let (w, s) = aggregate(&it, gamma).unwrap();
            assert_eq!(w, vec![1.0 / 3.0; 3]);
            assert!(close(s, 4.0, 1e-12));
        }
    }

    #[test]
    fn the_allocation_free_overall_equals_aggregate() {
        let mut rng = crate::meta::resample::Rng::new(7);
        let mut next = || rng.unit();
        for case in 0..500 {
            let n = 1 + case % 5;
            let items: Vec<Scored> = (0..n)
                .map(|k| Scored {
                    score: 1.0 + 4.0 * next(),
                    sigma: match (case + k) % 7 {
                        0 => None,
                        1 => Some(0.0),
                        _ => Some(2.0 * next()),
                    },
                })
                .collect();
            for gamma in [0.0, 0.01, 0.3, 0.75, 1.0] {
                let a = aggregate(&items, gamma).unwrap().1;
                let b = overall_score(&items, gamma).unwrap();
                assert!((a - b).abs() < 1e-12, "{items:?} {gamma}: {a} vs {b}");
            }
        }
        assert_eq!(overall_score(&[], 0.5), None);
    }

    #[test]
    fn curve_spans_gamma_range() {
        let c = overall_curve(&items(), 100);
        assert_eq!(c.len(), 100);
        assert!(close(c[0].0, 0.01, 1e-12) && close(c[99].0, 1.0, 1e-12));
        assert!(close(c[0].1, 4.95, 5e-5) && close(c[99].1, 4.076, 5e-5));
    }
}
