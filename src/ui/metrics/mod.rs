//! Each metric's result panel, runner and state, one folder per metric, and [`MetricUi`]: what
//! the one-item page does per metric, with [`Page`], the one `match` from a [`Metric`] to its
//! folder's [`MetricUi`]. Written out: a new metric's folder is a `mod` line here, then the arms
//! the compiler asks for ([`with_ui!`]'s dispatch, [`show_opened`], and in `state.rs`
//! `MetricResults`, which with `MetricSettings` holds each room's state for [`AppState`]).
//! The buttons' entries are here too: Evaluate, Explain and Export ([`evaluate`], [`explain`],
//! [`export`]) fetch their chunk and hand the selected metric to its room. What else names a
//! metric here is what that metric alone has (its settings, its own inputs, HarmonicEval's
//! comparison with γ, Explain).

use leptos::prelude::*;

use crate::metrics::{Metric, Reopened};
use crate::providers::{Backend, Image, ImageDetail, Protocol};
use crate::ui::state::AppState;

pub(crate) mod fleur;
pub(crate) mod g_veval;
pub(crate) mod harmonic_eval;
pub(crate) mod maev;
pub(crate) mod state;

/// Shows a result file's result as if it had just run, in its metric's folder
/// (`<room>/opened.rs`'s `show`; no request is sent). `image` is the file's, as a run or
/// Explain of it would send it; `backend` names the model, provider and output budget the file
/// records.
pub(crate) fn show_opened(
    state: AppState,
    reopened: Reopened,
    image: Option<Image>,
    backend: Backend,
) {
    match reopened {
        Reopened::HarmonicEval(r) => harmonic_eval::opened::show(state, *r, image, backend),
        Reopened::Fleur(r) => fleur::opened::show(state, *r, image, backend),
        Reopened::RefFleur(r) => fleur::opened::show(state, *r, image, backend),
        Reopened::GVeval(r) => g_veval::opened::show(state, *r, image, backend),
        Reopened::Maev(r) => maev::opened::show(state, *r, image, backend),
    }
}

/// Runs `$body` with `$U` the [`MetricUi`] type of `$metric` (its room's `Ui`, one per room:
/// FLEUR's serves FLEUR and RefFLEUR): the one `match` on the page's metric, written out; the
/// macro only repeats `$body` in each arm. One arm per room, not per metric: two call sites
/// would put the methods of a room with two metrics in the first visit as functions of their
/// own, where one lets them be inlined.
macro_rules! with_ui {
    ($metric:expr, $U:ident => $body:expr) => {{
        use MetricUi as _;
        match $metric {
            Metric::HarmonicEval => {
                type $U = harmonic_eval::Ui;
                $body
            }
            Metric::Fleur | Metric::RefFleur => {
                type $U = fleur::Ui;
                $body
            }
            Metric::GVeval => {
                type $U = g_veval::Ui;
                $body
            }
            Metric::Maev => {
                type $U = maev::Ui;
                $body
            }
        }
    }};
}

/// What the page asks of the metric that compares candidates with γ (HarmonicEval's
/// comparison, in its folder) and of its task's box.
impl AppState {
    /// Whether any candidate's request is in flight (HarmonicEval's comparison, or another
    /// metric's).
    pub fn comparison_running(&self) -> bool {
        self.results.harmonic_eval.compared.running() || self.candidates.running()
    }

    /// Whether a comparison with γ (HarmonicEval's) is what the page shows: a share link
    /// carries it instead of the one result.
    pub fn comparison_shown(&self) -> bool {
        self.results.harmonic_eval.compared.has_run()
    }

    /// Forgets every comparison and the pick (back to one text, or another kind of run).
    pub fn clear_comparisons(&self) {
        // Bars set by hand for the candidates go with them.
        let he = self.results.harmonic_eval;
        if he.compared.results.with_untracked(|r| !r.is_empty())
            && he.hands.with_untracked(Option::is_some)
        {
            he.hands.set(None);
        }
        self.results.harmonic_eval.compared.clear();
        self.candidates.clear();
    }

