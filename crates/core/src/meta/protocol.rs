//! The Flickr8k-Expert protocols: CLIPScore's repeated ratings (Hessel et al., 2021; SPEC §6),
//! used by FLEUR, and G-VEval's averaged rating ([`averaged_ratings_tau`]).
//!
//! Each candidate caption has one metric score and several human ratings (three expert
//! ratings in Flickr8k-Expert). The metric score is repeated once per rating, and Kendall's τ
//! is taken over the flattened vectors: 5,664 candidates × 3 ratings give 16,992 observations.
//! The number reported for Flickr8k-Expert is τ-c (×100); τ-b comes out of the same pass.
//! CLIPScore calls `kendalltau(human, metric)`; both variants are symmetric in their arguments,
//! so the order does not matter here.
//!
//! A NaN rating (or score) drops only that observation, as the NaN policy of
//! [`kendall`](super::kendall) says; CLIPScore's script likewise skips NaN ratings. Candidates
//! may have different numbers of ratings.
//!
//! # Complexity
//!
//! O(N log N) for N ratings in all. The repeated vectors are never built: the observations are
//! streamed into a [`Kendall`] workspace, whose O(N) buffers can be reused across calls.

use super::kendall::{Kendall, KendallTau};

/// τ of one score per candidate against each of its ratings (see the module documentation).
/// `None` when `scores` and `ratings` differ in length, or τ is undefined.
pub fn repeated_ratings_tau<R: AsRef<[f64]>>(scores: &[f64], ratings: &[R]) -> Option<KendallTau> {
    let n: usize = ratings.iter().map(|r| r.as_ref().len()).sum();
    repeated_ratings_tau_with(&mut Kendall::with_capacity(n), scores, ratings)
}

/// [`repeated_ratings_tau`] with a caller-held workspace, for repeated evaluation.
pub fn repeated_ratings_tau_with<R: AsRef<[f64]>>(
    workspace: &mut Kendall,
    scores: &[f64],
    ratings: &[R],
) -> Option<KendallTau> {
    if scores.len() != ratings.len() {
        return None;
    }
    let observations = scores
        .iter()
        .zip(ratings)
        .flat_map(|(&score, rs)| rs.as_ref().iter().map(move |&rating| (rating, score)));
    workspace.counts_of_pairs(observations).taus()
}

/// How several human ratings of one candidate enter τ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RatingProtocol {
    /// CLIPScore's (and FLEUR's): the candidate's score paired with each of its ratings.
    #[default]
    Repeated,
    /// G-VEval's code: the ratings averaged (`human_score /= 3` over Flickr8k-Expert's three),
    /// one observation per candidate. Its published 61.5 / 59.7 need this protocol.
    Averaged,
}

impl RatingProtocol {
    pub const ALL: [RatingProtocol; 2] = [RatingProtocol::Repeated, RatingProtocol::Averaged];

    pub fn id(self) -> &'static str {
        match self {
            RatingProtocol::Repeated => "repeated",
            RatingProtocol::Averaged => "averaged",
        }
    }

    pub fn from_id(id: &str) -> RatingProtocol {
        Self::ALL
            .into_iter()
            .find(|p| p.id() == id)
            .unwrap_or_default()
    }

    /// The protocol named `id`, or the sentence every door says, naming the door's `option`
    /// (`--protocol`, `protocol`).
    pub fn checked(id: &str, option: &str) -> Result<RatingProtocol, String> {
        Self::ALL
            .into_iter()
            .find(|p| p.id() == id)
            .ok_or_else(|| format!("{option} is repeated or averaged, not \u{201c}{id}\u{201d}."))
    }

    pub fn label(self) -> &'static str {
        match self {
            RatingProtocol::Repeated => "each rating paired with the score (CLIPScore, FLEUR)",
            RatingProtocol::Averaged => "ratings averaged, one per item (G-VEval's code)",
        }
    }
}

