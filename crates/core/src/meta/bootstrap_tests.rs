//! The bootstrap pinned against scipy on real MSVD-Eval ratings and on fixed pairs.
//!
//! References from `scripts/bootstrap_refs.py` with scipy 1.17.1, numpy 2.4.6 and the
//! `krippendorff` package 0.9.0: `scipy.stats.bootstrap(..., paired=True, method='percentile',
//! n_resamples=9999)` for intervals, `scipy.stats.permutation_test(...,
//! permutation_type='samples', n_resamples=9999)` for p-values. Point estimates must match
//! exactly (to rounding); intervals and p-values, drawn from another generator, within
//! Monte-Carlo tolerance: 1.5 points at each end of a τ interval (×100), 0.015 for α, 0.06 for
//! a p-value near 0.2 (its standard error over 1,000 permutations is about 0.013, doubled).

use super::*;
use crate::meta::bootstrap_tests_data::msvd;
use crate::meta::resample::Interval;

/// (field, τ-b, τ-c, τ-b interval, τ-c interval, α, α interval): annotator 1 as the metric,
/// annotator 2 as the human, resampling clips.
type Ref = (
    &'static str,
    f64,
    f64,
    (f64, f64),
    (f64, f64),
    f64,
    (f64, f64),
);
const MSVD_SCIPY: [Ref; 5] = [
    (
        "accuracy",
        74.42890145908551,
        68.66963848591821,
        (68.43, 79.85),
        (62.09, 74.02),
        0.7889918841325696,
        (0.7302, 0.8375),
    ),
    (
        "completeness",
        61.97551233487123,
        54.83264191295834,
        (54.43, 68.89),
        (47.29, 62.35),
        0.6909066218533042,
        (0.6051, 0.7594),
    ),
    (
        "conciseness",
        71.61040897571121,
        67.18158159189879,
        (65.97, 76.92),
        (60.60, 72.64),
        0.7963826480146955,
        (0.7349, 0.8449),
    ),
    (
        "relevance",
        70.08827701400689,
        58.73637558298333,
        (63.35, 75.65),
        (50.66, 65.52),
        0.7660528613382014,
        (0.6927, 0.8214),
    ),
    (
        "mean",
        74.5160679943882,
        72.22517113727915,
        (70.00, 78.63),
        (67.53, 76.09),
        0.8722782939164175,
        (0.8342, 0.9022),
    ),
];

fn within(got: Option<Interval>, want: (f64, f64), tol: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what}: no interval"));
    eprintln!(
        "{what}: ours [{:.2}, {:.2}], scipy [{:.2}, {:.2}]",
        got.low, got.high, want.0, want.1
    );
    assert!(
        (got.low - want.0).abs() <= tol,
        "{what}: low {} vs scipy {}",
        got.low,
        want.0
    );
    assert!(
        (got.high - want.1).abs() <= tol,
        "{what}: high {} vs scipy {}",
        got.high,
        want.1
    );
}

fn exact(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap();
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: {got} vs {want}"
    );
}

#[test]
fn msvd_eval_intervals_match_scipy() {
    let rows = msvd();
    assert_eq!(rows.len(), 197);
    for (f, &(name, b, c, ci_b, ci_c, alpha, ci_alpha)) in MSVD_SCIPY.iter().enumerate() {
        let obs = || {
            rows.iter()
                .enumerate()
                .map(move |(i, r)| (r[f], r[5 + f], i as u32))
        };
        let figures = vec![
            Figure::Tau(WeightedKendall::new(obs())),
            Figure::Judges(WeightedKendall::new(obs()), Alpha::new(obs())),
        ];
        let e = Bootstrap::new(rows.len(), figures, DEFAULT_RESAMPLES, DEFAULT_SEED).run();
        exact(e[0][0].value, b, name);
        exact(e[0][1].value, c, name);
        exact(e[1][0].value, b, name);
        exact(e[1][1].value, alpha, name);
        within(e[0][0].interval, ci_b, 1.5, &format!("{name} τ-b"));
        within(e[0][1].interval, ci_c, 1.5, &format!("{name} τ-c"));
        within(e[1][1].interval, ci_alpha, 0.015, &format!("{name} α"));
        assert_eq!(
            e[0][0].interval, e[1][0].interval,
            "{name}: same resamples, same τ-b"
        );
        assert_eq!(e[0][0].p, None);
    }
}

#[test]
fn whole_groups_are_resampled() {
    // Clips in groups of three, drawn whole: scipy bootstrapping the group ids.
    let rows = msvd();
    let obs = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r[4], r[9], (i / 3) as u32));
    let e = Bootstrap::new(
        66,
        vec![Figure::Tau(WeightedKendall::new(obs))],
        DEFAULT_RESAMPLES,
        DEFAULT_SEED,
    )
    .run();
    exact(e[0][0].value, 74.5160679943882, "grouped");
    within(e[0][0].interval, (69.58, 79.20), 1.5, "grouped τ-b");
}

