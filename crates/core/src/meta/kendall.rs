//! Kendall's τ-b and τ-c, exactly as `scipy.stats.kendalltau(x, y, variant='b'|'c')`.
//!
//! With n observations (after NaN pairs are dropped, see below), let
//!
//! * `tot` = n(n−1)/2, the number of pairs;
//! * `xtie` = Σ t(t−1)/2 over groups of t equal x values, `ytie` likewise for y;
//! * `ntie` = the same sum over groups of equal (x, y) pairs (pairs tied in both);
//! * `dis` = the number of discordant pairs (x and y strictly ordered opposite ways);
//! * P − Q = tot − xtie − ytie + ntie − 2·dis (concordant minus discordant);
//! * m = min(number of distinct x values, number of distinct y values).
//!
//! Then
//!
//! * τ-b = (P − Q) / √(tot − xtie) / √(tot − ytie)
//! * τ-c = 2(P − Q) / (n²·(m − 1)/m)
//!
//! both clipped to [−1, 1]. The floating-point operations are done in the same order as scipy's
//! (integer counts, one conversion to `f64`, then the divisions), so results agree with scipy to
//! the last bit or so, not just approximately.
//!
//! **Undefined cases** give `None` where scipy gives NaN: fewer than two observations, or all x
//! equal, or all y equal (`xtie == tot` or `ytie == tot`). Slices of different lengths also
//! give `None` (scipy raises).
//!
//! **NaN policy: pairs with a NaN are skipped.** An observation i is dropped when `x[i]` or
//! `y[i]` is NaN, and τ is computed on the rest (n counts only the kept pairs). This is scipy's
//! `nan_policy='omit'`; scipy's default (`'propagate'`) would return NaN instead. Skipping is what
//! the CLIPScore Flickr8k script does with a missing expert rating, and it lets a metric that
//! failed on a few items still be correlated on the rest. Infinities are ordinary values (they
//! compare and tie like any other number); −0.0 and 0.0 are equal, as in numpy.
//!
//! # Complexity
//!
//! O(n log n) time (Knight's algorithm): the pairs are sorted by (x, y); ties in x and in (x, y)
//! are counted along that order; the discordant pairs are the strict inversions of the y
//! sequence, counted by a bottom-up merge sort, which also leaves y sorted so ties in y can be
//! counted. Floats are mapped to order-preserving integer keys first, so both sorts compare
//! integers. Memory is O(n): three buffers (one of packed (x, y) keys, two of y keys) held by
//! [`Kendall`], which can be kept and reused so that repeated calls allocate nothing once the
//! buffers have grown. The free functions ([`tau_b`], [`tau_c`], [`kendall_tau`]) allocate those
//! buffers afresh on each call.

/// Runs at most this long are sorted by insertion before merging.
const INSERTION_RUN: usize = 24;

/// The integer statistics τ-b and τ-c are computed from (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KendallCounts {
    /// Observations used (NaN pairs excluded).
    pub n: u64,
    /// Pairs strictly ordered opposite ways in x and y.
    pub discordant: u64,
    /// Σ t(t−1)/2 over groups of equal x values.
    pub x_ties: u64,
    /// Σ t(t−1)/2 over groups of equal y values.
    pub y_ties: u64,
    /// Σ t(t−1)/2 over groups of equal (x, y) pairs.
    pub joint_ties: u64,
    /// Number of distinct x values.
    pub distinct_x: u64,
    /// Number of distinct y values.
    pub distinct_y: u64,
}

impl KendallCounts {
    /// n(n−1)/2.
    pub fn total_pairs(&self) -> u64 {
        if self.n < 2 {
            0
        } else {
            self.n * (self.n - 1) / 2
        }
    }

    /// Pairs strictly ordered the same way in x and y.
    pub fn concordant(&self) -> u64 {
        // tot = con + dis + xtie + ytie − ntie; never negative for counts produced here.
        (self.total_pairs() + self.joint_ties)
            .saturating_sub(self.x_ties + self.y_ties + self.discordant)
    }

    /// P − Q, concordant minus discordant pairs.
    pub fn concordant_minus_discordant(&self) -> i64 {
        self.total_pairs() as i64 - self.x_ties as i64 - self.y_ties as i64 + self.joint_ties as i64
            - 2 * self.discordant as i64
    }