/// The mean of a candidate's ratings, NaN ratings left out (NaN when none is left). For
/// Flickr8k-Expert's three ratings this is G-VEval's `human_score /= 3`.
pub fn mean_rating(ratings: &[f64]) -> f64 {
    let kept = ratings.iter().filter(|v| !v.is_nan());
    let n = kept.clone().count();
    if n == 0 {
        return f64::NAN;
    }
    kept.sum::<f64>() / n as f64
}

/// τ of one score per candidate against the mean of its ratings: G-VEval's protocol, one
/// observation per candidate. `None` when the lengths differ or τ is undefined.
pub fn averaged_ratings_tau<R: AsRef<[f64]>>(scores: &[f64], ratings: &[R]) -> Option<KendallTau> {
    if scores.len() != ratings.len() {
        return None;
    }
    let observations = scores
        .iter()
        .zip(ratings)
        .map(|(&score, rs)| (mean_rating(rs.as_ref()), score));
    Kendall::with_capacity(scores.len())
        .counts_of_pairs(observations)
        .taus()
}

/// The flattened (human rating, metric score) vectors, for export or inspection: the score of
/// candidate i repeated once per rating of candidate i, in order. NaN values are kept.
/// `None` when the lengths differ.
pub fn flatten_repeated<R: AsRef<[f64]>>(
    scores: &[f64],
    ratings: &[R],
) -> Option<(Vec<f64>, Vec<f64>)> {
    if scores.len() != ratings.len() {
        return None;
    }
    let n: usize = ratings.iter().map(|r| r.as_ref().len()).sum();
    let mut human = Vec::with_capacity(n);
    let mut metric = Vec::with_capacity(n);
    for (&score, rs) in scores.iter().zip(ratings) {
        for &rating in rs.as_ref() {
            human.push(rating);
            metric.push(score);
        }
    }
    Some((human, metric))
}

