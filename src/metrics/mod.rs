//! The metrics the app offers. Each lives in its own module; this registry is the one place
//! that lists them for the metric selector.

pub mod fidelity;
pub mod fleur;
pub mod g_veval;
pub mod harmonic_eval;
pub mod maev;

/// A metric's identity as shown to users and written in exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricInfo {
    /// Value of the `metric-select` option and of `"metric"` in exports.
    pub id: &'static str,
    pub name: &'static str,
    /// Where the method comes from.
    pub paper: &'static str,
    /// Range of the overall score.
    pub range: &'static str,
}

pub const METRICS: [MetricInfo; 5] = [
    harmonic_eval::INFO,
    fleur::FLEUR_INFO,
    fleur::REF_FLEUR_INFO,
    g_veval::INFO,
    maev::INFO,
];
