//! Kendall's τ of a bootstrap resample in O(n log k), without re-sorting.
//!
//! A resample draws units (items or groups) with replacement; observation i then appears
//! `w[unit(i)]` times. The observations are sorted by (x, y) once, here; for any weights the
//! counts of [`KendallCounts`] follow in one pass along that order:
//!
//! * x ties, joint ties and y ties are Σ C(W, 2) over the groups of equal x, equal (x, y) and
//!   equal y, W being the group's total weight (copies of one observation tie with each other
//!   in both variables, as the materialised resample's duplicates do);
//! * discordant pairs are Σᵢ wᵢ · (weight seen so far with a larger y), kept in a Fenwick tree
//!   over the k distinct y values. Earlier observations with the same x have a y no larger
//!   (the (x, y) order), so they never count.
//!
//! The counts are integers, so τ is exactly that of [`crate::meta::Kendall`] on the resample
//! materialised (tested below), and 1,000 resamples of 10,000 items take well under a second.

use super::kendall::{choose2, key, KendallCounts};

/// Counts (x, y) observations fed in (x, y) order, each with a weight, in O(log k) each.
struct Tally<'a> {
    tree: &'a mut [u64],
    y_weight: &'a mut [u64],
    c: KendallCounts,
    x_run: u64,
    xy_run: u64,
    prev: Option<(u64, u64)>,
}

impl<'a> Tally<'a> {
    fn new(tree: &'a mut [u64], y_weight: &'a mut [u64]) -> Tally<'a> {
        tree.iter_mut().for_each(|t| *t = 0);
        y_weight.iter_mut().for_each(|t| *t = 0);
        Tally {
            tree,
            y_weight,
            c: KendallCounts {
                n: 0,
                discordant: 0,
                x_ties: 0,
                y_ties: 0,
                joint_ties: 0,
                distinct_x: 0,
                distinct_y: 0,
            },
            x_run: 0,
            xy_run: 0,
            prev: None,
        }
    }

    /// One observation with keys (x, y), y rank `r` and weight `w` > 0, after every
    /// observation that sorts before it.
    fn push(&mut self, x: u64, y: u64, r: usize, w: u64) {
        let (new_x, new_xy) = match self.prev {
            None => (true, true),
            Some((px, py)) => (px != x, px != x || py != y),
        };
        if new_x {
            self.c.x_ties += choose2(self.x_run);
            self.c.distinct_x += 1;
            self.x_run = 0;
        }
        if new_xy {
            self.c.joint_ties += choose2(self.xy_run);
            self.xy_run = 0;
        }
        self.prev = Some((x, y));
        self.x_run += w;
        self.xy_run += w;
        // Weight seen so far with y rank ≤ r; the rest has a larger y: discordant.
        let mut at_most = 0u64;
        let mut j = r + 1;
        while j > 0 {
            at_most += self.tree[j];
            j &= j - 1;
        }
        self.c.discordant += w * (self.c.n - at_most);
        let mut j = r + 1;
        while j < self.tree.len() {
            self.tree[j] += w;
            j += j & j.wrapping_neg();
        }
        self.y_weight[r] += w;
        self.c.n += w;
    }

    fn finish(mut self) -> KendallCounts {
        self.c.x_ties += choose2(self.x_run);
        self.c.joint_ties += choose2(self.xy_run);
        for &t in self.y_weight.iter() {
            self.c.y_ties += choose2(t);
            self.c.distinct_y += u64::from(t > 0);
        }
        self.c
    }
}

/// Observations sorted by (x, y) once, as keys, with each one's y rank.
#[derive(Clone, Debug, Default)]
struct Sorted {
    /// (key(x), key(y), y rank, tag) in (x, y) order; the tag is the caller's.
    obs: Vec<(u64, u64, u32, u32)>,
    /// Distinct y values.
    k: usize,
}

impl Sorted {
    fn new(observations: impl IntoIterator<Item = (f64, f64, u32)>) -> Sorted {
        let mut obs: Vec<(u64, u64, u32, u32)> = observations
            .into_iter()
            .filter(|(x, y, _)| !x.is_nan() && !y.is_nan())
            .map(|(x, y, tag)| (key(x), key(y), 0, tag))
            .collect();
        obs.sort_unstable();
        let mut ys: Vec<u64> = obs.iter().map(|o| o.1).collect();
        ys.sort_unstable();
        ys.dedup();
        for o in obs.iter_mut() {
            o.2 = ys.binary_search(&o.1).unwrap_or(0) as u32;
        }
        Sorted { obs, k: ys.len() }
    }
}

