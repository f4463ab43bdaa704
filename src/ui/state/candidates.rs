//! The candidates' signals (issue 21): their labels and texts, the human's pick, and the
//! comparison of a metric without γ. Empty `labels` means one text: today's page, untouched.
//! HarmonicEval's comparison (each candidate's five criteria) is its folder's `Compared`.

use leptos::prelude::*;

use crate::candidates::plain::{Base, Part};
use crate::metrics::Metric;
use crate::providers::Backend;
use crate::ui::progress::Progress;

/// What the last candidates run of a metric without γ sent: the labels and texts as judged,
/// the shared input (its text is each candidate's own when sent) and the backend.
#[derive(Clone, Debug)]
pub struct PlainRun {
    pub labels: Vec<String>,
    pub texts: Vec<String>,
    pub base: Base,
    pub backend: Backend,
}

#[derive(Clone, Copy)]
pub struct Candidates {
    /// One per candidate; empty while there is a single text.
    pub labels: RwSignal<Vec<String>>,
    pub texts: RwSignal<Vec<String>>,
    /// The labels of the last run, best read reactively (the results are named by them).
    pub run_labels: RwSignal<Vec<String>>,
    /// The candidate the human prefers (an index into the last run's candidates).
    pub preferred: RwSignal<Option<usize>>,
    /// What "Send to the lab" did.
    pub lab_message: RwSignal<Option<String>>,
    /// A metric without γ: each candidate's requests (one, or MAEV's trials), as they answer.
    pub plain: RwSignal<Vec<Vec<Progress<Part>>>>,
    pub plain_run: StoredValue<Option<PlainRun>>,
    /// The metric of that run: its comparison shows only while that metric is selected.
    pub plain_metric: RwSignal<Option<Metric>>,
}

impl Candidates {
    pub fn new() -> Candidates {
        Candidates {
            labels: RwSignal::new(Vec::new()),
            texts: RwSignal::new(Vec::new()),
            run_labels: RwSignal::new(Vec::new()),
            preferred: RwSignal::new(None),
            lab_message: RwSignal::new(None),
            plain: RwSignal::new(Vec::new()),
            plain_run: StoredValue::new(None),
            plain_metric: RwSignal::new(None),
        }
    }

    /// More than one text is being compared.
    pub fn active(&self) -> bool {
        self.labels.with(|l| l.len() > 1)
    }

    /// Whether any candidate's request of a metric without γ is in flight (with
    /// HarmonicEval's: `AppState::comparison_running`).
    pub fn running(&self) -> bool {
        self.plain
            .with(|r| r.iter().flatten().any(|s| s.is_active()))
    }

    /// Whether `metric` (one without γ) has a candidates run to show and export.
    pub fn plain_shown(&self, metric: Metric) -> bool {
        self.plain_metric.get() == Some(metric) && self.plain.with(|p| !p.is_empty())
    }

    /// Back to the one-text page (a single result opened): no candidates, no comparison of a
    /// metric without γ (`AppState::reset_candidates` also forgets HarmonicEval's).
    pub fn reset(&self) {
        // Nothing to undo (the usual case): no signal is touched, nothing redraws.
        let idle =
            self.labels.with_untracked(Vec::is_empty) && self.plain.with_untracked(Vec::is_empty);
        if !idle {
            self.labels.set(Vec::new());
            self.texts.set(Vec::new());
            self.clear();
        }
    }

    /// Forgets the comparison of a metric without γ and the pick (`AppState::clear_comparisons`
    /// forgets HarmonicEval's too).
    pub fn clear(&self) {
        self.plain.set(Vec::new());
        self.plain_metric.set(None);
        self.preferred.set(None);
    }
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates::new()
    }
}