    /// Back to the one-text page (a single result opened): no candidates, no comparison.
    pub fn reset_candidates(&self) {
        if self
            .results
            .harmonic_eval
            .compared
            .results
            .with_untracked(|r| !r.is_empty())
        {
            self.clear_comparisons();
        }
        self.candidates.reset();
    }
}

/// What a lab run fixes for every metric: each metric's settings as kept on this device (or
/// its defaults), with the lab's extensions and HarmonicEval's criteria.
pub fn stored_run_settings(
    fidelity: crate::metrics::fidelity::Fidelity,
    chosen_criteria: crate::metrics::CriterionSet,
) -> crate::metrics::RunSettings {
    crate::metrics::RunSettings {
        fidelity,
        chosen_criteria,
        gv_mode: g_veval::settings::STORED_MODE,
        maev: maev::settings::stored(),
    }
}

/// What the one-item page does per metric: one implementation in each room's folder, its
/// `Ui`. The methods that read signals track them, so views and memos follow the form. The
/// page calls them through [`Page`], which has the same methods.
pub(crate) trait MetricUi {
    /// Starts a run (Evaluate); a form with problems shows them and sends nothing.
    fn evaluate(state: AppState);
    /// Starts a run of several candidate texts for the same image (issue 21), judged together.
    fn evaluate_candidates(state: AppState);
    /// Saves the last candidates run's comparison as JSON; false when there is none for this
    /// metric (the one-text export applies). By default the comparison of a metric without γ
    /// (`ui/run/candidates_plain_run.rs`), which every metric but HarmonicEval uses.
    fn export_candidates(state: AppState) -> bool {
        crate::ui::run::candidates_plain_run::export_shown(state)
    }
    /// Saves the last run's result as JSON (never the key).
    fn export(state: AppState);
    /// The last run's result file (the export's document), `None` before a run.
    fn result_json(state: AppState) -> Option<String>;
    /// Whether a request of the current run is in flight.
    fn running(state: AppState) -> bool;
    /// What the judge is answering now, named for the in-page judge's progress line
    /// ("correctness"), where that can be told: one request at a time, sent in order. `None` by
    /// default.
    fn asking(_state: AppState) -> Option<&'static str> {
        None
    }
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
        detail: ImageDetail,
    ) -> (u64, u64);
    /// What the judged text is called ("caption", "answer", …).
    fn text_noun(state: AppState) -> &'static str;
    /// Whether the question box applies.
    fn asks_question(state: AppState) -> bool {
        let _ = state;
        false
    }
    /// Whether the reference-captions box applies.
    fn wants_references(state: AppState) -> bool {
        let _ = state;
        false
    }
    /// Its result panel.
    fn panel() -> AnyView;
}

/// The page's metric, asked through its room's [`MetricUi`]: each method is the trait's, for
/// the selected metric ([`with_ui!`], static dispatch; a `dyn MetricUi` cost about 2.4 KB of
/// gzipped wasm on the evaluator's first visit).
impl Page {
    pub(crate) fn evaluate(&self, state: AppState) {
        with_ui!(self.0, U => U::evaluate(state))
    }
    pub(crate) fn evaluate_candidates(&self, state: AppState) {
        with_ui!(self.0, U => U::evaluate_candidates(state))
    }
    pub(crate) fn export_candidates(&self, state: AppState) -> bool {
        with_ui!(self.0, U => U::export_candidates(state))
    }
    pub(crate) fn export(&self, state: AppState) {
        with_ui!(self.0, U => U::export(state))
    }
    pub(crate) fn result_json(&self, state: AppState) -> Option<String> {
        with_ui!(self.0, U => U::result_json(state))
    }
    pub(crate) fn running(&self, state: AppState) -> bool {
        with_ui!(self.0, U => U::running(state))
    }
    pub(crate) fn asking(&self, state: AppState) -> Option<&'static str> {
        with_ui!(self.0, U => U::asking(state))
    }
    pub(crate) fn has_run(&self, state: AppState) -> bool {
        with_ui!(self.0, U => U::has_run(state))
    }
    pub(crate) fn billed_model(&self, state: AppState) -> Option<String> {
        with_ui!(self.0, U => U::billed_model(state))
    }
    pub(crate) fn estimate(
        &self,
        state: AppState,
        text: &str,
        image_size: Option<(u32, u32)>,
        protocol: Protocol,
        detail: ImageDetail,
    ) -> (u64, u64) {
        with_ui!(self.0, U => U::estimate(state, text, image_size, protocol, detail))
    }
    pub(crate) fn text_noun(&self, state: AppState) -> &'static str {
        with_ui!(self.0, U => U::text_noun(state))
    }
    pub(crate) fn asks_question(&self, state: AppState) -> bool {
        with_ui!(self.0, U => U::asks_question(state))
    }
    pub(crate) fn wants_references(&self, state: AppState) -> bool {
        with_ui!(self.0, U => U::wants_references(state))
    }
    pub(crate) fn panel(&self) -> AnyView {
        with_ui!(self.0, U => U::panel())
    }
}

