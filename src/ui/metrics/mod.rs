//! Each metric's result panel, runner and state, one folder per metric, and [`MetricUi`]: what
//! the one-item page does per metric. Everything per metric here is made from the core's list
//! (`metrics::each_metric!`): the folders' modules, [`AppState`]'s field for each folder's
//! results, [`with_ui!`] (the one `match` from a [`Metric`] to its folder's [`MetricUi`]) and
//! [`show_opened`]. What is written by hand names a metric only for what that metric alone
//! has (its settings, its own inputs, HarmonicEval's comparison with γ, Explain).

use leptos::prelude::*;

use crate::metrics::{Metric, Reopened};
use crate::providers::{Backend, Image, ImageDetail, Protocol};
use crate::ui::settings::Settings;

/// Makes the UI's registry from the list (`metrics::each_metric!`): the room modules, the
/// evaluator's [`AppState`] with each room's results (`<room>/state.rs`'s `State`), [`with_ui!`]
/// and [`show_opened`].
macro_rules! ui_registry {
    ({} $($room:ident: $($V:ident)+,)*) => {
        $(pub(crate) mod $room;)*

        /// The evaluator's state: the shared [`Settings`] (`state.settings`, what the lab has
        /// too), its inputs, each metric's results and the current run.
        #[derive(Clone, Copy)]
        pub struct AppState {
            pub settings: Settings,
            /// Each metric's own settings on the form (G-VEval's mode, MAEV's trials…).
            pub metric_settings: MetricSettings,
            pub inputs: crate::ui::run::inputs_state::Inputs,
            $(
                /// This room's results, from its folder's `state.rs`.
                pub $room: $room::state::State,
            )*
            /// Incremented by every Evaluate, so answers from an older run are ignored.
            pub generation: StoredValue<u64>,
            /// The usage of every answer the provider billed in the current run, readable or not.
            pub billed: RwSignal<Vec<crate::answers::completion::Usage>>,
            pub export_error: RwSignal<Option<String>>,
            /// Several candidate texts for the same image (HarmonicEval; empty: one text).
            pub candidates: crate::ui::run::candidates_state::Candidates,
        }

        impl AppState {
            /// Fresh state, with the non-secret settings and the key restored from storage.
            pub fn restore() -> AppState {
                let settings = Settings::restore();
                AppState {
                    settings,
                    metric_settings: MetricSettings::restore(),
                    inputs: crate::ui::run::inputs_state::Inputs::new(),
                    $($room: $room::state::new(settings),)*
                    generation: StoredValue::new(0),
                    billed: RwSignal::new(Vec::new()),
                    export_error: RwSignal::new(None),
                    candidates: crate::ui::run::candidates_state::Candidates::new(),
                }
            }
        }

        /// Shows a result file's result as if it had just run, in its metric's folder
        /// (`<room>/opened.rs`'s `show`; no request is sent). `image` is the file's, as a run
        /// or Explain of it would send it; `backend` names the model, provider and output
        /// budget the file records.
        pub(crate) fn show_opened(state: AppState, reopened: Reopened, image: Option<Image>, backend: Backend) {
            match reopened {
                $($(Reopened::$V(r) => $room::opened::show(state, *r, image, backend),)+)*
            }
        }
    };
}
crate::metrics::each_metric!(ui_registry {});

/// Runs `$body` with `$U` the [`MetricUi`] type of `$metric` (its room's `Ui`, one per room:
/// FLEUR's serves FLEUR and RefFLEUR): the one `match` on the page's metric, made from the
/// list.
macro_rules! with_ui {
    ($metric:expr, $U:ident => $body:expr) => {
        crate::metrics::each_metric!(crate::ui::metrics::with_ui_arms { $metric, $U, $body })
    };
}

