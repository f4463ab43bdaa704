//! Each metric's result panel and runner, one folder per metric.

pub(crate) mod fleur;
pub(crate) mod g_veval;
pub(crate) mod harmonic_eval;
pub(crate) mod maev;