/// The selected metric's page behaviour.
pub(crate) fn of(metric: Metric) -> Page {
    Page(metric)
}

/// Shows a comparison of several candidates read from a file or link (HarmonicEval's, the
/// only one a file opens so far) as if it had just run.
pub(crate) fn show_opened_comparison(
    state: AppState,
    c: crate::files::result_file::Comparison,
    image: Option<Image>,
    backend: Backend,
) {
    harmonic_eval::candidates::open(state, c, image, backend)
}

/// "Set the ratings yourself": a HarmonicEval result whose rating distributions the user
/// shapes (issue 44), opened from the gallery.
pub(crate) fn set_by_hand(state: AppState) {
    harmonic_eval::by_hand::start(state, true)
}

/// The comparison of several candidates a share link carries (HarmonicEval's), with `image`.
pub(crate) fn comparison_for_link(state: AppState, image: Option<&str>) -> Option<String> {
    harmonic_eval::candidates::comparison_for_link(state, image)
}

/// The settings only one metric has, in the fidelity panel of either page, shown while it is
/// chosen: HarmonicEval's criteria subset.
pub(crate) fn own_settings(settings: crate::ui::state::settings::Settings) -> impl IntoView {
    view! {
        <Show when=move || settings.metric.get() == Metric::HarmonicEval>
            <harmonic_eval::criteria_subset::CriteriaSubset settings/>
        </Show>
    }
}

/// The one failure every request of the run shares, said once above the results (HarmonicEval's
/// five criteria; the other metrics send one request and say their failure in place).
pub(crate) fn shared_failure(state: AppState) -> Option<String> {
    match state.settings.metric.get() {
        Metric::HarmonicEval => harmonic_eval::shared_failure::shared(state),
        Metric::Fleur | Metric::RefFleur | Metric::GVeval | Metric::Maev => None,
    }
}

/// How many of the shown result's explanations are stored (the history keeps a result again
/// when one arrives).
pub(crate) fn explained_count(state: AppState) -> usize {
    let done = |e: &crate::ui::progress::ExplainState| e.stored().is_some();
    state
        .results
        .harmonic_eval
        .explanations
        .iter()
        .filter(|e| e.with(done))
        .count()
        + usize::from(state.results.fleur.explanation.with(done))
}

/// The fields only one metric has, each shown while its metric is chosen: MAEV's (question,
/// caption, reference answer, trials; in MAEV's chunk) and G-VEval's mode and ACCR switch.
pub(crate) fn own_inputs(state: AppState) -> impl IntoView {
    view! {
        <Show when=move || state.settings.metric.get() == Metric::Maev>
            {crate::ui::lazy::chunk("MAEV inputs", maev::inputs_view)}
        </Show>
        {g_veval::inputs::mode_field(state)}
    }
}

// What Evaluate, Explain and Export do: each button calls one of the three public functions
// below, which fetches the code behind it (the `run` or `export` chunk, once; `ui/lazy.rs`)
// and then hands the selected metric to its room's `MetricUi`. The `#[wasm_split]` entries are
// cut out of the first-visit wasm by `scripts/split/wasm-bindgen` at build time.

/// Whether this page may send (an embed may not), said under the form when it may not.
fn may_send(state: AppState) -> bool {
    let may = crate::ui::site::may_send();
    if !may {
        state
            .settings
            .form_problems
            .set(vec![crate::ui::site::EMBED_SENDS_NOTHING.into()]);
    }
    may
}