/// [`with_ui!`]'s `match`, one arm per room of the list (one arm per metric would put the
/// methods of a room with two metrics in the first visit as functions of their own, where
/// one call site lets them be inlined).
macro_rules! with_ui_arms {
    ({ $metric:expr, $U:ident, $body:expr } $($room:ident: $($V:ident)+,)*) => {{
        use crate::ui::metrics::MetricUi as _;
        match $metric {
            $($(Metric::$V)|+ => {
                type $U = crate::ui::metrics::$room::Ui;
                $body
            })*
        }
    }};
}
pub(crate) use with_ui_arms;

/// The settings of each metric the evaluator's form shows and keeps (`AppState::metric_settings`),
/// each from its folder's `settings.rs`; the lab's runs read what is kept
/// ([`stored_run_settings`]).
#[derive(Clone, Copy)]
pub struct MetricSettings {
    pub gveval: g_veval::settings::Kept,
    pub maev: maev::settings::Kept,
}

impl MetricSettings {
    /// Each metric's settings kept on this device, or its defaults.
    pub fn restore() -> MetricSettings {
        MetricSettings {
            gveval: g_veval::settings::Kept::restore(),
            maev: maev::settings::Kept::restore(),
        }
    }

    /// Keeps each metric's settings across visits; a refused write is said in `storage_error`.
    pub fn persist(self, storage_error: RwSignal<Option<String>>) {
        self.maev.persist(storage_error);
    }

}

/// What a lab run fixes for every metric: each metric's settings as kept on this device (or
/// its defaults), with the lab's extensions and HarmonicEval's criteria.
pub fn stored_run_settings(
    fidelity: crate::metrics::fidelity::Fidelity,
    he_criteria: crate::metrics::CriterionSet,
) -> crate::metrics::RunSettings {
    crate::metrics::RunSettings {
        fidelity,
        he_criteria,
        gv_mode: g_veval::settings::STORED_MODE,
        maev: maev::settings::stored(),
    }
}

impl AppState {
    /// Whether the current file is a video.
    pub fn has_video(&self) -> bool {
        self.inputs.has_video()
    }

    /// Whether any candidate's request is in flight (HarmonicEval's comparison, or another
    /// metric's).
    pub fn comparison_running(&self) -> bool {
        self.harmonic_eval.compared.running() || self.candidates.running()
    }

    /// Whether a comparison with γ (HarmonicEval's) is what the page shows: a share link
    /// carries it instead of the one result.
    pub fn comparison_shown(&self) -> bool {
        self.harmonic_eval.compared.has_run()
    }

    /// Forgets every comparison and the pick (back to one text, or another kind of run).
    pub fn clear_comparisons(&self) {
        self.harmonic_eval.compared.clear();
        self.candidates.clear();
    }

    /// Back to the one-text page (a single result opened): no candidates, no comparison.
    pub fn reset_candidates(&self) {
        if self.harmonic_eval.compared.results.with_untracked(|r| !r.is_empty()) {
            self.clear_comparisons();
        }
        self.candidates.reset();
    }

    /// The REG box is drawn into the image only for HarmonicEval's REG task.
    pub fn box_active(&self) -> bool {
        self.settings.is_harmonic() && self.inputs.task.get().needs_box()
    }
}

