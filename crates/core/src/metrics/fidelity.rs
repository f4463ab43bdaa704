//! How faithful a run is to the published metric. The default, "paper", is the published
//! procedure (with the authors' code where the paper is silent). Every addition of ours is an
//! [`Extension`]: named, off by default, with a one-line reason, and recorded in every export
//! (`"fidelity"` and `"extensions"`), so a results file says how it was made.

use serde::Serialize;

use super::Metric;

pub use super::Extension;

impl Extension {
    /// Whether this extension belongs to the metric (each extension is one metric's own).
    pub fn applies_to(self, metric: Metric) -> bool {
        self.info().metrics.contains(&metric)
    }

    /// Stable id, written in exports.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    pub fn from_id(id: &str) -> Option<Extension> {
        Extension::ALL.into_iter().find(|e| e.id() == id)
    }

    /// The checkbox's `data-testid`.
    pub fn test_id(self) -> String {
        format!("ext-{}", self.id())
    }

    pub fn label(self) -> &'static str {
        self.info().label
    }

    /// Why we offer it, in one line (shown beside the checkbox).
    pub fn reason(self) -> &'static str {
        self.info().reason
    }
}

/// One named extension of a metric's published procedure, defined in that metric's room: its
/// id in exports, the checkbox's label, why we offer it, and the metrics it belongs to.
pub struct ExtensionInfo {
    pub id: &'static str,
    pub label: &'static str,
    pub reason: &'static str,
    pub metrics: &'static [Metric],
    /// `None` for an extension a user switches (in [`Extension::SWITCHABLE`]); for one always
    /// applied where it is needed (in [`Extension::FIXED`]), what the result records of it, said
    /// after "Nothing to switch:" and the reason.
    pub fixed: Option<&'static str>,
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
    fn every_extension_is_switchable_or_fixed_as_its_room_says_and_a_metric_has_one_fixed_at_most()
    {
        for e in Extension::ALL {
            let listed = (
                Extension::SWITCHABLE.contains(&e),
                Extension::FIXED.contains(&e),
            );
            assert_eq!(
                listed,
                (e.info().fixed.is_none(), e.info().fixed.is_some()),
                "{}",
                e.id()
            );
        }
        assert_eq!(
            Extension::SWITCHABLE.len() + Extension::FIXED.len(),
            Extension::ALL.len()
        );
        for m in Metric::ALL {
            assert!(
                Extension::FIXED.iter().filter(|e| e.applies_to(m)).count() <= 1,
                "{}",
                m.id()
            );
        }
    }

    #[test]
    fn ids_round_trip_and_test_ids_are_the_contract() {
        for e in Extension::ALL {
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
