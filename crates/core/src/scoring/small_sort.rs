//! A stable insertion sort for the handful of short lists the evaluator sorts (a few
//! extensions, a score's alternatives, a run's doubt codes). The standard library's sorts are
//! built for long slices and cost several kilobytes of wasm per element type; these lists have
//! at most a few hundred elements, where insertion sort is as fast.

/// Sorts `v` by `key`, keeping equal elements in their order.
pub fn sort_by_key<T, K: PartialOrd>(v: &mut [T], key: impl Fn(&T) -> K) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > key(&v[j]) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorts_like_the_standard_stable_sort() {
        let mut rng = crate::meta::resample::Rng::new(7);
        for len in 0..40 {
            let mut v: Vec<(u8, usize)> = (0..len).map(|i| (rng.below(16) as u8, i)).collect();
            let mut expected = v.clone();
            expected.sort_by_key(|x| x.0);
            super::sort_by_key(&mut v, |x| x.0);
            assert_eq!(v, expected, "stable, same order, length {len}");
        }
    }
}
