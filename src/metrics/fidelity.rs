//! How faithful a run is to the published metric. The default, "paper", is the published
//! procedure (with the authors' code where the paper is silent). Every addition of ours is an
//! [`Extension`]: named, off by default, with a one-line reason, and recorded in every export
//! (`"fidelity"` and `"extensions"`), so a results file says how it was made.

use serde::Serialize;

use super::Metric;

/// One addition of ours to a published metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extension {
    /// MAEV: a trial's score is the expected value over 0/1/2 from the score token's logprobs,
    /// and a printed "1" is accepted.
    MaevExpectedScore,
    /// G-VEval: 20 alternatives per token instead of the authors' 5.
    GvevalTop20,
    /// HarmonicEval: with detail `auto`, photos go at `low` and documents at `high`.
    HeLowDetail,
    /// FLEUR: a multi-digit token (GPT-4o's `85`) read as the decimal it prints. Never switched
    /// by hand: it applies only where the tokenizer leaves no per-digit step, and the result
    /// then names it.
    FleurMultiDigit,
}

impl Extension {
    /// The extensions a user switches (one checkbox each, test id `ext-<id>`).
    pub const SWITCHABLE: [Extension; 3] = [
        Extension::MaevExpectedScore,
        Extension::GvevalTop20,
        Extension::HeLowDetail,
    ];

    /// Stable id, written in exports.
    pub fn id(self) -> &'static str {
        match self {
            Extension::MaevExpectedScore => "maev-expected-score",
            Extension::GvevalTop20 => "gveval-top20",
            Extension::HeLowDetail => "he-low-detail",
            Extension::FleurMultiDigit => "fleur-multi-digit",
        }
    }

    pub fn from_id(id: &str) -> Option<Extension> {
        [
            Extension::MaevExpectedScore,
            Extension::GvevalTop20,
            Extension::HeLowDetail,
            Extension::FleurMultiDigit,
        ]
        .into_iter()
        .find(|e| e.id() == id)
    }

    /// The checkbox's `data-testid`.
    pub fn test_id(self) -> String {
        format!("ext-{}", self.id())
    }

    pub fn label(self) -> &'static str {
        match self {
            Extension::MaevExpectedScore => "Expected score from token probabilities",
            Extension::GvevalTop20 => "20 alternatives per token",
            Extension::HeLowDetail => "Low image detail for photos on \u{201c}auto\u{201d}",
            Extension::FleurMultiDigit => "Multi-digit tokens read as decimals",
        }
    }

    /// Why we offer it, in one line (shown beside the checkbox).
    pub fn reason(self) -> &'static str {
        match self {
            Extension::MaevExpectedScore => {
                "Ours: a trial scores E[0/1/2] from the score token's logprobs instead of the \
                 printed 0 or 2, a finer signal; the 1.25 threshold was tuned on printed scores."
            }
            Extension::GvevalTop20 => {
                "Ours: top_logprobs 20 instead of the authors' 5, so the expectation sees more \
                 of the mass; scores shift from the published metric."
            }
            Extension::HeLowDetail => {
                "Ours: on \u{201c}auto\u{201d}, photos go at detail low (85 tokens) and documents \
                 at high, about a third of the input tokens; the paper sends the API default."
            }
            Extension::FleurMultiDigit => {
                "Ours: GPT-4o prints 0.85 as \u{201c}0\u{201d}, \u{201c}.\u{201d}, \
                 \u{201c}85\u{201d}, so no step prints one digit; each alternative is read as \
                 the decimal it prints. Applied only where the tokenizer needs it."
            }
        }
    }
}

/// The extensions switched on. Empty is the paper's procedure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fidelity {
    on: Vec<Extension>,
}

