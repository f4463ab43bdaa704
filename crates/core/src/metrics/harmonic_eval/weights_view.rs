//! The numbers behind "a view that teaches γ": each criterion's weight at evenly spaced γ's,
//! stacked into bands that fill [0, 1] (the chart), and the plain-language sentences beside it.

use super::{weigh, CriterionResult};
use crate::scoring::gamma_axis::GAMMA_MIN;

/// Points of the weights chart (and rows of its table).
pub const POINTS: usize = 21;

/// One γ of the chart: each criterion's weight (`None` where it has no score).
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsAt {
    pub gamma: f64,
    pub weights: Vec<Option<f64>>,
}

/// The weights at `points` evenly spaced γ's from [`GAMMA_MIN`] to 1 (empty without a score).
pub fn weight_curve(results: &[Option<&CriterionResult>], points: usize) -> Vec<WeightsAt> {
    if points < 2 || results.iter().all(Option::is_none) {
        return Vec::new();
    }
    (0..points)
        .map(|i| {
            let gamma = GAMMA_MIN + (1.0 - GAMMA_MIN) * i as f64 / (points - 1) as f64;
            WeightsAt {
                gamma,
                weights: weigh(results, gamma).0,
            }
        })
        .collect()
}

/// For criterion `k`, its band at each point: (γ, bottom, top) with the criteria before it
/// stacked below, so the bands of all criteria fill 0..1 at every γ.
pub fn band(curve: &[WeightsAt], k: usize) -> Vec<(f64, f64, f64)> {
    curve
        .iter()
        .map(|p| {
            let below: f64 = p.weights[..k].iter().flatten().sum();
            let own = p.weights.get(k).copied().flatten().unwrap_or(0.0);
            (p.gamma, below, below + own)
        })
        .collect()
}

/// The plain-language glossary shown beside the chart: (term, explanation).
pub const GLOSSARY: [(&str, &str); 5] = [
    ("σ (sigma)", "How unsure the judge was about a criterion: the spread of its rating probabilities. 0 means it put all its probability on one rating."),
    ("Coverage", "How much of the judge's probability went to the ratings 1 to 5 at all. Low coverage means the score rests on little."),
    ("Selective (γ = 0.01)", "Almost all the weight goes to the criteria the judge was surest about."),
    ("Inverse-variance (γ = 0.5)", "Each criterion counts in proportion to 1/σ²: surer criteria count more, none is ignored."),
    ("Uniform (γ = 1)", "Every criterion counts the same, however sure or unsure the judge was."),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::harmonic_eval::weighting::{sigma, smoothed_score};

    fn r(p: [f64; 5]) -> CriterionResult {
        CriterionResult {
            distribution: p,
            score: smoothed_score(&p),
            sigma: Some(sigma(&p)),
            coverage: Some(1.0),
            answer: String::new(),
            usage: None,
            doubts: vec![],
        }
    }

    #[test]
    fn the_bands_fill_the_unit_interval_and_move_weight_to_the_sure_criterion_as_gamma_falls() {
        let (sure, unsure) = (r([0.0, 0.0, 0.0, 0.1, 0.9]), r([0.2, 0.2, 0.2, 0.2, 0.2]));
        let results = [Some(&sure), None, Some(&unsure)];
        let curve = weight_curve(&results, POINTS);
        assert_eq!(curve.len(), POINTS);
        assert_eq!((curve[0].gamma, curve[POINTS - 1].gamma), (GAMMA_MIN, 1.0));
        for k in 0..3 {
            for (g, lo, hi) in band(&curve, k) {
                assert!(lo <= hi + 1e-12 && hi <= 1.0 + 1e-12, "γ {g}: {lo}..{hi}");
            }
        }
        let top = band(&curve, 2);
        assert!(
            top.iter().all(|(_, _, hi)| (hi - 1.0).abs() < 1e-12),
            "stacked to 1"
        );
        assert_eq!(curve[5].weights[1], None, "not run: no weight");
        let sure_w: Vec<f64> = curve.iter().map(|p| p.weights[0].unwrap()).collect();
        assert!(
            sure_w[0] > 0.99 && (sure_w[POINTS - 1] - 0.5).abs() < 1e-12,
            "{sure_w:?}"
        );
        assert!(
            sure_w.windows(2).all(|w| w[0] >= w[1] - 1e-12),
            "falls as γ grows"
        );
        assert!(weight_curve(&[None, None], POINTS).is_empty());
    }
}
