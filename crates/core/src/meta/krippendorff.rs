//! Krippendorff's α at the interval level, for two judges who each scored the same units.
//!
//! With every unit scored by both judges (the lab pairs two runs on their common items, so
//! nothing is missing), the coincidence-matrix definition reduces to
//!
//! * D_o = Σᵤ (aᵤ − bᵤ)² / N, the observed disagreement over the N units;
//! * D_e = 2 · Σᵥ (v − v̄)² / (2N − 1), the disagreement expected by chance over all 2N values;
//! * α = 1 − D_o / D_e.
//!
//! (Σ over ordered pairs of distinct values of (vᵢ − vⱼ)² is 2n · Σ(v − v̄)² for n values.)
//! α is 1 for perfect agreement, 0 for agreement at chance, and undefined (`None`) when every
//! value is the same or fewer than two units. A bootstrap resample weights each unit by how
//! often it was drawn; the copies are separate units, exactly as in the resample written out.
//! Pinned against the `krippendorff` Python package in the tests.

/// Sufficient statistics of one unit: (a, b).
#[derive(Clone, Debug, Default)]
pub struct Alpha {
    pairs: Vec<(f64, f64)>,
    unit: Vec<u32>,
}

impl Alpha {
    /// The two judges' scores per observation and each observation's resampling unit; pairs
    /// with a NaN are left out.
    pub fn new(observations: impl IntoIterator<Item = (f64, f64, u32)>) -> Alpha {
        let mut a = Alpha::default();
        for (x, y, u) in observations {
            if x.is_finite() && y.is_finite() {
                a.pairs.push((x, y));
                a.unit.push(u);
            }
        }
        a
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// α of the sample itself.
    pub fn alpha(&self) -> Option<f64> {
        self.weighted(|_| 1)
    }

    /// α of the resample where unit u was drawn `weights[u]` times.
    pub fn alpha_weighted(&self, weights: &[u32]) -> Option<f64> {
        self.weighted(|i| weights[self.unit[i] as usize])
    }

    fn weighted(&self, weight: impl Fn(usize) -> u32) -> Option<f64> {
        let (mut n, mut sum, mut sq_diff) = (0.0, 0.0, 0.0);
        for (i, &(a, b)) in self.pairs.iter().enumerate() {
            let w = f64::from(weight(i));
            n += w;
            sum += w * (a + b);
            sq_diff += w * (a - b) * (a - b);
        }
        if n < 2.0 {
            return None;
        }
        let mean = sum / (2.0 * n);
        let spread: f64 = self
            .pairs
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| f64::from(weight(i)) * ((a - mean).powi(2) + (b - mean).powi(2)))
            .sum();
        let expected = 2.0 * spread / (2.0 * n - 1.0);
        (expected > 0.0).then(|| 1.0 - (sq_diff / n) / expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alpha(a: &[f64], b: &[f64]) -> Option<f64> {
        Alpha::new(
            a.iter()
                .zip(b)
                .enumerate()
                .map(|(i, (&x, &y))| (x, y, i as u32)),
        )
        .alpha()
    }

    /// `krippendorff.alpha(reliability_data=[a, b], level_of_measurement='interval')` from the
    /// `krippendorff` package 0.9.0 (numpy 2.4.6), printed with `repr`.
    #[test]
    fn matches_the_krippendorff_package() {
        let a = [1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 4.0, 1.0, 2.0, 5.0];
        let b = [1.0, 2.0, 3.0, 3.0, 2.0, 2.0, 4.0, 1.0, 2.0, 4.0];
        let got = alpha(&a, &b).unwrap();
        assert!((got - KRIPP_SMALL).abs() < 1e-12, "{got}");
        let x = [3.2, 4.1, 1.5, 2.2, 4.9, 3.3, 2.8, 1.1];
        let y = [2.9, 4.4, 2.5, 1.8, 4.0, 3.9, 2.1, 1.6];
        let got = alpha(&x, &y).unwrap();
        assert!((got - KRIPP_CONTINUOUS).abs() < 1e-12, "{got}");
    }

    const KRIPP_SMALL: f64 = 0.9291044776119403;
    const KRIPP_CONTINUOUS: f64 = 0.8441446337798523;

    #[test]
    fn perfect_chance_and_undefined() {
        assert_eq!(alpha(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]), Some(1.0));
        assert_eq!(alpha(&[2.0, 2.0], &[2.0, 2.0]), None);
        assert_eq!(alpha(&[2.0], &[3.0]), None);
        // A weighted resample equals the resample written out.
        let al = Alpha::new([(1.0, 2.0, 0), (3.0, 3.0, 1), (5.0, 4.0, 2)]);
        let w = al.alpha_weighted(&[2, 0, 1]).unwrap();
        let out = alpha(&[1.0, 1.0, 5.0], &[2.0, 2.0, 4.0]).unwrap();
        assert!((w - out).abs() < 1e-12);
    }
}