    /// Whether τ is defined: at least two observations and neither variable constant.
    pub fn is_defined(&self) -> bool {
        let tot = self.total_pairs();
        self.n >= 2 && self.x_ties != tot && self.y_ties != tot
    }

    /// τ-b, or `None` when undefined.
    pub fn tau_b(&self) -> Option<f64> {
        if !self.is_defined() {
            return None;
        }
        let tot = self.total_pairs();
        let cmd = self.concordant_minus_discordant() as f64;
        let tau = cmd / ((tot - self.x_ties) as f64).sqrt() / ((tot - self.y_ties) as f64).sqrt();
        Some(clip(tau))
    }

    /// τ-c (Stuart's), or `None` when undefined.
    pub fn tau_c(&self) -> Option<f64> {
        if !self.is_defined() {
            return None;
        }
        let m = self.distinct_x.min(self.distinct_y);
        // Defined implies both variables take at least two values, so m ≥ 2. scipy divides the
        // exact integer n²(m−1) by m with one rounding; so does this while n²(m−1) < 2^53.
        let numerator = (self.n as u128 * self.n as u128 * (m - 1) as u128) as f64;
        let denominator = numerator / m as f64;
        let tau = 2.0 * self.concordant_minus_discordant() as f64 / denominator;
        Some(clip(tau))
    }

    /// Both variants.
    pub fn taus(&self) -> Option<KendallTau> {
        Some(KendallTau {
            b: self.tau_b()?,
            c: self.tau_c()?,
            n: self.n as usize,
        })
    }
}

/// τ-b and τ-c of one pair of vectors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KendallTau {
    pub b: f64,
    pub c: f64,
    /// Observations used (NaN pairs excluded).
    pub n: usize,
}

/// `np.minimum(1., max(-1., tau))`.
fn clip(tau: f64) -> f64 {
    tau.clamp(-1.0, 1.0)
}

/// Reusable buffers for computing Kendall's τ; keep one around to avoid allocating per call.
#[derive(Clone, Debug, Default)]
pub struct Kendall {
    /// Observations as (key(x), key(y)) packed in one integer, so sorting is by x then y.
    pairs: Vec<u128>,
    ys: Vec<u64>,
    scratch: Vec<u64>,
}

impl Kendall {
    pub fn new() -> Self {
        Self::default()
    }

    /// Buffers sized for `n` observations.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            pairs: Vec::with_capacity(n),
            ys: Vec::with_capacity(n),
            scratch: Vec::with_capacity(n),
        }
    }

    /// τ-b and τ-c of `x` against `y`; `None` when undefined or the lengths differ.
    pub fn tau(&mut self, x: &[f64], y: &[f64]) -> Option<KendallTau> {
        self.counts(x, y)?.taus()
    }

    /// The tie and discordance counts of `x` against `y`; `None` only when the lengths differ.
    pub fn counts(&mut self, x: &[f64], y: &[f64]) -> Option<KendallCounts> {
        if x.len() != y.len() {
            return None;
        }
        Some(self.counts_of_pairs(x.iter().copied().zip(y.iter().copied())))
    }

    /// The counts over (x, y) observations given one by one; pairs with a NaN are skipped.
    /// This lets callers feed a derived sequence (such as a score repeated once per rating)
    /// without building the flattened vectors first.
    pub fn counts_of_pairs<I>(&mut self, observations: I) -> KendallCounts
    where
        I: IntoIterator<Item = (f64, f64)>,
    {
        self.pairs.clear();
        self.pairs.extend(
            observations
                .into_iter()
                .filter(|(x, y)| !x.is_nan() && !y.is_nan())
                .map(|(x, y)| (u128::from(key(x)) << 64) | u128::from(key(y))),
        );
        let n = self.pairs.len();
        let mut counts = KendallCounts {
            n: n as u64,
            discordant: 0,
            x_ties: 0,
            y_ties: 0,
            joint_ties: 0,
            distinct_x: 0,
            distinct_y: 0,
        };
        if n == 0 {
            return counts;
        }

        // Keys order like the numbers and are equal exactly when the numbers are.
        self.pairs.sort_unstable();

        // Ties in x and in (x, y), and the distinct x values, along the sorted order.
        (counts.x_ties, counts.distinct_x) = tie_runs(self.pairs.iter().map(|p| p >> 64));
        (counts.joint_ties, _) = tie_runs(self.pairs.iter().copied());

        // Discordant pairs: i < j in (x, y) order with y_i > y_j. Pairs tied in x have y in
        // ascending order, and pairs tied in y are not strict inversions, so neither is counted.
        self.ys.clear();
        self.ys.extend(self.pairs.iter().map(|&p| p as u64));
        self.scratch.clear();
        self.scratch.resize(n, 0);
        counts.discordant = sort_counting_inversions(&mut self.ys, &mut self.scratch);

        // Ties in y along the now sorted y values.
        (counts.y_ties, counts.distinct_y) = tie_runs(self.ys.iter().copied());
        counts
    }
}

