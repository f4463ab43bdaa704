//! Pairwise accuracy (Pascal-50S, FOIL, MMHE pairs; SPEC §6) and best-of-N groups as pairs.
//!
//! A pair is (preferred, other): the human preferred the first item. The metric gets the pair
//! right only if it scores the preferred item **strictly higher**; a tie counts as wrong, so a
//! metric that gives everything the same score gets 0%, not 50%.
//!
//! **Missing scores.** A pair where either score is NaN (the metric failed on that item), or
//! where an index is out of range in [`pairwise_accuracy_indexed`], counts as wrong and is
//! reported in [`PairwiseAccuracy::unscored`]. The denominator stays the full set of pairs, so
//! metrics evaluated on the same pairs stay comparable and a metric cannot gain by failing on
//! hard items.
//!
//! **Best-of-N.** Datasets where the human picked the best of N candidates become N − 1 pairs
//! (chosen, other), one for every other candidate in the group; best-of-three gives two pairs.
//! Groups that cannot give a pair (a single candidate, no candidate chosen, or more than one
//! chosen) give none and are listed in [`GroupPairs::skipped`].
//!
//! # Complexity
//!
//! [`pairwise_accuracy`] and [`pairwise_accuracy_indexed`] are O(pairs) and allocate nothing.
//! [`best_of_n_pairs`] is O(n log n) for n candidates (a stable sort of indices by group) with
//! O(n) memory.

/// Counts from scoring a set of preference pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairwiseAccuracy {
    /// Pairs evaluated (the denominator).
    pub pairs: usize,
    /// Pairs where the preferred item scored strictly higher.
    pub correct: usize,
    /// Pairs where both items scored the same (counted as wrong).
    pub ties: usize,
    /// Pairs with a missing (NaN or out-of-range) score (counted as wrong).
    pub unscored: usize,
}

impl PairwiseAccuracy {
    /// correct / pairs, or `None` when there are no pairs.
    pub fn accuracy(&self) -> Option<f64> {
        if self.pairs == 0 {
            None
        } else {
            Some(self.correct as f64 / self.pairs as f64)
        }
    }

    /// Pairs scored wrong: the other item higher, a tie, or a missing score.
    pub fn wrong(&self) -> usize {
        self.pairs - self.correct
    }

    fn add(&mut self, preferred: f64, other: f64) {
        self.pairs += 1;
        if preferred.is_nan() || other.is_nan() {
            self.unscored += 1;
        } else if preferred > other {
            self.correct += 1;
        } else if preferred == other {
            self.ties += 1;
        }
    }
}

/// Scores (preferred item's score, other item's score) pairs.
pub fn pairwise_accuracy(pairs: &[(f64, f64)]) -> PairwiseAccuracy {
    let mut acc = PairwiseAccuracy::default();
    for &(preferred, other) in pairs {
        acc.add(preferred, other);
    }
    acc
}

/// A human preference between two items, as indices into a score vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pair {
    /// The item the human preferred (or chose).
    pub preferred: usize,
    pub other: usize,
}

/// Scores index pairs against one metric's `scores` (one per item). An index past the end of
/// `scores` counts as a missing score. Build the pairs once, then call this per metric.
pub fn pairwise_accuracy_indexed(scores: &[f64], pairs: &[Pair]) -> PairwiseAccuracy {
    let score = |i: usize| scores.get(i).copied().unwrap_or(f64::NAN);
    let mut acc = PairwiseAccuracy::default();
    for p in pairs {
        acc.add(score(p.preferred), score(p.other));
    }
    acc
}

/// One candidate of a best-of-N group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate<G> {
    /// Which group (image, prompt, …) the candidate belongs to.
    pub group: G,
    /// Whether the human chose this candidate as the best of its group.
    pub chosen: bool,
}

/// Why a group gave no pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// The group has one candidate, so nothing to compare it with.
    SingleItem,
    /// No candidate of the group is marked chosen.
    NoChoice,
    /// More than one candidate is marked chosen, so the preference is ambiguous.
    SeveralChosen,
}

