//! The overall scores of many items at many γ's, for the lab's slider and sweep.
//!
//! [`crate::scoring::aggregate::overall_score`] takes `ln(σ/σ_min)` of every criterion on every call;
//! none of that depends on γ. This table keeps each result's [`Split`] and logarithms, so a γ
//! costs one `exp` per criterion. Both go through [`Split::at`], so the scores are bit-for-bit
//! those of [`ItemResult::overall`] (tested below).

use super::record::ItemResult;
use crate::scoring::aggregate::{split, Split};

/// One item's γ-independent part.
#[derive(Clone)]
enum Entry {
    /// Not a weighted aggregate (another metric's score, or nothing scored).
    Fixed(Option<f64>),
    /// Its smoothed criteria are `start..end` of `log_ratio` / `score`.
    Weighted {
        split: Split,
        start: usize,
        end: usize,
    },
}

#[derive(Clone)]
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
        let split = match split(&scored) {
            None => return Entry::Fixed(None),
            Some(Err(mean)) => return Entry::Fixed(Some(mean)),
            Some(Ok(split)) => split,
        };
        let start = self.score.len();
        for (s, x) in scored.iter().filter_map(|i| i.sigma.map(|s| (s, i.score))) {
            self.log_ratio.push((s / split.min_sigma).ln());
            self.score.push(x);
        }
        Entry::Weighted {
            split,
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
        out.clear();
        out.extend(self.entries.iter().map(|e| {
            match *e {
                Entry::Fixed(s) => s.unwrap_or(f64::NAN),
                Entry::Weighted { split, start, end } => split.at(
                    gamma,
                    self.log_ratio[start..end]
                        .iter()
                        .copied()
                        .zip(self.score[start..end].iter().copied()),
                ),
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
                    doubts: Vec::new(),
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
