//! Few-shot sampling: each trial gets one score-0 and one score-2 example drawn from the pool
//! (the paper's listing: `random.sample(example_accuracy_0, 1)` and `…_2`), and "each trial
//! samples a different pair" (paper, Multi-Trial Aggregation), so pairs do not repeat while
//! the pool has unused ones. A seeded generator makes a run reproducible (our choice: the
//! paper's `random` is unseeded): the same seed, pool and trial count give the same examples.

use super::prompts::Example;
use crate::meta::resample::Rng;

/// Pool indices of (score-0 example, score-2 example) for each trial. The paper: "Each trial
/// samples a different pair of examples (scored 0 and 2)". So the trials take distinct pairs
/// while the pool has them: every (0, 2) pair in a seeded random order, and only once all have
/// been used does a new round (in a new order) begin. With the paper's printed four examples
/// (2 × 2 = 4 pairs) five trials repeat exactly one pair.
pub fn sample_pairs(
    pool: &[Example],
    trials: usize,
    seed: u64,
) -> Result<Vec<(usize, usize)>, String> {
    let of = |score: u8| -> Vec<usize> {
        pool.iter()
            .enumerate()
            .filter(|(_, e)| e.score == score)
            .map(|(i, _)| i)
            .collect()
    };
    let (zeros, twos) = (of(0), of(2));
    if zeros.is_empty() || twos.is_empty() {
        return Err("The example pool needs at least one score-0 and one score-2 example.".into());
    }
    let all: Vec<(usize, usize)> = zeros
        .iter()
        .flat_map(|&z| twos.iter().map(move |&t| (z, t)))
        .collect();
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(trials);
    while out.len() < trials {
        let mut round = all.clone();
        // Fisher–Yates, as far as this round is needed.
        let take = (trials - out.len()).min(round.len());
        for i in 0..take {
            let j = i + rng.below(round.len() - i);
            round.swap(i, j);
        }
        out.extend_from_slice(&round[..take]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::prompts::default_pool;
    use super::*;

    #[test]
    fn same_seed_same_examples_other_seed_other_examples() {
        let pool = default_pool();
        let a = sample_pairs(&pool, 5, 42).unwrap();
        assert_eq!(a, sample_pairs(&pool, 5, 42).unwrap());
        assert!((0..20u64).any(|s| sample_pairs(&pool, 5, s).unwrap() != a));
        for (zero, two) in a {
            assert_eq!((pool[zero].score, pool[two].score), (0, 2));
        }
    }

    #[test]
    fn draws_cover_the_pool_roughly_evenly() {
        let pool = default_pool();
        let pairs = sample_pairs(&pool, 4000, 7).unwrap();
        let first_zero = pairs.iter().filter(|p| p.0 == 0).count();
        assert!((1800..2200).contains(&first_zero), "{first_zero}");
    }

    #[test]
    fn pairs_are_distinct_while_the_pool_allows() {
        let pool = default_pool();
        // The printed pool: 2 score-0 × 2 score-2 = 4 pairs.
        for seed in 0..50 {
            let four = sample_pairs(&pool, 4, seed).unwrap();
            let mut sorted = four.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 4, "seed {seed}: {four:?}");
            // A fifth trial starts a new round: exactly one pair repeats.
            let five = sample_pairs(&pool, 5, seed).unwrap();
            assert_eq!(&five[..4], &four[..]);
        }
        // A bigger pool: 10 trials from 5 × 5 = 25 pairs never repeat.
        let mut big = pool.clone();
        let zero = pool.iter().find(|e| e.score == 0).unwrap().clone();
        let two = pool.iter().find(|e| e.score == 2).unwrap().clone();
        for _ in 0..3 {
            big.push(zero.clone());
            big.push(two.clone());
        }
        let zeros = big.iter().filter(|e| e.score == 0).count();
        assert_eq!(zeros * (big.len() - zeros), 25);
        let ten = sample_pairs(&big, 10, 3).unwrap();
        let mut d = ten.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 10);
    }

    #[test]
    fn a_pool_without_both_scores_is_refused() {
        let only_zero: Vec<Example> = default_pool()
            .into_iter()
            .filter(|e| e.score == 0)
            .collect();
        assert!(sample_pairs(&only_zero, 5, 1)
            .unwrap_err()
            .contains("score-2"));
    }
}