/// A group that gave no pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedGroup<G> {
    pub group: G,
    /// Candidates in the group.
    pub items: usize,
    pub reason: SkipReason,
}

/// Pairs from best-of-N groups, and the groups that gave none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupPairs<G> {
    /// (chosen, other) for every other candidate of every usable group; groups in order of
    /// their first candidate, candidates in input order within a group.
    pub pairs: Vec<Pair>,
    /// Groups that gave no pairs, in the same order.
    pub skipped: Vec<SkippedGroup<G>>,
    /// Distinct groups seen, used or not.
    pub groups: usize,
}

/// Turns best-of-N choices into (chosen, other) pairs of indices into `candidates`.
///
/// Candidates of one group need not be contiguous. A group with N ≥ 2 candidates and exactly
/// one chosen gives N − 1 pairs; any other group gives none and is reported.
pub fn best_of_n_pairs<G: Ord + Clone>(candidates: &[Candidate<G>]) -> GroupPairs<G> {
    // Stable: within a group the indices stay in input order, so each group's first index is
    // its first candidate.
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&a, &b| candidates[a].group.cmp(&candidates[b].group));

    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for i in 1..=order.len() {
        if i == order.len() || candidates[order[i]].group != candidates[order[start]].group {
            ranges.push((start, i));
            start = i;
        }
    }
    ranges.sort_unstable_by_key(|&(s, _)| order[s]);

    let mut out = GroupPairs {
        pairs: Vec::with_capacity(candidates.len().saturating_sub(ranges.len())),
        skipped: Vec::new(),
        groups: ranges.len(),
    };
    for (s, e) in ranges {
        let members = &order[s..e];
        let mut chosen = members.iter().copied().filter(|&i| candidates[i].chosen);
        let reason = match (members.len(), chosen.next(), chosen.next()) {
            (len, _, _) if len < 2 => SkipReason::SingleItem,
            (_, None, _) => SkipReason::NoChoice,
            (_, Some(_), Some(_)) => SkipReason::SeveralChosen,
            (_, Some(preferred), None) => {
                out.pairs.extend(
                    members
                        .iter()
                        .filter(|&&i| i != preferred)
                        .map(|&other| Pair { preferred, other }),
                );
                continue;
            }
        };
        out.skipped.push(SkippedGroup {
            group: candidates[members[0]].group.clone(),
            items: members.len(),
            reason,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(group: &'static str, chosen: bool) -> Candidate<&'static str> {
        Candidate { group, chosen }
    }

    #[test]
    fn strictly_higher_is_correct_and_ties_are_wrong() {
        let acc = pairwise_accuracy(&[(0.9, 0.1), (0.5, 0.5), (0.2, 0.8), (3.0, 2.0), (1.0, 1.0)]);
        assert_eq!(
            acc,
            PairwiseAccuracy {
                pairs: 5,
                correct: 2,
                ties: 2,
                unscored: 0
            }
        );
        assert_eq!(acc.wrong(), 3);
        assert_eq!(acc.accuracy(), Some(0.4));
    }

    #[test]
    fn constant_metric_scores_zero_not_half() {
        let acc = pairwise_accuracy(&[(2.0, 2.0); 10]);
        assert_eq!(acc.accuracy(), Some(0.0));
        assert_eq!(acc.ties, 10);
    }

    #[test]
    fn nan_scores_count_as_wrong_and_unscored() {
        let acc = pairwise_accuracy(&[(f64::NAN, 0.0), (1.0, f64::NAN), (1.0, 0.0)]);
        assert_eq!(acc.pairs, 3);
        assert_eq!(acc.correct, 1);
        assert_eq!(acc.unscored, 2);
        assert_eq!(acc.ties, 0);
        assert_eq!(acc.accuracy(), Some(1.0 / 3.0));
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        let acc = pairwise_accuracy(&[(0.0, -0.0)]);
        assert_eq!(acc.ties, 1);
        assert_eq!(acc.correct, 0);
    }

    #[test]
    fn no_pairs_has_no_accuracy() {
        assert_eq!(pairwise_accuracy(&[]).accuracy(), None);
        assert_eq!(pairwise_accuracy_indexed(&[1.0, 2.0], &[]).accuracy(), None);
    }

    #[test]
    fn indexed_pairs_use_the_score_vector() {
        let scores = [0.3, 0.7, 0.7, 0.1];
        let pairs = [
            Pair {
                preferred: 1,
                other: 0,
            },
            Pair {
                preferred: 1,
                other: 2,
            },
            Pair {
                preferred: 3,
                other: 0,
            },
            Pair {
                preferred: 0,
                other: 9,
            },
        ];
        let acc = pairwise_accuracy_indexed(&scores, &pairs);
        assert_eq!(
            acc,
            PairwiseAccuracy {
                pairs: 4,
                correct: 1,
                ties: 1,
                unscored: 1
            }
        );
    }

    #[test]
    fn best_of_three_gives_two_pairs() {
        let c = [cand("a", false), cand("a", true), cand("a", false)];
        let g = best_of_n_pairs(&c);
        assert_eq!(
            g.pairs,
            vec![
                Pair {
                    preferred: 1,
                    other: 0
                },
                Pair {
                    preferred: 1,
                    other: 2
                },
            ]
        );
        assert!(g.skipped.is_empty());
        assert_eq!(g.groups, 1);
    }

    #[test]
    fn groups_without_a_usable_choice_give_no_pairs_and_are_reported() {
        let c = [
            cand("none", false),
            cand("ok", true),
            cand("none", false),
            cand("single", true),
            cand("ok", false),
            cand("two", true),
            cand("two", true),
            cand("two", false),
            cand("lonely", false),
        ];
        let g = best_of_n_pairs(&c);
        assert_eq!(
            g.pairs,
            vec![Pair {
                preferred: 1,
                other: 4
            }]
        );
        assert_eq!(g.groups, 5);
        // Reported in order of each group's first candidate.
        assert_eq!(
            g.skipped,
            vec![
                SkippedGroup {
                    group: "none",
                    items: 2,
                    reason: SkipReason::NoChoice
                },
                SkippedGroup {
                    group: "single",
                    items: 1,
                    reason: SkipReason::SingleItem
                },
                SkippedGroup {
                    group: "two",
                    items: 3,
                    reason: SkipReason::SeveralChosen
                },
                SkippedGroup {
                    group: "lonely",
                    items: 1,
                    reason: SkipReason::SingleItem
                },
            ]
        );
    }

    #[test]
    fn interleaved_groups_keep_first_appearance_order() {
        // Group ids sort as 1 < 2 but group 2 appears first.
        let c = [
            Candidate {
                group: 2u32,
                chosen: false,
            },
            Candidate {
                group: 1,
                chosen: true,
            },
            Candidate {
                group: 2,
                chosen: true,
            },
            Candidate {
                group: 1,
                chosen: false,
            },
            Candidate {
                group: 2,
                chosen: false,
            },
        ];
        let g = best_of_n_pairs(&c);
        let as_tuples: Vec<(usize, usize)> =
            g.pairs.iter().map(|p| (p.preferred, p.other)).collect();
        assert_eq!(as_tuples, vec![(2, 0), (2, 4), (1, 3)]);
    }

    #[test]
    fn best_of_n_then_accuracy() {
        // Group x: chosen item 1 beats 0, ties 2. Group y: chosen item 4 loses to 3.
        let c = [
            cand("x", false),
            cand("x", true),
            cand("x", false),
            cand("y", false),
            cand("y", true),
        ];
        let scores = [1.0, 2.0, 2.0, 5.0, 4.0];
        let g = best_of_n_pairs(&c);
        let acc = pairwise_accuracy_indexed(&scores, &g.pairs);
        assert_eq!(acc.pairs, 3);
        assert_eq!(acc.correct, 1);
        assert_eq!(acc.ties, 1);
    }

    #[test]
    fn empty_input_gives_nothing() {
        let g = best_of_n_pairs::<u8>(&[]);
        assert!(g.pairs.is_empty());
        assert!(g.skipped.is_empty());
        assert_eq!(g.groups, 0);
    }
}
