//! The overall scores of many items at many γ's, for the lab's slider and sweep.
//!
//! A metric's [`Weighting::overall`] may redo, on every call, work that does not depend on γ
//! (HarmonicEval takes `ln(σ/σ_min)` of every criterion). This table keeps what
//! [`Weighting::prepare`] made of each result, so a γ costs what [`Weighting::at`] costs. The
//! scores are bit for bit those of [`ItemResult::overall`] (tested below).

use super::record::ItemResult;
use crate::scoring::gamma_axis::GAMMA_MIN;
use crate::scoring::weighting::Weighting;

/// The γ's a user may ask for, from any door (`hj --gamma`, Python's `gamma=`): the lab's
/// slider's range, [`GAMMA_MIN`] to 1 (`ui::widgets::gamma_panel`'s bounds).
pub const GAMMA_RANGE: std::ops::RangeInclusive<f64> = GAMMA_MIN..=1.0;

/// `gamma` when it is in [`GAMMA_RANGE`]; otherwise (NaN included) the sentence every door
/// says. Every γ it lets through gives a number wherever one is given at γ = 1 (tested below).
pub fn checked_gamma(gamma: f64) -> Result<f64, String> {
    if GAMMA_RANGE.contains(&gamma) {
        Ok(gamma)
    } else {
        // 1e-320 as such, not as 320 digits.
        let plain = gamma.to_string();
        let shown = if plain.len() > 12 {
            format!("{gamma:e}")
        } else {
            plain
        };
        Err(format!(
            "γ is between {} and {}, as on the lab's slider; {shown} is not.",
            GAMMA_RANGE.start(),
            GAMMA_RANGE.end()
        ))
    }
}

/// One item's γ-independent part.
#[derive(Clone)]
enum Entry {
    /// The same at every γ: another metric's score, γ playing no part, or nothing scored.
    Fixed(Option<f64>),
    /// Weighed at γ by `weighting` from `prepared[start..end]`.
    Weighted {
        weighting: &'static dyn Weighting,
        start: usize,
        end: usize,
    },
}

#[derive(Clone)]
pub struct OverallTable {
    entries: Vec<Entry>,
    prepared: Vec<f64>,
}

impl OverallTable {
    pub fn new(results: &[ItemResult]) -> OverallTable {
        let mut table = OverallTable {
            entries: Vec::with_capacity(results.len()),
            prepared: Vec::with_capacity(results.len() * 15),
        };
        for r in results {
            let entry = table.entry(r);
            table.entries.push(entry);
        }
        table
    }

    fn entry(&mut self, r: &ItemResult) -> Entry {
        if r.is_incomplete() {
            // No overall at any γ, as `ItemResult::overall` says.
            return Entry::Fixed(None);
        }
        let Some(weighting) = r.weighted() else {
            return Entry::Fixed(r.score);
        };
        let start = self.prepared.len();
        match weighting.prepare(&r.scored(), &mut self.prepared) {
            Err(fixed) => {
                self.prepared.truncate(start);
                Entry::Fixed(fixed)
            }
            Ok(()) => Entry::Weighted {
                weighting,
                start,
                end: self.prepared.len(),
            },
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every item's overall score at `gamma` into `out` (NaN where an item has none).
    pub fn scores_at(&self, gamma: f64, out: &mut Vec<f64>) {
        out.clear();
        out.extend(self.entries.iter().map(|e| match *e {
            Entry::Fixed(s) => s.unwrap_or(f64::NAN),
            Entry::Weighted {
                weighting,
                start,
                end,
            } => weighting.at(&self.prepared[start..end], gamma),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::record::CriterionRecord;

    #[test]
    fn gamma_is_checked_against_the_sliders_range_and_nan_refused() {
        for bad in [
            f64::NAN,
            0.0,
            1e-320,
            0.0099,
            -0.5,
            1.0 + 1e-12,
            f64::INFINITY,
        ] {
            let e = checked_gamma(bad).unwrap_err();
            assert!(e.starts_with("γ is between 0.01 and 1"), "{bad}: {e}");
            assert!(e.len() < 80, "{e}");
        }
        for good in [GAMMA_MIN, 0.5, 0.75, 1.0] {
            assert_eq!(checked_gamma(good), Ok(good));
        }
    }

    #[test]
    fn no_gamma_the_check_lets_through_gives_nan() {
        let record = |score: f64, sigma: Option<f64>| CriterionRecord {
            name: "c".into(),
            score: Some(score),
            sigma,
            distribution: None,
            error: None,
            doubts: Vec::new(),
        };
        let sigmas = [
            Some(1e-300),
            Some(1e300),
            Some(0.0),
            None,
            Some(f64::MIN_POSITIVE),
            Some(2.0),
        ];
        let mut results = Vec::new();
        for (i, &a) in sigmas.iter().enumerate() {
            for &b in &sigmas[i..] {
                results.push(ItemResult {
                    metric: "harmonic_eval".into(),
                    criteria: vec![record(1.0, a), record(5.0, b), record(3.0, Some(0.3))],
                    ..ItemResult::default()
                });
            }
        }
        let mut gammas = vec![GAMMA_MIN, GAMMA_MIN + f64::EPSILON, 1.0 - f64::EPSILON, 1.0];
        gammas.extend((1..=100).map(|k| f64::from(k) / 100.0));
        for &g in &gammas {
            let g = checked_gamma(g).unwrap();
            for r in &results {
                let o = r.overall(g).unwrap();
                assert!(
                    o.is_finite() && (1.0..=5.0).contains(&o),
                    "γ {g}: {o} for {r:?}"
                );
            }
        }
    }

    #[test]
    fn scores_equal_item_overall_bit_for_bit() {
        let mut rng = crate::meta::resample::Rng::new(7);
        let mut rnd = || rng.unit();
        let mut results = Vec::new();
        for i in 0..400 {
            let criteria = (0..5)
                .map(|c| CriterionRecord {
                    name: format!("c{c}"),
                    score: (rnd() > 0.05).then(|| 1.0 + 4.0 * rnd()),
                    // Some unsmoothed, some tied, some zero σ.
                    sigma: match (rnd() * 10.0) as u32 {
                        0 => None,
                        1 => Some(0.0),
                        2 => Some(0.5),
                        _ => Some(0.05 + rnd()),
                    },
                    distribution: None,
                    error: None,
                    doubts: Vec::new(),
                })
                .collect();
            results.push(ItemResult {
                id: format!("i{i}"),
                metric: if i % 7 == 3 { "fleur" } else { "harmonic_eval" }.into(),
                criteria: if i % 50 == 0 { Vec::new() } else { criteria },
                score: (i % 100 == 0).then_some(0.7),
                // Some a batch left incomplete: no overall, as `overall` says.
                missing_answers: if i % 11 == 5 {
                    vec!["c4".into()]
                } else {
                    Vec::new()
                },
                ..ItemResult::default()
            });
        }
        assert!(results
            .iter()
            .any(|r| r.is_incomplete() && r.scored_overall(0.5).is_some()));
        let table = OverallTable::new(&results);
        let mut out = Vec::new();
        for gamma in [
            0.0,
            1e-9,
            0.01,
            0.25,
            0.5,
            0.75,
            0.99,
            1.0,
            2.0,
            -1.0,
            f64::NAN,
        ] {
            table.scores_at(gamma, &mut out);
            for (r, got) in results.iter().zip(&out) {
                let want = r.overall(gamma).unwrap_or(f64::NAN);
                assert_eq!(got.to_bits(), want.to_bits(), "{} at γ {gamma}", r.id);
            }
        }
    }
}