/// An integer that orders like the (non-NaN) float: flip all bits of negatives, set the sign
/// bit of positives. −0.0 is first turned into 0.0 so the two tie, as they do in numpy.
pub(super) fn key(v: f64) -> u64 {
    let bits = (v + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Along a sorted, non-empty sequence: Σ t(t−1)/2 over its runs of t equal values (the pairs
/// tied), and the number of runs (the distinct values).
fn tie_runs<T: PartialEq>(mut sorted: impl Iterator<Item = T>) -> (u64, u64) {
    let Some(mut last) = sorted.next() else {
        return (0, 0);
    };
    let (mut ties, mut distinct, mut run) = (0, 1, 1u64);
    for v in sorted {
        if v == last {
            run += 1;
        } else {
            ties += choose2(run);
            distinct += 1;
            run = 1;
            last = v;
        }
    }
    (ties + choose2(run), distinct)
}

pub(super) fn choose2(t: u64) -> u64 {
    t * t.saturating_sub(1) / 2
}

/// Sorts `v` ascending and returns the number of strict inversions (i < j, v[i] > v[j]).
/// `scratch` must be as long as `v`; on return `v` holds the sorted values.
fn sort_counting_inversions(v: &mut Vec<u64>, scratch: &mut Vec<u64>) -> u64 {
    let n = v.len();
    debug_assert_eq!(scratch.len(), n);
    let mut inversions = 0u64;

    // Short runs by insertion: each one-place shift removes exactly one strict inversion.
    for run in v.chunks_mut(INSERTION_RUN) {
        for i in 1..run.len() {
            let value = run[i];
            let mut j = i;
            while j > 0 && run[j - 1] > value {
                run[j] = run[j - 1];
                j -= 1;
            }
            inversions += (i - j) as u64;
            run[j] = value;
        }
    }

    // Bottom-up merges, alternating between the two buffers.
    let mut width = INSERTION_RUN;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            inversions += merge(&v[start..mid], &v[mid..end], &mut scratch[start..end]);
            start = end;
        }
        std::mem::swap(v, scratch);
        width *= 2;
    }
    inversions
}

/// Merges two sorted runs into `out`, returning how many (left, right) pairs have
/// left > right.
fn merge(left: &[u64], right: &[u64], out: &mut [u64]) -> u64 {
    let (mut i, mut j, mut k) = (0, 0, 0);
    let mut inversions = 0u64;
    while i < left.len() && j < right.len() {
        if right[j] < left[i] {
            // right[j] is smaller than every remaining left value.
            out[k] = right[j];
            inversions += (left.len() - i) as u64;
            j += 1;
        } else {
            out[k] = left[i];
            i += 1;
        }
        k += 1;
    }
    let rest_left = left.len() - i;
    out[k..k + rest_left].copy_from_slice(&left[i..]);
    k += rest_left;
    out[k..].copy_from_slice(&right[j..]);
    inversions
}

/// τ-b and τ-c in one pass; `None` when undefined (n < 2 after dropping NaN pairs, a constant
/// vector) or when the lengths differ.
///
/// # Example
///
/// Ties in both variables and two observations with a NaN, which are left out (scipy's
/// `nan_policy='omit'`): scipy 1.17.1 gives τ-b 0.6666666666666666 and τ-c 0.64 on the five
/// that remain (SPEC §6: τ as scipy defines it).
///
/// ```
/// use harmonic_judge_core::meta::kendall_tau;
///
/// let x = [1.0, f64::NAN, 2.0, 3.0, 3.0, 4.0, 5.0];
/// let y = [2.0, 1.0, f64::NAN, 1.0, 4.0, 4.0, 5.0];
/// let t = kendall_tau(&x, &y).unwrap();
/// assert_eq!(t.n, 5);
/// assert!((t.b - 0.6666666666666666).abs() < 1e-15);
/// assert!((t.c - 0.64).abs() < 1e-15);
/// assert_eq!(kendall_tau(&x, &y[..6]), None); // lengths differ
/// ```
pub fn kendall_tau(x: &[f64], y: &[f64]) -> Option<KendallTau> {
    Kendall::with_capacity(x.len()).tau(x, y)
}

/// τ-b as `scipy.stats.kendalltau(x, y, variant='b', nan_policy='omit')`.
///
/// # Example
///
/// A case pinned from scipy 1.17.1 (SPEC §6: τ as scipy defines it): eight distinct
/// observations give 0.5714285714285714; a constant variable leaves τ undefined (scipy: NaN).
///
/// ```
/// use harmonic_judge_core::meta::tau_b;
///
/// let x = [0.3, 1.7, -2.5, 4.0, 2.2, 0.9, 3.1, -1.0];
/// let y = [1.1, 2.0, -0.5, 3.3, 0.2, 0.8, 4.4, -1.9];
/// assert!((tau_b(&x, &y).unwrap() - 0.5714285714285714).abs() < 1e-15);
/// assert_eq!(tau_b(&x, &[1.0; 8]), None);
/// ```
pub fn tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    Kendall::with_capacity(x.len()).counts(x, y)?.tau_b()
}