#[cfg(test)]
mod tests {
    use super::super::kendall::kendall_tau;
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12
    }

    const SCORES: [f64; 6] = [0.71, 0.42, 0.42, 0.90, 0.15, 0.66];

    fn ratings() -> Vec<Vec<f64>> {
        vec![
            vec![4.0, 3.0, 4.0],
            vec![2.0, 2.0, 1.0],
            vec![3.0, 2.0, 2.0],
            vec![4.0, 4.0, 3.0],
            vec![1.0, 1.0, 2.0],
            vec![2.0, 3.0, f64::NAN],
        ]
    }

    /// scipy 1.17.1: kendalltau(human, metric, variant=..., nan_policy='omit') on the flattened
    /// vectors (17 observations after the NaN rating is dropped).
    #[test]
    fn a_protocol_is_named_or_refused_with_a_sentence() {
        for p in RatingProtocol::ALL {
            assert_eq!(RatingProtocol::checked(p.id(), "protocol"), Ok(p));
        }
        assert_eq!(
            RatingProtocol::checked("mean", "--protocol"),
            Err("--protocol is repeated or averaged, not \u{201c}mean\u{201d}.".into())
        );
    }

    #[test]
    fn matches_scipy_on_flattened_vectors() {
        let t = repeated_ratings_tau(&SCORES, &ratings()).unwrap();
        assert_eq!(t.n, 17);
        assert!(close(t.c, 0.7566320645905421), "{}", t.c);
        assert!(close(t.b, 0.755961068782562), "{}", t.b);
    }

    #[test]
    fn equals_tau_over_explicitly_flattened_vectors() {
        let (human, metric) = flatten_repeated(&SCORES, &ratings()).unwrap();
        assert_eq!(human.len(), 18);
        assert_eq!(&metric[..4], &[0.71, 0.71, 0.71, 0.42]);
        let direct = kendall_tau(&human, &metric).unwrap();
        let streamed = repeated_ratings_tau(&SCORES, &ratings()).unwrap();
        assert_eq!(direct, streamed);
    }

    #[test]
    fn differs_from_correlating_against_the_mean_rating() {
        // The protocol is not "τ against the average rating": that would give other ties.
        let means: Vec<f64> = ratings()
            .iter()
            .map(|r| {
                let kept: Vec<f64> = r.iter().copied().filter(|v| !v.is_nan()).collect();
                kept.iter().sum::<f64>() / kept.len() as f64
            })
            .collect();
        let on_means = kendall_tau(&SCORES, &means).unwrap();
        let protocol = repeated_ratings_tau(&SCORES, &ratings()).unwrap();
        assert!((on_means.c - protocol.c).abs() > 1e-3);
    }

    #[test]
    fn averaged_protocol_is_tau_against_the_mean_rating_one_per_candidate() {
        let t = averaged_ratings_tau(&SCORES, &ratings()).unwrap();
        assert_eq!(t.n, 6, "one observation per candidate");
        let means: Vec<f64> = ratings().iter().map(|r| mean_rating(r)).collect();
        assert_eq!(means[5], 2.5, "the NaN rating is left out of the mean");
        assert_eq!(kendall_tau(&means, &SCORES), Some(t));
        let repeated = repeated_ratings_tau(&SCORES, &ratings()).unwrap();
        assert!((t.b - repeated.b).abs() > 1e-3, "the protocols differ");
        // G-VEval's code: three ratings summed and divided by 3.
        assert_eq!(mean_rating(&[4.0, 3.0, 4.0]), 11.0 / 3.0);
        assert!(mean_rating(&[f64::NAN]).is_nan());
        assert_eq!(averaged_ratings_tau(&[0.1], &[vec![1.0], vec![2.0]]), None);
        assert_eq!(
            RatingProtocol::from_id("averaged"),
            RatingProtocol::Averaged
        );
        assert_eq!(RatingProtocol::default().id(), "repeated");
    }

    #[test]
    fn uneven_rating_counts_and_slices_work() {
        let r: [&[f64]; 3] = [&[1.0], &[2.0, 3.0], &[3.0, 3.0, 3.0]];
        let t = repeated_ratings_tau(&[0.1, 0.2, 0.3], &r).unwrap();
        assert_eq!(t.n, 6);
        let (h, m) = flatten_repeated(&[0.1, 0.2, 0.3], &r).unwrap();
        assert_eq!(h, vec![1.0, 2.0, 3.0, 3.0, 3.0, 3.0]);
        assert_eq!(m, vec![0.1, 0.2, 0.2, 0.3, 0.3, 0.3]);
        assert_eq!(kendall_tau(&h, &m), Some(t));
    }

    #[test]
    fn mismatched_lengths_and_degenerate_input_give_none() {
        assert_eq!(repeated_ratings_tau(&[0.1, 0.2], &[vec![1.0]]), None);
        assert_eq!(flatten_repeated(&[0.1], &[vec![1.0], vec![2.0]]), None);
        // Every rating equal: τ undefined.
        assert_eq!(
            repeated_ratings_tau(&[0.1, 0.2], &[vec![3.0, 3.0], vec![3.0]]),
            None
        );
        // One candidate: its score is constant.
        assert_eq!(repeated_ratings_tau(&[0.5], &[vec![1.0, 2.0, 3.0]]), None);
        let empty: [Vec<f64>; 0] = [];
        assert_eq!(repeated_ratings_tau(&[], &empty), None);
    }

    #[test]
    fn reused_workspace_gives_the_same_result() {
        let mut k = Kendall::new();
        let first = repeated_ratings_tau_with(&mut k, &SCORES, &ratings()).unwrap();
        let other = repeated_ratings_tau_with(&mut k, &[0.3, 0.1], &[vec![1.0], vec![2.0]]);
        assert_eq!(other.map(|t| t.b), Some(-1.0));
        let again = repeated_ratings_tau_with(&mut k, &SCORES, &ratings()).unwrap();
        assert_eq!(first, again);
    }
}
