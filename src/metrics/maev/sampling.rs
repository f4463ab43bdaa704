//! Few-shot sampling: each trial gets one score-0 and one score-2 example drawn from the pool
//! (the paper's `random.sample(example_accuracy_0, 1)` and `…_2`). A seeded generator makes a
//! run reproducible: the same seed, pool and trial count give the same examples.

use super::prompts::Example;

/// SplitMix64: tiny, fast, and the same on every platform.
pub struct SeededRng(u64);

impl SeededRng {
    pub fn new(seed: u64) -> SeededRng {
        SeededRng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), without modulo bias worth speaking of for pools this size.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Pool indices of (score-0 example, score-2 example) for each trial.
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
    let mut rng = SeededRng::new(seed);
    Ok((0..trials)
        .map(|_| (zeros[rng.below(zeros.len())], twos[rng.below(twos.len())]))
        .collect())
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