/// Defines [`MetricUi`] and [`Page`]'s methods from one list of methods, so neither repeats
/// the other: each `Page` method calls its metric's implementation ([`with_ui!`]). A method
/// written with a body has it as the trait's default.
macro_rules! metric_ui {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $($default:block)?;)*) => {
        /// What the one-item page does per metric: one implementation in each room's folder,
        /// its `Ui`. The methods that read
        /// signals track them, so views and memos follow the form.
        pub(crate) trait MetricUi {
            $(ui_method! { $(#[$doc])* fn $name($($arg: $ty),*) -> $ret $($default)?; })*
        }

        impl Page {
            $($(#[$doc])* pub(crate) fn $name(&self, $($arg: $ty),*) -> $ret {
                with_ui!(self.0, U => U::$name($($arg),*))
            })*
        }
    };
}

/// One method of [`MetricUi`], with its default body if it has one.
macro_rules! ui_method {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;) => {
        $(#[$doc])* fn $name($($arg: $ty),*) -> $ret;
    };
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $default:block;) => {
        $(#[$doc])* fn $name($($arg: $ty),*) -> $ret $default
    };
}

metric_ui! {
    /// Starts a run (Evaluate); a form with problems shows them and sends nothing.
    fn evaluate(state: AppState) -> ();
    /// Starts a run of several candidate texts for the same image (issue 21), judged together.
    fn evaluate_candidates(state: AppState) -> ();
    /// Saves the last candidates run's comparison as JSON; false when there is none for this
    /// metric (the one-text export applies).
    fn export_candidates(state: AppState) -> bool;
    /// Saves the last run's result as JSON (never the key).
    fn export(state: AppState) -> ();
    /// The last run's result file (the export's document), `None` before a run.
    fn result_json(state: AppState) -> Option<String>;
    /// Whether a request of the current run is in flight.
    fn running(state: AppState) -> bool;
    /// Whether there is a run to export.
    fn has_run(state: AppState) -> bool;
    /// The model of the last run, to price the usage it reported.
    fn billed_model(state: AppState) -> Option<String>;
    /// Estimated input and output tokens of a run of the form as it is, judging `text`.
    fn estimate(
        state: AppState,
        text: &str,
        image_size: Option<(u32, u32)>,
        protocol: Protocol,
        detail: ImageDetail
    ) -> (u64, u64);
    /// What the judged text is called ("caption", "answer", …).
    fn text_noun(state: AppState) -> &'static str;
    /// Whether the question box applies.
    fn asks_question(state: AppState) -> bool {
        let _ = state;
        false
    };
    /// Whether the reference-captions box applies.
    fn wants_references(state: AppState) -> bool {
        let _ = state;
        false
    };
    /// Its result panel.
    fn panel() -> AnyView;
}

/// The selected metric's page behaviour.
pub(crate) fn of(metric: Metric) -> Page {
    Page(metric)
}

/// Shows a comparison of several candidates read from a file or link (HarmonicEval's, the
/// only one a file opens so far) as if it had just run.
pub(crate) fn show_opened_comparison(state: AppState, c: crate::files::result_file::Comparison, image: Option<Image>, backend: Backend) {
    harmonic_eval::candidates::open(state, c, image, backend)
}

/// The comparison of several candidates a share link carries (HarmonicEval's), with `image`.
pub(crate) fn comparison_for_link(state: AppState, image: Option<&str>) -> Option<String> {
    harmonic_eval::candidates::comparison_for_link(state, image)
}

/// The fields only one metric has, each shown while its metric is chosen: MAEV's (question,
/// caption, reference answer, trials; in MAEV's chunk) and G-VEval's mode and ACCR switch.
pub(crate) fn own_inputs(state: AppState) -> impl IntoView {
    view! {
        <Show when=move || state.settings.metric.get() == Metric::Maev>
            {crate::ui::widgets::lazy::chunk("MAEV inputs", maev::inputs_view)}
        </Show>
        {g_veval::inputs::mode_field(state)}
    }
}

/// Explain: one HarmonicEval criterion (`Some`) or FLEUR's score (`None`), the two metrics
/// whose panels offer it (called from inside the `run` chunk's entry, `ui::run::chunks`).
pub(crate) fn explain(state: AppState, criterion: Option<crate::scoring::criteria::Criterion>) {
    match criterion {
        Some(c) => harmonic_eval::run::explain(state, c),
        None => fleur::run::explain(state),
    }
}

/// One metric's [`MetricUi`], dispatched statically through [`with_ui!`] (a `dyn MetricUi`
/// cost about 2.4 KB of gzipped wasm on the evaluator's first visit).
pub(crate) struct Page(Metric);