/// τ-c as `scipy.stats.kendalltau(x, y, variant='c', nan_policy='omit')`.
pub fn tau_c(x: &[f64], y: &[f64]) -> Option<f64> {
    Kendall::with_capacity(x.len()).counts(x, y)?.tau_c()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12
    }

    /// (name, x, y, τ-b, τ-c) from scipy 1.17.1 / numpy 2.4.6:
    /// `scipy.stats.kendalltau(x, y, variant='b').statistic` and `variant='c'`, printed with
    /// Python's `repr`. (When pinned, every value here matched scipy's bit for bit.)
    type Case = (&'static str, &'static [f64], &'static [f64], f64, f64);
    const SCIPY_CASES: &[Case] = &[
        // n=8, all distinct.
        (
            "all_distinct",
            &[0.3, 1.7, -2.5, 4.0, 2.2, 0.9, 3.1, -1.0],
            &[1.1, 2.0, -0.5, 3.3, 0.2, 0.8, 4.4, -1.9],
            0.5714285714285714,
            0.5714285714285714,
        ),
        // n=9, 5 distinct x, y all distinct.
        (
            "ties_in_x_only",
            &[1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0],
            &[0.5, 0.1, 0.9, 0.3, 0.7, 1.5, 1.1, 2.0, 1.3],
            0.6884869911026371,
            0.7098765432098766,
        ),
        // n=8, x all distinct, 3 distinct y.
        (
            "ties_in_y_only",
            &[0.1, 0.4, 0.2, 0.9, 0.5, 0.7, 0.3, 0.8],
            &[3.0, 1.0, 3.0, 2.0, 1.0, 2.0, 3.0, 1.0],
            -0.45363235436327737,
            -0.515625,
        ),
        // n=10, pairs tied in both x and y.
        (
            "joint_ties",
            &[1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 4.0],
            &[2.0, 2.0, 1.0, 3.0, 3.0, 2.0, 4.0, 4.0, 4.0, 1.0],
            0.3783783783783784,
            0.37333333333333335,
        ),
        ("two_elements", &[1.0, 2.0], &[5.0, 3.0], -1.0, -1.0),
        // n=50, integer ratings 1..5 against scores rounded to 0.1 (5 vs 28 distinct values).
        (
            "ratings_vs_scores_n50",
            &[
                3.0, 1.0, 3.0, 5.0, 2.0, 3.0, 5.0, 5.0, 2.0, 2.0, 5.0, 1.0, 4.0, 4.0, 1.0, 3.0,
                1.0, 5.0, 2.0, 4.0, 2.0, 1.0, 4.0, 3.0, 5.0, 4.0, 5.0, 4.0, 2.0, 2.0, 1.0, 4.0,
                2.0, 3.0, 4.0, 5.0, 2.0, 3.0, 3.0, 1.0, 1.0, 5.0, 3.0, 4.0, 2.0, 1.0, 3.0, 5.0,
                2.0, 5.0,
            ],
            &[
                1.0, 0.8, 1.6, 3.9, 1.4, 3.2, 2.6, 3.8, 1.4, 2.9, 1.0, 1.5, 1.4, 1.5, 0.6, 0.3,
                -0.6, 2.5, 0.9, 0.5, 0.3, 0.5, 2.3, 1.1, 3.0, 1.9, 4.2, 1.6, 1.3, 0.7, 1.5, 1.4,
                2.1, 0.6, 1.0, 2.5, 1.3, 0.3, 1.3, 0.6, 0.6, 3.9, 2.6, 2.7, 2.1, 1.5, 0.7, 5.2,
                1.2, 2.4,
            ],
            0.4448571623185792,
            0.485,
        ),
        // n=10, 3 distinct x and 6 distinct y: τ-c uses m = 3.
        (
            "m_differs",
            &[1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 2.0, 3.0, 2.0],
            &[0.5, 1.5, 2.5, 0.5, 3.5, 4.5, 2.5, 5.5, 4.5, 1.5],
            0.4893545230443332,
            0.5399999999999999,
        ),
        (
            "negative",
            &[5.0, 4.0, 4.0, 3.0, 2.0, 2.0, 1.0],
            &[0.1, 0.3, 0.2, 0.3, 0.9, 0.8, 0.8],
            -0.7894736842105262,
            -0.7653061224489796,
        ),
        // n=120, integers 0..9 against 0..6 (10 vs 7 distinct values): exercises the merges.
        (
            "integers_n120",
            &[
                9.0, 6.0, 6.0, 8.0, 5.0, 7.0, 8.0, 2.0, 0.0, 3.0, 2.0, 8.0, 9.0, 0.0, 4.0, 8.0,
                1.0, 7.0, 1.0, 4.0, 8.0, 3.0, 3.0, 2.0, 7.0, 2.0, 9.0, 4.0, 4.0, 5.0, 5.0, 5.0,
                5.0, 9.0, 8.0, 7.0, 7.0, 6.0, 3.0, 9.0, 4.0, 2.0, 8.0, 1.0, 8.0, 6.0, 1.0, 0.0,
                4.0, 0.0, 1.0, 5.0, 9.0, 4.0, 8.0, 9.0, 8.0, 6.0, 4.0, 5.0, 2.0, 4.0, 3.0, 2.0,
                9.0, 0.0, 0.0, 1.0, 9.0, 6.0, 8.0, 2.0, 7.0, 3.0, 4.0, 0.0, 6.0, 8.0, 6.0, 1.0,
                5.0, 2.0, 9.0, 8.0, 1.0, 5.0, 9.0, 8.0, 7.0, 6.0, 0.0, 7.0, 4.0, 0.0, 2.0, 5.0,
                7.0, 5.0, 6.0, 8.0, 6.0, 3.0, 6.0, 5.0, 1.0, 0.0, 6.0, 3.0, 5.0, 3.0, 2.0, 1.0,
                3.0, 8.0, 4.0, 3.0, 5.0, 9.0, 3.0, 5.0,
            ],
            &[
                4.0, 4.0, 3.0, 5.0, 2.0, 4.0, 6.0, 0.0, 0.0, 1.0, 0.0, 3.0, 2.0, 0.0, 4.0, 2.0,
                0.0, 5.0, 2.0, 1.0, 2.0, 2.0, 0.0, 0.0, 3.0, 3.0, 2.0, 3.0, 2.0, 0.0, 4.0, 4.0,
                2.0, 6.0, 5.0, 5.0, 5.0, 3.0, 0.0, 2.0, 2.0, 0.0, 5.0, 2.0, 3.0, 3.0, 0.0, 0.0,
                1.0, 2.0, 2.0, 3.0, 4.0, 2.0, 2.0, 3.0, 6.0, 3.0, 1.0, 1.0, 2.0, 0.0, 3.0, 3.0,
                4.0, 0.0, 1.0, 0.0, 4.0, 2.0, 4.0, 2.0, 1.0, 0.0, 3.0, 0.0, 5.0, 2.0, 5.0, 0.0,
                2.0, 3.0, 2.0, 5.0, 1.0, 2.0, 2.0, 4.0, 3.0, 5.0, 1.0, 2.0, 0.0, 0.0, 0.0, 3.0,
                5.0, 1.0, 5.0, 4.0, 3.0, 2.0, 4.0, 4.0, 2.0, 0.0, 3.0, 3.0, 1.0, 0.0, 1.0, 1.0,
                2.0, 6.0, 3.0, 0.0, 4.0, 4.0, 3.0, 4.0,
            ],
            0.5195945094820119,
            0.5227314814814815,
        ),
    ];

    #[test]
    fn matches_scipy() {
        for &(name, x, y, b, c) in SCIPY_CASES {
            let t = kendall_tau(x, y).unwrap_or_else(|| panic!("{name}: undefined"));
            assert!(close(t.b, b), "{name}: tau-b {} != scipy {}", t.b, b);
            assert!(close(t.c, c), "{name}: tau-c {} != scipy {}", t.c, c);
            assert_eq!(tau_b(x, y), Some(t.b), "{name}");
            assert_eq!(tau_c(x, y), Some(t.c), "{name}");
            assert_eq!(t.n, x.len(), "{name}");
        }
    }

    #[test]
    fn symmetric_in_its_arguments() {
        // Equal up to rounding: swapping x and y swaps the two square roots in τ-b's
        // denominator (scipy is not bit-for-bit symmetric either).
        for &(name, x, y, _, _) in SCIPY_CASES {
            let (a, b) = (kendall_tau(x, y).unwrap(), kendall_tau(y, x).unwrap());
            assert!(close(a.b, b.b) && close(a.c, b.c), "{name}: {a:?} vs {b:?}");
        }
    }

    /// scipy: kendalltau(x, y, variant=..., nan_policy='omit') gives 0.6666666666666666 (b)
    /// and 0.64 (c); the two observations with a NaN are dropped, leaving n = 5.
    #[test]
    fn nan_pairs_are_skipped_like_scipy_omit() {
        let x = [1.0, f64::NAN, 2.0, 3.0, 3.0, 4.0, 5.0];
        let y = [2.0, 1.0, f64::NAN, 1.0, 4.0, 4.0, 5.0];
        let t = kendall_tau(&x, &y).unwrap();
        assert_eq!(t.n, 5);
        assert!(close(t.b, 0.6666666666666666), "{}", t.b);
        assert!(close(t.c, 0.64), "{}", t.c);
        let kept = kendall_tau(&[1.0, 3.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 4.0, 5.0]);
        assert_eq!(Some(t), kept);
    }

    #[test]
    fn perfect_agreement_and_reversal() {
        let x = [1.0, 2.0, 2.0, 3.0, 4.0];
        let t = kendall_tau(&x, &x).unwrap();
        assert_eq!(t.b, 1.0);
        let neg: Vec<f64> = x.iter().map(|v| -v).collect();
        assert_eq!(kendall_tau(&x, &neg).unwrap().b, -1.0);
        // τ-c of identical vectors with ties is below 1 (it does not correct for ties):
        // P − Q = 9, n = 5, m = 4: 18 / (25 · 3/4) = 0.96.
        assert!(close(t.c, 0.96), "{}", t.c);
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        let a = kendall_tau(&[0.0, -0.0, 1.0], &[1.0, 2.0, 3.0]).unwrap();
        let b = kendall_tau(&[0.0, 0.0, 1.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn infinities_are_ordinary_values() {
        let a = kendall_tau(&[f64::NEG_INFINITY, 0.0, f64::INFINITY], &[1.0, 2.0, 3.0]);
        assert_eq!(a.map(|t| t.b), Some(1.0));
    }

    #[test]
    fn degenerate_input_is_undefined() {
        let none: Option<KendallTau> = None;
        assert_eq!(kendall_tau(&[], &[]), none);
        assert_eq!(kendall_tau(&[1.0], &[2.0]), none);
        assert_eq!(kendall_tau(&[3.0, 3.0, 3.0], &[1.0, 2.0, 3.0]), none);
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[0.5, 0.5, 0.5]), none);
        assert_eq!(kendall_tau(&[1.0, 2.0], &[1.0, 2.0, 3.0]), none);
        assert_eq!(kendall_tau(&[f64::NAN, 1.0], &[1.0, 2.0]), none);
        assert_eq!(kendall_tau(&[f64::NAN; 4], &[1.0, 2.0, 3.0, 4.0]), none);
        assert_eq!(tau_b(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(tau_c(&[1.0, 1.0], &[1.0, 2.0]), None);
        // Constant after dropping the NaN pair.
        assert_eq!(tau_b(&[1.0, 1.0, 2.0], &[1.0, 2.0, f64::NAN]), None);
    }

    #[test]
    fn counts_of_a_small_example() {
        // Pairs: (1,1)-(1,1) joint tie, (1,1)-(2,0) discordant, (1,1)-(3,2) concordant twice,
        // (2,0)-(3,2) concordant.
        let c = Kendall::new()
            .counts(&[1.0, 1.0, 2.0, 3.0], &[1.0, 1.0, 0.0, 2.0])
            .unwrap();
        assert_eq!(
            c,
            KendallCounts {
                n: 4,
                discordant: 2,
                x_ties: 1,
                y_ties: 1,
                joint_ties: 1,
                distinct_x: 3,
                distinct_y: 3,
            }
        );
        assert_eq!(c.concordant(), 3);
        assert_eq!(c.concordant_minus_discordant(), 1);
    }

    #[test]
    fn reused_workspace_gives_the_same_results() {
        let mut k = Kendall::new();
        let first: Vec<_> = SCIPY_CASES.iter().map(|c| k.tau(c.1, c.2)).collect();
        let again: Vec<_> = SCIPY_CASES.iter().rev().map(|c| k.tau(c.1, c.2)).collect();
        let fresh: Vec<_> = SCIPY_CASES.iter().map(|c| kendall_tau(c.1, c.2)).collect();
        assert_eq!(first, fresh);
        assert_eq!(again.into_iter().rev().collect::<Vec<_>>(), fresh);
    }

    /// O(n²) reference: every pair classified directly.
    fn naive(x: &[f64], y: &[f64]) -> (KendallCounts, Option<(f64, f64)>) {
        let (x, y): (Vec<f64>, Vec<f64>) = x
            .iter()
            .zip(y)
            .filter(|(a, b)| !a.is_nan() && !b.is_nan())
            .map(|(a, b)| (*a, *b))
            .unzip();
        let n = x.len();
        let (mut con, mut dis, mut xt, mut yt, mut jt) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for i in 0..n {
            for j in i + 1..n {
                let dx = x[i] - x[j];
                let dy = y[i] - y[j];
                if dx == 0.0 {
                    xt += 1;
                }
                if dy == 0.0 {
                    yt += 1;
                }
                if dx == 0.0 && dy == 0.0 {
                    jt += 1;
                }
                if dx * dy > 0.0 {
                    con += 1;
                } else if dx * dy < 0.0 {
                    dis += 1;
                }
            }
        }
        let distinct = |v: &[f64]| {
            let mut s = v.to_vec();
            s.sort_by(|a, b| a.partial_cmp(b).unwrap());
            s.dedup();
            s.len() as u64
        };
        let counts = KendallCounts {
            n: n as u64,
            discordant: dis,
            x_ties: xt,
            y_ties: yt,
            joint_ties: jt,
            distinct_x: distinct(&x),
            distinct_y: distinct(&y),
        };
        let tot = (n * n.saturating_sub(1) / 2) as u64;
        if n < 2 || xt == tot || yt == tot {
            return (counts, None);
        }
        let s = con as f64 - dis as f64;
        let b = s / (((tot - xt) as f64) * ((tot - yt) as f64)).sqrt();
        let m = counts.distinct_x.min(counts.distinct_y) as f64;
        let c = 2.0 * s * m / ((n * n) as f64 * (m - 1.0));
        assert_eq!(con, counts.concordant());
        (counts, Some((b, c)))
    }

    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, k: u64) -> u64 {
            self.next() % k
        }
    }

    #[test]
    fn agrees_with_naive_on_random_vectors_with_ties() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut k = Kendall::new();
        let mut defined = 0;
        for trial in 0..400 {
            let n = (rng.below(301)) as usize;
            // Few distinct values so ties are common; sometimes many.
            let kx = 1 + rng.below(if trial % 3 == 0 { 1000 } else { 8 });
            let ky = 1 + rng.below(if trial % 4 == 0 { 1000 } else { 6 });
            let correlate = rng.below(3);
            let mut x = Vec::with_capacity(n);
            let mut y = Vec::with_capacity(n);
            for _ in 0..n {
                let a = rng.below(kx);
                let b = match correlate {
                    0 => rng.below(ky),
                    1 => (a + rng.below(3)) % ky,
                    _ => (kx - a + rng.below(2)) % ky,
                };
                let mut xv = a as f64 * 0.5 - 1.0;
                let mut yv = b as f64 / 3.0 - 1.0;
                if rng.below(50) == 0 {
                    xv = f64::NAN;
                }
                if rng.below(60) == 0 {
                    yv = f64::NAN;
                }
                x.push(xv);
                y.push(yv);
            }
            let (want_counts, want_tau) = naive(&x, &y);
            let got_counts = k.counts(&x, &y).unwrap();
            assert_eq!(got_counts, want_counts, "trial {trial}, n {n}");
            let got = k.tau(&x, &y);
            match (got, want_tau) {
                (None, None) => {}
                (Some(t), Some((b, c))) => {
                    defined += 1;
                    assert!(close(t.b, b), "trial {trial}: b {} vs {}", t.b, b);
                    assert!(close(t.c, c), "trial {trial}: c {} vs {}", t.c, c);
                }
                other => panic!("trial {trial}: {other:?}"),
            }
        }
        // The generator must actually exercise the defined case.
        assert!(defined > 300, "{defined}");
    }

    #[test]
    fn long_runs_of_equal_values_cross_merge_boundaries() {
        // Ties in y that span insertion runs and merge halves must not count as discordant.
        let n = 1000;
        let x: Vec<f64> = (0..n).map(|i| (i / 7) as f64).collect();
        let y: Vec<f64> = (0..n).map(|i| ((n - i) / 100) as f64).collect();
        let (want, _) = naive(&x, &y);
        assert_eq!(Kendall::new().counts(&x, &y).unwrap(), want);
    }

    /// Timing on 10,000 items. Run with
    /// `cargo test --release --lib meta::kendall -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn timing_10000_items() {
        let n = 10_000;
        let mut rng = XorShift(42);
        // Ratings 1..5 against scores on a 0.01 grid: heavy ties, like real benchmark data.
        let x: Vec<f64> = (0..n).map(|_| 1.0 + rng.below(5) as f64).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|r| ((r * 0.6 + rng.below(300) as f64 / 100.0) * 100.0).round() / 100.0)
            .collect();
        let mut k = Kendall::with_capacity(n);
        let reps = 200;
        let mut sink = 0.0;
        let start = std::time::Instant::now();
        for _ in 0..reps {
            let t = k.tau(&x, &y).unwrap();
            sink += t.b + t.c;
        }
        let reused = start.elapsed() / reps;
        let start = std::time::Instant::now();
        for _ in 0..reps {
            sink += kendall_tau(&x, &y).unwrap().c;
        }
        let fresh = start.elapsed() / reps;
        println!(
            "tau-b + tau-c on {n} items: {reused:?} per call (reused workspace), \
             {fresh:?} per call (allocating); checksum {sink}"
        );
        assert!(sink.is_finite());
    }
}