/// One variable against another, resampled by unit.
#[derive(Clone, Debug, Default)]
pub struct WeightedKendall {
    sorted: Sorted,
    units: usize,
    tree: Vec<u64>,
    y_weight: Vec<u64>,
}

impl WeightedKendall {
    /// Observations (x, y, unit); those with a NaN are left out (scipy's `nan_policy='omit'`).
    pub fn new(observations: impl IntoIterator<Item = (f64, f64, u32)>) -> WeightedKendall {
        let sorted = Sorted::new(observations);
        let units = sorted
            .obs
            .iter()
            .map(|o| o.3 as usize + 1)
            .max()
            .unwrap_or(0);
        WeightedKendall {
            tree: vec![0; sorted.k + 1],
            y_weight: vec![0; sorted.k],
            units,
            sorted,
        }
    }

    /// Observations kept (no NaN).
    pub fn len(&self) -> usize {
        self.sorted.obs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted.obs.is_empty()
    }

    /// The counts of the sample itself (every weight 1).
    pub fn counts_unweighted(&mut self) -> KendallCounts {
        self.counts(&vec![1; self.units])
    }

    /// The counts of the resample where unit u is drawn `weights[u]` times.
    pub fn counts(&mut self, weights: &[u32]) -> KendallCounts {
        let mut t = Tally::new(&mut self.tree, &mut self.y_weight);
        for &(x, y, r, u) in &self.sorted.obs {
            let w = weights[u as usize];
            if w > 0 {
                t.push(x, y, r as usize, u64::from(w));
            }
        }
        t.finish()
    }
}

/// Two runs' scores (a, b) against the same human rating h, per observation: τ(a, h) and
/// τ(b, h) of a resample (weights per unit) or of a permutation (the units whose a and b
/// swap), both in one pass over the 2n scores sorted once. So a paired bootstrap and a paired
/// permutation test cost O(n log k) per draw, like [`WeightedKendall`].
#[derive(Clone, Debug, Default)]
pub struct PairedKendall {
    /// Tags: unit × 2 + (1 for run b's score).
    sorted: Sorted,
    units: usize,
    trees: [Vec<u64>; 2],
    y_weights: [Vec<u64>; 2],
}

impl PairedKendall {
    /// Observations (a, b, h, unit); those with a NaN anywhere are left out, so both runs are
    /// measured on the same observations.
    pub fn new(observations: impl IntoIterator<Item = (f64, f64, f64, u32)>) -> PairedKendall {
        let kept: Vec<_> = observations
            .into_iter()
            .filter(|(a, b, h, _)| !a.is_nan() && !b.is_nan() && !h.is_nan())
            .collect();
        let units = kept.iter().map(|o| o.3 as usize + 1).max().unwrap_or(0);
        let sorted = Sorted::new(
            kept.iter()
                .flat_map(|&(a, b, h, u)| [(a, h, u * 2), (b, h, u * 2 + 1)]),
        );
        let k = sorted.k;
        PairedKendall {
            sorted,
            units,
            trees: [vec![0; k + 1], vec![0; k + 1]],
            y_weights: [vec![0; k], vec![0; k]],
        }
    }

    /// Observations kept.
    pub fn len(&self) -> usize {
        self.sorted.obs.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.sorted.obs.is_empty()
    }

    /// Units (the resampler's size).
    pub fn units(&self) -> usize {
        self.units
    }

