//! Test data shared by the meta and lab tests.

/// MSVD-Eval (tests/fixtures/msvd_eval/ratings.tsv): per clip, annotator 1's five ratings
/// (accuracy, completeness, conciseness, relevance, mean), then annotator 2's.
pub fn msvd() -> Vec<[f64; 10]> {
    include_str!("../../../../tests/fixtures/msvd_eval/ratings.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let v: Vec<f64> = l.split('\t').skip(1).map(|x| x.parse().unwrap()).collect();
            v.try_into().unwrap()
        })
        .collect()
}
