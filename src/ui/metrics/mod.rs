//! Each metric's result panel and runner, one folder per metric, and [`MetricUi`]: what the
//! one-item page does per metric. [`of`] and [`Page`] are the one place that maps a [`Metric`]
//! to its folder's implementation, so a new metric is a compile error here until its folder
//! provides one.

use leptos::prelude::*;

use crate::metrics::Metric;
use crate::providers::{ImageDetail, Protocol};
use crate::ui::state::AppState;

pub(crate) mod fleur;
pub(crate) mod g_veval;
pub(crate) mod harmonic_eval;
pub(crate) mod maev;

/// What the one-item page does per metric: one implementation in each metric's folder. The
/// methods that read signals track them, so views and memos follow the form.
pub(crate) trait MetricUi {
    /// Starts a run (Evaluate); a form with problems shows them and sends nothing.
    fn evaluate(&self, state: AppState);
    /// Starts a run of several candidate texts for the same image (issue 21), judged together.
    fn evaluate_candidates(&self, state: AppState);
    /// Saves the last candidates run's comparison as JSON; false when there is none for this
    /// metric (the one-text export applies).
    fn export_candidates(&self, state: AppState) -> bool;
    /// Saves the last run's result as JSON (never the key).
    fn export(&self, state: AppState);
    /// The last run's result file (the export's document), `None` before a run.
    fn result_json(&self, state: AppState) -> Option<String>;
    /// Whether a request of the current run is in flight.
    fn running(&self, state: AppState) -> bool;
    /// Whether there is a run to export.
    fn has_run(&self, state: AppState) -> bool;
    /// The model of the last run, to price the usage it reported.
    fn billed_model(&self, state: AppState) -> Option<String>;
    /// Estimated input and output tokens of a run of the form as it is, judging `text`.
    fn estimate(
        &self,
        state: AppState,
        text: &str,
        image_size: Option<(u32, u32)>,
        protocol: Protocol,
        detail: ImageDetail,
    ) -> (u64, u64);
    /// What the judged text is called ("caption", "answer", …).
    fn text_noun(&self, state: AppState) -> &'static str;
    /// Whether the question box applies.
    fn asks_question(&self, state: AppState) -> bool;
    /// Whether the reference-captions box applies.
    fn wants_references(&self, state: AppState) -> bool;
    /// Its result panel.
    fn panel(&self) -> AnyView;
}

/// The selected metric's page behaviour.
pub(crate) fn of(metric: Metric) -> Page {
    match metric {
        Metric::HarmonicEval => Page::HarmonicEval(harmonic_eval::HarmonicEvalUi),
        Metric::Fleur => Page::Fleur(fleur::FleurUi { references: false }),
        Metric::RefFleur => Page::Fleur(fleur::FleurUi { references: true }),
        Metric::GVeval => Page::GVeval(g_veval::GvevalUi),
        Metric::Maev => Page::Maev(maev::MaevUi),
    }
}

/// One metric's [`MetricUi`], dispatched statically (a `dyn MetricUi` cost about 2.4 KB of
/// gzipped wasm on the evaluator's first visit).
pub(crate) enum Page {
    HarmonicEval(harmonic_eval::HarmonicEvalUi),
    Fleur(fleur::FleurUi),
    GVeval(g_veval::GvevalUi),
    Maev(maev::MaevUi),
}

/// `Page` forwards each [`MetricUi`] method to its metric's implementation.
macro_rules! forward {
    ($(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {
        impl Page {
            $(pub(crate) fn $name(&self $(, $arg: $ty)*) -> $ret {
                match self {
                    Page::HarmonicEval(m) => m.$name($($arg),*),
                    Page::Fleur(m) => m.$name($($arg),*),
                    Page::GVeval(m) => m.$name($($arg),*),
                    Page::Maev(m) => m.$name($($arg),*),
                }
            })*
        }
    };
}

forward! {
    fn evaluate(&self, state: AppState) -> ();
    fn evaluate_candidates(&self, state: AppState) -> ();
    fn export_candidates(&self, state: AppState) -> bool;
    fn export(&self, state: AppState) -> ();
    fn result_json(&self, state: AppState) -> Option<String>;
    fn running(&self, state: AppState) -> bool;
    fn has_run(&self, state: AppState) -> bool;
    fn billed_model(&self, state: AppState) -> Option<String>;
    fn estimate(
        &self,
        state: AppState,
        text: &str,
        image_size: Option<(u32, u32)>,
        protocol: Protocol,
        detail: ImageDetail
    ) -> (u64, u64);
    fn text_noun(&self, state: AppState) -> &'static str;
    fn asks_question(&self, state: AppState) -> bool;
    fn wants_references(&self, state: AppState) -> bool;
    fn panel(&self) -> AnyView;
}
