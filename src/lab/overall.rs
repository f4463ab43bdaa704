//! The overall scores of many items at many γ's, for the lab's slider and sweep.
//!
//! [`crate::aggregate::overall_score`] takes `ln(σ/σ_min)` of every criterion on every call;
//! none of that depends on γ. This table takes the logarithms once per set of results, so a γ
//! costs one `exp` per criterion. The arithmetic is the same, in the same order, so the
//! scores are bit-for-bit those of [`ItemResult::overall`] (tested below).

use super::record::ItemResult;

/// One item's γ-independent part.
enum Entry {
    /// Not a weighted aggregate (another metric's score, or nothing scored).
    Fixed(Option<f64>),
    Weighted {
        /// Sum of the unsmoothed criteria's scores over all n scored criteria.
        unsmoothed: f64,
        /// known / n: the smoothed criteria's share.
        share: f64,
        /// Plain mean of the smoothed scores (γ = 1).
        mean: f64,
        /// Mean of the scores at the smallest σ (γ = 0, or a σ of 0).
        at_min: f64,
        degenerate: bool,
        /// The item's smoothed criteria in `log_ratio` / `score`.
        start: usize,
        end: usize,
    },
}

pub struct OverallTable {
    entries: Vec<Entry>,
    log_ratio: Vec<f64>,
    score: Vec<f64>,
}

impl OverallTable {
    pub fn new(results: &[ItemResult]) -> OverallTable {
        let mut table = OverallTable {
            entries: Vec::with_capacity(results.len()),
            log_ratio: Vec::with_capacity(results.len() * 5),
            score: Vec::with_capacity(results.len() * 5),
        };
        for r in results {
            let entry = table.entry(r);
            table.entries.push(entry);
        }
        table
    }

    fn entry(&mut self, r: &ItemResult) -> Entry {
        if r.criteria.is_empty() {
            return Entry::Fixed(r.score);
        }
        let scored = r.scored();
        if scored.is_empty() {
            return Entry::Fixed(None);
        }
        let n = scored.len() as f64;
        let smoothed = || scored.iter().filter_map(|i| i.sigma.map(|s| (s, i.score)));
        let known = smoothed().count();
        let unsmoothed: f64 = scored
            .iter()
            .filter(|i| i.sigma.is_none())
            .map(|i| i.score)
            .sum::<f64>()
            / n;
        if known == 0 {
            return Entry::Fixed(Some(unsmoothed));
        }
        let min_sigma = smoothed().map(|(s, _)| s).fold(f64::INFINITY, f64::min);
        let (count, sum) = smoothed()
            .filter(|(s, _)| *s == min_sigma)
            .fold((0usize, 0.0), |(c, t), (_, x)| (c + 1, t + x));
        let start = self.score.len();
        for (s, x) in smoothed() {
            self.log_ratio.push((s / min_sigma).ln());
            self.score.push(x);
        }
        Entry::Weighted {
            unsmoothed,
            share: known as f64 / n,
            mean: smoothed().map(|(_, x)| x).sum::<f64>() / known as f64,
            at_min: sum / count as f64,
            degenerate: min_sigma <= 0.0,
            start,
            end: self.score.len(),
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
        let gamma = if gamma.is_nan() {
            0.0
        } else {
            gamma.clamp(0.0, 1.0)
        };
        let exponent = 2.0 * (1.0 - gamma) / gamma;
        out.clear();
        out.extend(self.entries.iter().map(|e| match *e {
            Entry::Fixed(s) => s.unwrap_or(f64::NAN),
            Entry::Weighted {
                unsmoothed,
                share,
                mean,
                at_min,
                degenerate,
                start,
                end,
            } => {
                let harmonic = if gamma >= 1.0 {
                    mean
                } else if degenerate || gamma <= 0.0 {
                    at_min
                } else {
                    let (h, total) = self.log_ratio[start..end]
                        .iter()
                        .zip(&self.score[start..end])
                        .fold((0.0, 0.0), |(h, t), (lr, x)| {
                            let w = (-exponent * lr).exp();
                            (h + w, t + w * x)
                        });
                    total / h
                };
                unsmoothed + share * harmonic
            }
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::record::CriterionRecord;

    #[test]
    fn scores_equal_item_overall_bit_for_bit() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
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
                })
                .collect();
            results.push(ItemResult {
                id: format!("i{i}"),
                criteria: if i % 50 == 0 { Vec::new() } else { criteria },
                score: (i % 100 == 0).then_some(0.7),
                ..ItemResult::default()
            });
        }
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