#[test]
fn paired_tau_difference_matches_scipy() {
    // Run a = annotator 1's accuracy, run b = annotator 1's mean, both against annotator 2's mean.
    let rows = msvd();
    let obs = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r[0], r[4], r[9], i as u32));
    let e = Bootstrap::new(
        rows.len(),
        vec![Figure::TauDiff(PairedKendall::new(obs))],
        DEFAULT_RESAMPLES,
        DEFAULT_SEED,
    )
    .run();
    exact(e[0][0].value, 3.0366333455480454, "paired τ-b");
    within(e[0][0].interval, (-1.18, 7.39), 1.5, "paired τ-b diff");
    let p = e[0][0].p.unwrap();
    eprintln!("paired τ-b diff p: ours {p:.4}, scipy 0.2068");
    assert!((p - 0.2068).abs() <= 0.06, "{p}");
}

/// 60 best-of-3 groups, two pairs each; whether runs a and b got each pair right.
const PAIRS_A: &str = "000110100111111100001111111001111101110110100011101111110101100111110101001000111011001111101110111100110110110010100110";
const PAIRS_B: &str = "000110100101110110011110111000101100110111100011111111110001011101111101001000010011001001101110011110111110000011100111";

#[test]
fn grouped_accuracy_and_its_difference_match_scipy() {
    let bit = |s: &str, i: usize| s.as_bytes()[i] == b'1';
    let runs =
        |s: &'static str| Figure::Accuracy((0..120).map(|i| ((i / 2) as u32, bit(s, i))).collect());
    let diff = Figure::AccuracyDiff(
        (0..120)
            .map(|i| ((i / 2) as u32, bit(PAIRS_A, i), bit(PAIRS_B, i)))
            .collect(),
    );
    let e = Bootstrap::new(
        60,
        vec![runs(PAIRS_A), runs(PAIRS_B), diff],
        DEFAULT_RESAMPLES,
        DEFAULT_SEED,
    )
    .run();
    exact(e[0][0].value, 62.5, "accuracy a");
    exact(e[1][0].value, 58.333333333333336, "accuracy b");
    exact(e[2][0].value, -4.166666666666667, "accuracy b − a");
    // Accuracy moves in steps of 1/120: one step more of tolerance.
    within(e[0][0].interval, (53.33, 71.67), 2.0, "accuracy a");
    within(e[1][0].interval, (49.17, 67.50), 2.0, "accuracy b");
    within(e[2][0].interval, (-12.5, 4.17), 2.0, "accuracy diff");
    let p = e[2][0].p.unwrap();
    eprintln!("accuracy diff p: ours {p:.4}, scipy 0.4450");
    assert!((p - 0.4450).abs() <= 0.07, "{p}");
}

#[test]
fn a_run_against_itself_differs_by_exactly_zero_with_p_one() {
    let rows = msvd();
    let obs = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r[4], r[4], r[9], (i / 2) as u32));
    let pairs = (0..50)
        .map(|i| ((i / 2) as u32, i % 3 == 0, i % 3 == 0))
        .collect();
    let e = Bootstrap::new(
        99,
        vec![
            Figure::TauDiff(PairedKendall::new(obs)),
            Figure::AccuracyDiff(pairs),
        ],
        300,
        9,
    )
    .run();
    for (i, j) in [(0, 0), (0, 1), (1, 0)] {
        assert_eq!(e[i][j].value, Some(0.0));
        assert_eq!(e[i][j].p, Some(1.0));
        assert_eq!(
            e[i][j].interval,
            Some(Interval {
                low: 0.0,
                high: 0.0
            })
        );
    }
}

#[test]
fn seeded_the_same_and_stepwise_the_same() {
    let rows = msvd();
    let make = |seed| {
        let obs = rows.iter().enumerate().map(|(i, r)| (r[1], r[6], i as u32));
        Bootstrap::new(
            rows.len(),
            vec![Figure::Tau(WeightedKendall::new(obs))],
            200,
            seed,
        )
    };
    let once = make(DEFAULT_SEED).run();
    let mut sliced = make(DEFAULT_SEED);
    let mut slices = 0;
    while !sliced.step(7) {
        slices += 1;
        assert_eq!(
            sliced.estimates()[0][0].interval,
            None,
            "no interval before the end"
        );
    }
    assert_eq!(slices, 28);
    assert_eq!(sliced.estimates(), once);
    assert_ne!(
        make(DEFAULT_SEED + 1).run()[0][0].interval,
        once[0][0].interval
    );
}

#[test]
fn no_units_no_interval() {
    let e = Bootstrap::new(0, vec![Figure::Tau(WeightedKendall::new([]))], 100, 1).run();
    assert_eq!(e[0][0], Estimate::default());
}
