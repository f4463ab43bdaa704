//! The resampling machinery behind every interval and p-value in the lab: a seeded generator,
//! resamples drawn as counts per unit, and numpy's percentile.
//!
//! **Units.** A bootstrap resamples *units* with replacement: items, or whole groups when the
//! dataset has groups (a best-of-N set stays together, so its pairs are never split). A
//! resample is then the number of times each unit was drawn ([`Resampler::next_counts`]); every
//! statistic here takes those counts as weights on its observations, which gives exactly the
//! statistic of the materialised resample (tested against it) without copying or re-sorting.
//!
//! **Seeded.** The generator is SplitMix64 with a fixed default seed ([`DEFAULT_SEED`]), so the
//! same data give the same interval on every visit, browser and platform.

/// The lab's seed: the same file gives the same interval.
pub const DEFAULT_SEED: u64 = 0x0005_eed5_2027;

/// Resamples per interval and permutations per test, unless asked otherwise.
pub const DEFAULT_RESAMPLES: usize = 1000;

/// SplitMix64: tiny, fast, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0) by multiply-shift; the bias is below n / 2⁶⁴.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `[0, 1)`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.next_u64() >> 63 == 1
    }
}

/// Draws resamples of `units` units one at a time, as counts per unit, so a caller can spread
/// the work over slices of main-thread time and stop whenever it likes.
#[derive(Clone, Debug)]
pub struct Resampler {
    rng: Rng,
    counts: Vec<u32>,
}

impl Resampler {
    pub fn new(seed: u64, units: usize) -> Resampler {
        Resampler {
            rng: Rng::new(seed),
            counts: vec![0; units],
        }
    }

    /// The next resample: how many times each unit was drawn (they sum to the unit count).
    pub fn next_counts(&mut self) -> &[u32] {
        self.counts.iter_mut().for_each(|c| *c = 0);
        let n = self.counts.len();
        for _ in 0..n {
            let u = self.rng.below(n);
            self.counts[u] += 1;
        }
        &self.counts
    }

    /// The next permutation of a paired test: `true` for each unit whose two runs swap.
    pub fn next_flips(&mut self, flips: &mut Vec<bool>) {
        flips.clear();
        let n = self.counts.len();
        flips.extend((0..n).map(|_| self.rng.coin()));
    }
}

/// Maps each observation's unit label to a dense unit index (first appearance order): one unit
/// per distinct label. Items without a group get a label of their own from the caller.
pub fn dense_units<T: Eq + std::hash::Hash>(
    labels: impl IntoIterator<Item = T>,
) -> (Vec<u32>, usize) {
    let mut seen = std::collections::HashMap::new();
    let units: Vec<u32> = labels
        .into_iter()
        .map(|l| {
            let next = seen.len() as u32;
            *seen.entry(l).or_insert(next)
        })
        .collect();
    (units, seen.len())
}

/// `np.percentile(values, q)` (linear interpolation, q in 0..=100) of values already sorted;
/// `None` when empty.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let pos = q / 100.0 * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    let frac = pos - lo as f64;
    // numpy's _lerp: a + (b − a)·t, and b − (b − a)·(1 − t) when t ≥ 0.5.
    let (a, b) = (sorted[lo], sorted[hi]);
    let diff = b - a;
    Some(if frac >= 0.5 {
        b - diff * (1.0 - frac)
    } else {
        a + diff * frac
    })
}

/// A percentile interval: the central `level` of a bootstrap distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// The 95 % percentile interval of `samples` (sorted in place); `None` when there are none.
/// Undefined resamples (a resample where every rating is equal, say) are left out by the
/// callers before this, so the interval describes the resamples where the figure exists.
pub fn percentile_interval(samples: &mut [f64]) -> Option<Interval> {
    samples.sort_unstable_by(f64::total_cmp);
    Some(Interval {
        low: percentile_sorted(samples, 2.5)?,
        high: percentile_sorted(samples, 97.5)?,
    })
}

/// A paired permutation test's two-sided p-value, as `scipy.stats.permutation_test` computes it
/// for a randomized test: the smaller one-sided p doubled, each one-sided p counting the
/// observed statistic itself ((k + 1) / (n + 1)), comparisons made with scipy's relative
/// tolerance of 10⁻¹⁴, clipped to 1. So a run compared with itself gets exactly 1.
pub fn two_sided_p(observed: f64, null: &[f64]) -> f64 {
    let gamma = (1e-14 * observed).abs();
    let n = null.len() as f64;
    let less = null.iter().filter(|&&v| v <= observed + gamma).count() as f64;
    let greater = null.iter().filter(|&&v| v >= observed - gamma).count() as f64;
    let p_less = (less + 1.0) / (n + 1.0);
    let p_greater = (greater + 1.0) / (n + 1.0);
    (2.0 * p_less.min(p_greater)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_is_numpys_linear() {
        // np.percentile([1, 2, 3, 4, 10], [2.5, 50, 97.5]) → 1.1, 3.0, 9.4
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert!((percentile_sorted(&v, 2.5).unwrap() - 1.1).abs() < 1e-12);
        assert_eq!(percentile_sorted(&v, 50.0), Some(3.0));
        assert!((percentile_sorted(&v, 97.5).unwrap() - 9.4).abs() < 1e-12);
        assert_eq!(percentile_sorted(&[7.0], 2.5), Some(7.0));
        assert_eq!(percentile_sorted(&[], 2.5), None);
    }

    #[test]
    fn resamples_are_seeded_and_sum_to_the_units() {
        let mut a = Resampler::new(DEFAULT_SEED, 50);
        let mut b = Resampler::new(DEFAULT_SEED, 50);
        let mut c = Resampler::new(DEFAULT_SEED + 1, 50);
        let (x, y, z) = (
            a.next_counts().to_vec(),
            b.next_counts().to_vec(),
            c.next_counts().to_vec(),
        );
        assert_eq!(x, y);
        assert_ne!(x, z);
        assert_eq!(x.iter().sum::<u32>(), 50);
        // Roughly 1 − 1/e of the units drawn at least once.
        let drawn = x.iter().filter(|&&c| c > 0).count();
        assert!((20..=45).contains(&drawn), "{drawn}");
    }

    #[test]
    fn p_of_an_all_zero_null_is_one() {
        assert_eq!(two_sided_p(0.0, &[0.0; 1000]), 1.0);
        // Observed beyond every permutation: the smallest p a test of 999 can give, doubled.
        assert_eq!(two_sided_p(5.0, &vec![1.0; 999]), 2.0 / 1000.0);
    }

    #[test]
    fn units_are_dense_in_first_appearance_order() {
        let (u, n) = dense_units(["g2", "g1", "g2", "g3"]);
        assert_eq!((u, n), (vec![0, 1, 0, 2], 3));
    }
}
