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
    /// Output budget of a scoring request: the paper's (or the authors' code's). Enough for
    /// a judge that writes its score first, as GPT-4o does.
    pub max_tokens: u32,
    /// Output budget on local servers (our choice): small open models often write a sentence
    /// before the score ("Your task is to rate the text … Rating: 4"), which the short budget
    /// cuts off before the score.
    pub local_max_tokens: u32,
}

impl MetricInfo {
    /// The default output budget of this metric's scoring requests on a provider.
    pub fn default_max_tokens(&self, local_provider: bool) -> u32 {
        if local_provider {
            self.local_max_tokens
        } else {
            self.max_tokens
        }
    }
}

/// The request settings a result file records: the metric's parameters as the backend's tuning
/// sent them (so `max_tokens` is the user's output budget, not the paper's default).
#[derive(serde::Serialize)]
pub(crate) struct SentSettings {
    pub temperature: Option<f64>,
    pub top_logprobs: Option<u8>,
    pub max_tokens: u32,
}

impl SentSettings {
    pub fn of(backend: &crate::providers::Backend, params: crate::providers::ChatParams) -> Self {
        let sent = backend.tuning.apply(params);
        SentSettings {
            temperature: sent.temperature,
            top_logprobs: sent.top_logprobs,
            max_tokens: sent.max_tokens,
        }
    }
}

/// The metric with this `id`.
pub fn info(id: &str) -> Option<&'static MetricInfo> {
    METRICS.iter().find(|m| m.id == id)
}

pub const METRICS: [MetricInfo; 5] = [
    harmonic_eval::INFO,
    fleur::FLEUR_INFO,
    fleur::REF_FLEUR_INFO,
    g_veval::INFO,
    maev::INFO,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_are_the_papers_for_hosted_judges_and_roomier_for_local_ones() {
        let he = info("harmonic_eval").unwrap();
        assert_eq!(he.default_max_tokens(false), 20);
        assert_eq!(he.default_max_tokens(true), 64);
        assert_eq!(info("fleur").unwrap().default_max_tokens(false), 16);
        assert_eq!(info("ref_fleur").unwrap().default_max_tokens(true), 64);
        for m in METRICS {
            assert!(m.local_max_tokens >= m.max_tokens, "{}", m.id);
        }
        assert_eq!(info("nope"), None);
    }
}