impl Fidelity {
    /// The fidelity an export records in `extensions` (ids; unknown ones left out), read back
    /// the same way for every metric's result file.
    pub fn from_export(extensions: Option<&serde_json::Value>) -> Self {
        extensions
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| e.as_str().and_then(Extension::from_id))
            .fold(Fidelity::paper(), |f, e| f.with(e, true))
    }

    /// The published procedure: no extension.
    pub fn paper() -> Fidelity {
        Fidelity::default()
    }

    /// Every switchable extension of `metric`.
    pub fn extended(metric: Metric) -> Fidelity {
        Fidelity {
            on: Extension::SWITCHABLE
                .into_iter()
                .filter(|e| e.applies_to(metric))
                .collect(),
        }
    }

    pub fn has(&self, e: Extension) -> bool {
        self.on.contains(&e)
    }

    /// The same settings with `e` switched on or off.
    pub fn with(mut self, e: Extension, on: bool) -> Fidelity {
        self.on.retain(|&x| x != e);
        if on {
            self.on.push(e);
            crate::scoring::small_sort::sort_by_key(&mut self.on, |x| x.id());
        }
        self
    }

    /// Only the extensions that belong to `metric` (what a run of it uses).
    pub fn for_metric(&self, metric: Metric) -> Fidelity {
        Fidelity {
            on: self
                .on
                .iter()
                .copied()
                .filter(|e| e.applies_to(metric))
                .collect(),
        }
    }

    /// `"paper"` with no extension, else `"extended"` (the `fidelity-select` values).
    pub fn level(&self) -> &'static str {
        if self.on.is_empty() {
            "paper"
        } else {
            "extended"
        }
    }

    pub fn extensions(&self) -> &[Extension] {
        &self.on
    }

    /// The extension ids, as exports list them.
    pub fn ids(&self) -> Vec<&'static str> {
        self.on.iter().map(|e| e.id()).collect()
    }

    /// What an export records: the level and the extension ids.
    pub fn record(&self) -> FidelityRecord {
        FidelityRecord {
            fidelity: self.level(),
            extensions: self.on.iter().map(|e| e.id()).collect(),
        }
    }
}

/// Flattened into every export document: `"fidelity": "paper"|"extended"`,
/// `"extensions": [ids]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FidelityRecord {
    pub fidelity: &'static str,
    pub extensions: Vec<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_is_the_default_and_has_no_extension() {
        let f = Fidelity::default();
        assert_eq!(f, Fidelity::paper());
        assert_eq!(f.level(), "paper");
        for e in Extension::SWITCHABLE {
            assert!(!f.has(e));
        }
        assert_eq!(
            serde_json::to_value(f.record()).unwrap(),
            serde_json::json!({"fidelity": "paper", "extensions": []})
        );
    }

    #[test]
    fn extended_switches_on_the_metrics_own_extensions_only() {
        let f = Fidelity::extended(Metric::Maev);
        assert!(f.has(Extension::MaevExpectedScore));
        assert!(!f.has(Extension::GvevalTop20) && !f.has(Extension::HeLowDetail));
        assert_eq!(f.level(), "extended");
        assert_eq!(
            Fidelity::extended(Metric::Fleur),
            Fidelity::paper(),
            "nothing to switch"
        );
        let both = Fidelity::paper()
            .with(Extension::HeLowDetail, true)
            .with(Extension::GvevalTop20, true);
        assert_eq!(
            both.for_metric(Metric::GVeval).extensions(),
            &[Extension::GvevalTop20]
        );
        assert_eq!(both.for_metric(Metric::Maev).level(), "paper");
        let off = both.with(Extension::GvevalTop20, false);
        assert_eq!(off.extensions(), &[Extension::HeLowDetail]);
    }

    #[test]
    fn ids_round_trip_and_test_ids_are_the_contract() {
        for e in Extension::SWITCHABLE
            .into_iter()
            .chain([Extension::FleurMultiDigit])
        {
            assert_eq!(Extension::from_id(e.id()), Some(e));
            assert!(e.reason().starts_with("Ours"));
        }
        let ids: Vec<String> = Extension::SWITCHABLE.iter().map(|e| e.test_id()).collect();
        assert_eq!(
            ids,
            [
                "ext-maev-expected-score",
                "ext-gveval-top20",
                "ext-he-low-detail"
            ]
        );
    }
}
