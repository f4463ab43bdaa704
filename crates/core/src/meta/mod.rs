//! Meta-evaluation statistics (SPEC §6): how well a metric's scores agree with human judgments.
//!
//! * [`kendall`]: Kendall's τ-b and τ-c, defined exactly as `scipy.stats.kendalltau` with
//!   `variant='b'` / `'c'` and `nan_policy='omit'`, in O(n log n) (Knight's algorithm). Papers
//!   report them ×100.
//! * [`pairwise`]: pairwise accuracy for preference pairs (Pascal-50S, FOIL, MMHE), where a tie
//!   counts as wrong, and the conversion of best-of-N choices into (chosen, other) pairs.
//! * [`protocol`]: the Flickr8k-Expert protocol of CLIPScore, τ of one score per candidate
//!   against each of its several human ratings, and G-VEval's, against their mean.
//!
//! * [`bootstrap`]: percentile intervals on every figure (resampling items, or whole groups),
//!   two runs compared on the same items (paired bootstrap and permutation test), and two
//!   judges compared with each other (τ-b and [`krippendorff`]'s α); [`resample`] draws the
//!   seeded resamples, [`weighted_kendall`] gives each resample's τ without re-sorting.
//!
//! Everything here is pure and allocation-light (O(n) buffers at most, reusable through
//! [`Kendall`]), since the browser recomputes these statistics on ~10,000 items whenever the
//! user moves a slider such as HarmonicEval's γ.

pub mod bootstrap;
#[cfg(test)]
pub mod bootstrap_tests_data;
pub mod kendall;
pub mod krippendorff;
pub mod pairwise;
pub mod protocol;
pub mod resample;
pub mod weighted_kendall;

pub use kendall::{kendall_tau, tau_b, tau_c, Kendall, KendallCounts, KendallTau};
pub use pairwise::{
    best_of_n_pairs, pairwise_accuracy, pairwise_accuracy_indexed, Candidate, GroupPairs, Pair,
    PairwiseAccuracy, SkipReason, SkippedGroup,
};
pub use protocol::{
    averaged_ratings_tau, flatten_repeated, mean_rating, repeated_ratings_tau,
    repeated_ratings_tau_with, RatingProtocol,
};