    /// The counts of (run a, run b) where unit u is drawn `weights[u]` times and, where
    /// `flips[u]`, the two runs' scores trade places.
    pub fn counts(
        &mut self,
        weights: Option<&[u32]>,
        flips: Option<&[bool]>,
    ) -> [KendallCounts; 2] {
        let [ta, tb] = &mut self.trees;
        let [wa, wb] = &mut self.y_weights;
        let mut runs = [Tally::new(ta, wa), Tally::new(tb, wb)];
        for &(x, y, r, tag) in &self.sorted.obs {
            let u = (tag / 2) as usize;
            let w = weights.map_or(1, |w| w[u]);
            if w == 0 {
                continue;
            }
            let is_b = tag % 2 == 1;
            let to_b = is_b != flips.is_some_and(|f| f[u]);
            runs[usize::from(to_b)].push(x, y, r as usize, u64::from(w));
        }
        let [a, b] = runs;
        [a.finish(), b.finish()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::kendall::Kendall;
    use crate::meta::resample::Resampler;

    /// Every resample's counts equal those of the resample written out, observation by
    /// observation, through the sorting implementation (which matches scipy bit for bit).
    #[test]
    fn equals_the_materialised_resample() {
        let mut rng = crate::meta::resample::Rng::new(3);
        // 60 items in 25 groups; x on a coarse grid (ties), y ratings 1..5, a few NaN.
        let items: Vec<(f64, f64, u32)> = (0..60)
            .map(|i| {
                let x = (rng.below(12) as f64) / 4.0;
                let y = if i % 17 == 5 {
                    f64::NAN
                } else {
                    1.0 + rng.below(5) as f64
                };
                (x, y, (i % 25) as u32)
            })
            .collect();
        let mut wk = WeightedKendall::new(items.iter().copied());
        let mut plain = Kendall::new();
        let all = plain.counts(
            &items.iter().map(|o| o.0).collect::<Vec<_>>(),
            &items.iter().map(|o| o.1).collect::<Vec<_>>(),
        );
        assert_eq!(wk.counts_unweighted(), all.unwrap());
        let mut r = Resampler::new(11, 25);
        for _ in 0..200 {
            let w = r.next_counts().to_vec();
            let (mut x, mut y) = (Vec::new(), Vec::new());
            for &(a, b, u) in &items {
                for _ in 0..w[u as usize] {
                    x.push(a);
                    y.push(b);
                }
            }
            assert_eq!(wk.counts(&w), plain.counts(&x, &y).unwrap());
        }
    }

    /// Both runs of a paired draw equal their resample (and permutation) written out.
    #[test]
    fn paired_draws_equal_the_materialised_runs() {
        let mut rng = crate::meta::resample::Rng::new(5);
        let items: Vec<(f64, f64, f64, u32)> = (0..40)
            .map(|i| {
                let h = 1.0 + rng.below(5) as f64;
                let a = h + rng.below(3) as f64 * 0.5;
                let b = if i == 7 {
                    f64::NAN
                } else {
                    rng.below(9) as f64 * 0.5
                };
                (a, b, h, (i % 15) as u32)
            })
            .collect();
        let mut pk = PairedKendall::new(items.iter().copied());
        assert_eq!(pk.len(), 39);
        let mut plain = Kendall::new();
        let mut r = Resampler::new(2, 15);
        let mut flips = Vec::new();
        for round in 0..100 {
            let w = r.next_counts().to_vec();
            r.next_flips(&mut flips);
            let flip = round % 2 == 0;
            let (mut xa, mut xb, mut y) = (Vec::new(), Vec::new(), Vec::new());
            for &(a, b, h, u) in items.iter().filter(|o| !o.1.is_nan()) {
                let (a, b) = if flip && flips[u as usize] {
                    (b, a)
                } else {
                    (a, b)
                };
                for _ in 0..w[u as usize] {
                    xa.push(a);
                    xb.push(b);
                    y.push(h);
                }
            }
            let got = pk.counts(Some(&w), flip.then_some(&flips[..]));
            assert_eq!(got[0], plain.counts(&xa, &y).unwrap());
            assert_eq!(got[1], plain.counts(&xb, &y).unwrap());
        }
    }

    #[test]
    fn continuous_y_and_zero_weights() {
        let items = [(0.3, 2.5, 0), (0.1, -1.0, 1), (0.2, 7.0, 2), (0.2, 0.5, 3)];
        let mut wk = WeightedKendall::new(items);
        let c = wk.counts(&[0, 2, 1, 0]);
        let mut k = Kendall::new();
        assert_eq!(c, k.counts(&[0.1, 0.1, 0.2], &[-1.0, -1.0, 7.0]).unwrap());
        assert_eq!(wk.counts(&[0, 0, 0, 0]).n, 0);
    }
}