/// Evaluate: starts a run of the selected metric, once its chunk is there.
pub fn evaluate(state: AppState) {
    if !may_send(state) {
        return;
    }
    crate::ui::lazy::act(
        state.settings.form_problems,
        "judging",
        request_limit_ms(state),
        evaluate_loaded(state),
    );
}

/// A request's time limit, which also bounds what a run waits for before it sends (its code, an
/// image still being read): nothing waits longer than the request itself may take.
fn request_limit_ms(state: AppState) -> u32 {
    state
        .settings
        .provider
        .timeout_s
        .get_untracked()
        .saturating_mul(1000)
}

#[leptos::wasm_split::wasm_split(run, wasm_split_path = ::leptos::wasm_split, fallible)]
fn evaluate_loaded(state: AppState) -> Result<(), crate::ui::lazy::ChunkMissing> {
    // An image still being read (chosen a moment before, or handed over by the static shell
    // with a queued Evaluate, src/web/shell.js) is waited for, not reported missing.
    if state.inputs.image_loading.get_untracked() {
        leptos::task::spawn_local(async move {
            // Never for ever: an image still being read after the request's time limit is said.
            let limit = request_limit_ms(state);
            let start = js_sys::Date::now();
            while state.inputs.image_loading.get_untracked() {
                if js_sys::Date::now() - start >= f64::from(limit) {
                    state.settings.form_problems.set(vec![format!(
                        "The image was still being read after {} s, so nothing was sent: wait for its preview, or choose it again, then press Evaluate.",
                        limit / 1000
                    )]);
                    return;
                }
                crate::web::fetch::sleep(20, None).await;
            }
            start_run(state);
        });
    } else {
        start_run(state);
    }
    Ok(())
}

/// What Evaluate starts, once the code is here and the image read.
fn start_run(state: AppState) {
    // One run at a time: the button is disabled while its run is in flight, and a click that
    // slips through (a double click before the page redraws) starts nothing.
    let metric = of(state.settings.metric.get_untracked());
    if untrack(|| metric.running(state)) {
        return;
    }
    // A provider that needs a key gets one before anything is sent (not five 401s after).
    if let Some(m) = crate::ui::run::guidance::missing_key(state) {
        state.settings.form_problems.set(vec![m]);
        return;
    }
    if state.candidates.active() {
        metric.evaluate_candidates(state);
    } else {
        metric.evaluate(state);
    }
}

/// Explain: one HarmonicEval criterion (`Some`) or FLEUR's score (`None`), the two metrics
/// whose panels offer it, once the `run` chunk is there.
pub fn explain(state: AppState, criterion: Option<crate::scoring::criteria::Criterion>) {
    if !may_send(state) {
        return;
    }
    crate::ui::lazy::act(
        state.settings.form_problems,
        "Explain",
        request_limit_ms(state),
        explain_loaded(state, criterion),
    );
}

#[leptos::wasm_split::wasm_split(run, wasm_split_path = ::leptos::wasm_split, fallible)]
fn explain_loaded(
    state: AppState,
    criterion: Option<crate::scoring::criteria::Criterion>,
) -> Result<(), crate::ui::lazy::ChunkMissing> {
    match criterion {
        Some(c) => harmonic_eval::run::explain(state, c),
        None => fleur::run::explain(state),
    }
    Ok(())
}

/// Export JSON: the selected metric's result (its comparison of candidates when it has one).
/// The API key is not part of the document.
pub fn export(state: AppState) {
    let load = crate::ui::lazy::loading(export_loaded(state));
    leptos::task::spawn_local(async move {
        if load.await.is_err() {
            state
                .export_error
                .set(Some(crate::ui::lazy::missing("the export")));
        }
    });
}

#[leptos::wasm_split::wasm_split(export, wasm_split_path = ::leptos::wasm_split, fallible)]
fn export_loaded(state: AppState) -> Result<(), crate::ui::lazy::ChunkMissing> {
    let metric = of(state.settings.metric.get_untracked());
    if !metric.export_candidates(state) {
        metric.export(state);
    }
    Ok(())
}

/// One metric's [`MetricUi`], dispatched statically through [`with_ui!`].
pub(crate) struct Page(Metric);
