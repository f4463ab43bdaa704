//! Which rows the results table shows: the first few of the matching results in the chosen
//! order, found without sorting (or cloning) them all. Sorting 100k results on every showing
//! was a tenth of the lab's main-thread time at that size (issue 17.5); picking the first 100
//! is one pass.

use std::cmp::Ordering;

/// The positions in `0..n` of the first `k` in the order `cmp` gives, ties kept in position
/// order; `descending` gives the first `k` of that whole order reversed (as a stable sort
/// followed by a reverse would: ties in reverse position order). `keep` leaves positions out.
pub fn first_rows(
    n: usize,
    k: usize,
    descending: bool,
    keep: impl Fn(usize) -> bool,
    cmp: impl Fn(usize, usize) -> Ordering,
) -> Vec<usize> {
    // Whether position `a` comes before position `b` in the order shown.
    let before = |a: usize, b: usize| {
        let o = cmp(a, b).then(a.cmp(&b));
        if descending {
            o == Ordering::Greater
        } else {
            o == Ordering::Less
        }
    };
    let mut top: Vec<usize> = Vec::with_capacity(k.min(n) + 1);
    if k == 0 {
        return top;
    }
    for i in (0..n).filter(|&i| keep(i)) {
        if top.len() == k && !before(i, top[k - 1]) {
            continue;
        }
        let at = top.partition_point(|&t| before(t, i));
        top.insert(at, i);
        top.truncate(k);
    }
    top
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_rows_are_those_of_a_stable_sort_on_random_data() {
        let mut rng = crate::meta::resample::Rng::new(3);
        let mut next = |m: u64| rng.below(m as usize) as u64;
        for n in [0usize, 1, 2, 5, 99, 100, 101, 1000] {
            // Few distinct keys, so ties are many; NaN-free as the table's keys are.
            let keys: Vec<f64> = (0..n).map(|_| next(7) as f64 / 2.0).collect();
            let keep: Vec<bool> = (0..n).map(|_| next(5) != 0).collect();
            for k in [0, 1, 3, 100] {
                for descending in [false, true] {
                    let mut expected: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
                    expected.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]));
                    if descending {
                        expected.reverse();
                    }
                    expected.truncate(k);
                    let got = first_rows(
                        n,
                        k,
                        descending,
                        |i| keep[i],
                        |a, b| keys[a].total_cmp(&keys[b]),
                    );
                    assert_eq!(got, expected, "n {n}, k {k}, descending {descending}");
                }
            }
        }
    }
}
