//! Criteria weighed into one overall score at γ, as shared code sees it: a criterion's score
//! with its uncertainty ([`Scored`]), what yields one ([`Weighed`]), and the weighting itself
//! ([`Weighting`]).
//!
//! The weighting is the metric's: HarmonicEval's harmonic weighting (its paper's Eqs. 3-4) is
//! `metrics::harmonic_eval::weighting`, and the registry hands it out as
//! `Metric::weighting()`. The candidate comparison and the lab's γ slider ask it through this
//! trait, so neither knows which metric weighs or how.

/// One criterion's contribution to the aggregate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    pub score: f64,
    /// `None` for an unsmoothed (printed) rating, whose uncertainty is unknown.
    pub sigma: Option<f64>,
}

/// A criterion's outcome that weighs in at γ: its score and σ as [`Scored`]; what a
/// comparison with γ ranks.
pub trait Weighed {
    fn scored(&self) -> Scored;
}

/// How a metric turns its scored criteria into one overall score at γ.
///
/// `prepare` and `at` are the same score as `overall`, bit for bit, split so that the lab can
/// take the γ-independent part of a million results once and then pay little per γ.
pub trait Weighting: Sync {
    /// The overall score at `gamma`; `None` without items.
    fn overall(&self, items: &[Scored], gamma: f64) -> Option<f64>;

    /// The γ-independent part of `items`, appended to `into` for [`Weighting::at`]. `Err` when
    /// γ plays no part: the score at every γ (`None` without items).
    fn prepare(&self, items: &[Scored], into: &mut Vec<f64>) -> Result<(), Option<f64>>;

    /// The overall score at `gamma` of what one `prepare` appended.
    fn at(&self, prepared: &[f64], gamma: f64) -> f64;
}
