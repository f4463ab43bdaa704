//! The metrics the app offers. Each lives in its own room, `metrics/<m>/` (its core) and
//! `ui/metrics/<m>/` (its page part); this registry is the one core file besides them that
//! names a metric (`scripts/structure.py --check` holds every other file to that): the
//! [`Metric`] enum and its [`MetricInfo`], the [`Reopened`] results, the candidates' inputs
//! and answers ([`CandidateBase`], [`CandidatePart`]), the settings a batch run fixes per
//! metric ([`RunSettings`]), and `with_room!`, the one `match` that turns a [`Metric`] into
//! its room's [`room::MetricCore`] type for code that runs every metric alike.
//!
//! Everything here is written out: a new metric is a variant in [`Metric`] and [`Metric::ALL`],
//! and then the arms the compiler asks for (every `match` below is exhaustive).

pub mod fidelity;
pub mod room;

pub mod fleur;
pub mod g_veval;
pub mod harmonic_eval;
pub mod maev;

pub use fleur::references_from_lines;
pub use harmonic_eval::CriterionSet;
pub use maev::RunSettings as MaevSettings;

/// One of the metrics the app offers. Code that does something per metric reaches its room
/// through `with_room!`; its id (a string) is used only at the edges: the `metric-select`
/// values, exports, storage. scripts/metric_list.py reads the variants from here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    HarmonicEval,
    Fleur,
    RefFleur,
    GVeval,
    Maev,
}

impl Metric {
    /// Every metric, in the order of the metric selector (the first is the default).
    pub const ALL: [Metric; 5] = [
        Metric::HarmonicEval,
        Metric::Fleur,
        Metric::RefFleur,
        Metric::GVeval,
        Metric::Maev,
    ];

    /// Its identity, paper, range and output budgets.
    pub const fn info(self) -> &'static MetricInfo {
        use room::MetricCore;
        match self {
            Metric::HarmonicEval => harmonic_eval::HarmonicEval::INFO,
            Metric::Fleur => fleur::Fleur::INFO,
            Metric::RefFleur => fleur::RefFleur::INFO,
            Metric::GVeval => g_veval::GVeval::INFO,
            Metric::Maev => maev::Maev::INFO,
        }
    }

    /// Reads this metric's export `obj`, or says in one sentence why it cannot be shown.
    pub fn reopen(
        self,
        obj: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Reopened, String> {
        use room::MetricCore;
        Ok(match self {
            Metric::HarmonicEval => {
                Reopened::HarmonicEval(Box::new(harmonic_eval::HarmonicEval::reopen(obj)?))
            }
            Metric::Fleur => Reopened::Fleur(Box::new(fleur::Fleur::reopen(obj)?)),
            Metric::RefFleur => Reopened::RefFleur(Box::new(fleur::RefFleur::reopen(obj)?)),
            Metric::GVeval => Reopened::GVeval(Box::new(g_veval::GVeval::reopen(obj)?)),
            Metric::Maev => Reopened::Maev(Box::new(maev::Maev::reopen(obj)?)),
        })
    }
}

/// A metric's result file read back by its own reader ([`room::MetricCore::reopen`]): what its
/// panel needs to show the file as if it had just run, every number checked against what it
/// was computed from.
#[derive(Clone, Debug, PartialEq)]
pub enum Reopened {
    HarmonicEval(Box<<harmonic_eval::HarmonicEval as room::MetricCore>::Reopened>),
    Fleur(Box<<fleur::Fleur as room::MetricCore>::Reopened>),
    RefFleur(Box<<fleur::RefFleur as room::MetricCore>::Reopened>),
    GVeval(Box<<g_veval::GVeval as room::MetricCore>::Reopened>),
    Maev(Box<<maev::Maev as room::MetricCore>::Reopened>),
}

/// What every candidate shares (image, references, question, trials…) for a metric without γ
/// (`candidates::plain::Base`), one variant per room (its `CandidateInput`); the text is each
/// candidate's own.
#[derive(Clone, Debug)]
pub enum CandidateBase {
    HarmonicEval(harmonic_eval::CandidateInput),
    Fleur(fleur::CandidateInput),
    GVeval(g_veval::CandidateInput),
    Maev(maev::CandidateInput),
}

/// One answer of a candidate, read (`candidates::plain::Part`), one variant per room.
#[derive(Clone, Debug, PartialEq)]
pub enum CandidatePart {
    HarmonicEval(Box<<harmonic_eval::CandidateInput as room::Candidate>::Part>),
    Fleur(Box<<fleur::CandidateInput as room::Candidate>::Part>),
    GVeval(Box<<g_veval::CandidateInput as room::Candidate>::Part>),
    Maev(Box<<maev::CandidateInput as room::Candidate>::Part>),
}

impl From<harmonic_eval::CandidateInput> for CandidateBase {
    fn from(input: harmonic_eval::CandidateInput) -> CandidateBase {
        CandidateBase::HarmonicEval(input)
    }
}

impl PartOf for harmonic_eval::CandidateInput {
    fn part_of(part: &CandidatePart) -> Option<&Self::Part> {
        match part {
            CandidatePart::HarmonicEval(p) => Some(p),
            _ => None,
        }
    }
}

impl From<fleur::CandidateInput> for CandidateBase {
    fn from(input: fleur::CandidateInput) -> CandidateBase {
        CandidateBase::Fleur(input)
    }
}

impl PartOf for fleur::CandidateInput {
    fn part_of(part: &CandidatePart) -> Option<&Self::Part> {
        match part {
            CandidatePart::Fleur(p) => Some(p),
            _ => None,
        }
    }
}

impl From<g_veval::CandidateInput> for CandidateBase {
    fn from(input: g_veval::CandidateInput) -> CandidateBase {
        CandidateBase::GVeval(input)
    }
}

impl PartOf for g_veval::CandidateInput {
    fn part_of(part: &CandidatePart) -> Option<&Self::Part> {
        match part {
            CandidatePart::GVeval(p) => Some(p),
            _ => None,
        }
    }
}

impl From<maev::CandidateInput> for CandidateBase {
    fn from(input: maev::CandidateInput) -> CandidateBase {
        CandidateBase::Maev(input)
    }
}

impl PartOf for maev::CandidateInput {
    fn part_of(part: &CandidatePart) -> Option<&Self::Part> {
        match part {
            CandidatePart::Maev(p) => Some(p),
            _ => None,
        }
    }
}

impl CandidateBase {
    /// Reads one answer of this candidate's metric.
    pub fn read_part(
        &self,
        completion: &crate::answers::completion::Completion,
    ) -> Result<CandidatePart, crate::answers::errors::JudgeError> {
        use room::Candidate as _;
        Ok(match self {
            CandidateBase::HarmonicEval(i) => {
                CandidatePart::HarmonicEval(Box::new(i.read(completion)?))
            }
            CandidateBase::Fleur(i) => CandidatePart::Fleur(Box::new(i.read(completion)?)),
            CandidateBase::GVeval(i) => CandidatePart::GVeval(Box::new(i.read(completion)?)),
            CandidateBase::Maev(i) => CandidatePart::Maev(Box::new(i.read(completion)?)),
        })
    }
}

impl CandidatePart {
    /// A candidate's score and uncertainty from its answers read so far, read by the metric of
    /// the first (`None` where none was read; MAEV's mean is over the trials read).
    pub fn summary(parts: &[&CandidatePart]) -> (Option<f64>, Option<f64>) {
        fn of<I: PartOf>(parts: &[&CandidatePart]) -> (Option<f64>, Option<f64>) {
            let mine: Vec<&I::Part> = parts.iter().filter_map(|p| I::part_of(p)).collect();
            I::summary(&mine)
        }
        match parts.first() {
            None => (None, None),
            Some(CandidatePart::HarmonicEval(_)) => of::<harmonic_eval::CandidateInput>(parts),
            Some(CandidatePart::Fleur(_)) => of::<fleur::CandidateInput>(parts),
            Some(CandidatePart::GVeval(_)) => of::<g_veval::CandidateInput>(parts),
            Some(CandidatePart::Maev(_)) => of::<maev::CandidateInput>(parts),
        }
    }
}

/// A room's candidate input, with its answers' variant of [`CandidatePart`] (each room's
/// `impl` is above).
pub trait PartOf: room::Candidate {
    /// This metric's reading of `part`, if it is one.
    fn part_of(part: &CandidatePart) -> Option<&Self::Part>;
}

/// Runs `$body` with `$M` the room type ([`room::MetricCore`]) of `$metric`: the one `match`
/// that dispatches per metric, each arm a call of the same generic code with one metric's type
/// (static dispatch). The macro only repeats `$body` in each arm of a written-out `match`.
macro_rules! with_room {
    ($metric:expr, $M:ident => $body:expr) => {{
        #[allow(unused_imports)]
        use $crate::metrics::room::MetricCore as _;
        match $metric {
            $crate::metrics::Metric::HarmonicEval => {
                #[allow(dead_code)]
                type $M = $crate::metrics::harmonic_eval::HarmonicEval;
                $body
            }
            $crate::metrics::Metric::Fleur => {
                #[allow(dead_code)]
                type $M = $crate::metrics::fleur::Fleur;
                $body
            }
            $crate::metrics::Metric::RefFleur => {
                #[allow(dead_code)]
                type $M = $crate::metrics::fleur::RefFleur;
                $body
            }
            $crate::metrics::Metric::GVeval => {
                #[allow(dead_code)]
                type $M = $crate::metrics::g_veval::GVeval;
                $body
            }
            $crate::metrics::Metric::Maev => {
                #[allow(dead_code)]
                type $M = $crate::metrics::maev::Maev;
                $body
            }
        }
    }};
}
pub(crate) use with_room;

/// Runs `$body` with `$i` the metric's input inside a [`CandidateBase`] (`$I` its type, a
/// [`room::Candidate`] and [`PartOf`]): the one `match` on the candidates' inputs, written
/// out; the macro only repeats `$body` in each arm.
macro_rules! with_candidate {
    ($base:expr, $I:ident, $i:ident => $body:expr) => {{
        #[allow(unused_imports)]
        use $crate::metrics::{room::Candidate as _, PartOf as _};
        match $base {
            $crate::metrics::CandidateBase::HarmonicEval($i) => {
                #[allow(dead_code)]
                type $I = $crate::metrics::harmonic_eval::CandidateInput;
                $body
            }
            $crate::metrics::CandidateBase::Fleur($i) => {
                #[allow(dead_code)]
                type $I = $crate::metrics::fleur::CandidateInput;
                $body
            }
            $crate::metrics::CandidateBase::GVeval($i) => {
                #[allow(dead_code)]
                type $I = $crate::metrics::g_veval::CandidateInput;
                $body
            }
            $crate::metrics::CandidateBase::Maev($i) => {
                #[allow(dead_code)]
                type $I = $crate::metrics::maev::CandidateInput;
                $body
            }
        }
    }};
}
pub(crate) use with_candidate;

/// One candidate of a comparison with γ, read back from a file or link (HarmonicEval's: the
/// comparisons that open on the page, `files::result_file::Comparison`).
pub type ComparedResult = harmonic_eval::reopen::Reopened;

/// Reads one candidate's result of a comparison with γ (its own export), or says why not.
pub fn reopen_compared(
    obj: &serde_json::Map<String, serde_json::Value>,
) -> Result<ComparedResult, String> {
    harmonic_eval::reopen::of(obj)
}

/// What a batch run fixes for every metric (`batch::Plan`): the extensions switched on (each
/// metric uses only its own) and each metric's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// Every extension switched on; a run uses only its metric's own.
    pub fidelity: fidelity::Fidelity,
    pub chosen_criteria: CriterionSet,
    pub gv_mode: g_veval::Mode,
    pub maev: MaevSettings,
}

impl RunSettings {
    /// What a lab run fixes when the page's storage holds no setting of its own
    /// (`ui::metrics::stored_run_settings` with nothing stored): G-VEval reference-free, MAEV's
    /// default trials, threshold and few-shot pool with seed 1. The command line and the Python
    /// package run with these, so their requests are the lab's.
    pub fn lab(fidelity: fidelity::Fidelity, chosen_criteria: CriterionSet) -> RunSettings {
        RunSettings {
            fidelity,
            chosen_criteria,
            gv_mode: g_veval::Mode::RefFree,
            maev: MaevSettings {
                trials: maev::DEFAULT_TRIALS,
                threshold: maev::DEFAULT_THRESHOLD,
                seed: 1,
                pool: maev::default_pool(),
            },
        }
    }
}

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
    /// The key under which this metric's export holds the judged text.
    pub text_key: &'static str,
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
/// sent them (so `max_tokens` is the user's output budget, not the paper's default, and
/// `top_logprobs` the in-page judge's wider list where it asks for one).
#[derive(serde::Serialize)]
pub(crate) struct SentSettings {
    pub temperature: Option<f64>,
    pub top_logprobs: Option<u8>,
    pub max_tokens: u32,
}

/// Who judged and how, as every metric's export records it (flattened into its document):
/// the provider, model and base URL (without credentials typed into it), the in-page judge's
/// backend and threads (absent for every other provider), and `"fidelity"` with
/// `"extensions"`: the paper's procedure or the named extensions this result used.
#[derive(serde::Serialize)]
pub(crate) struct JudgeDoc<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub base_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<crate::providers::in_browser::gpu::Engine>,
    #[serde(flatten)]
    pub fidelity: fidelity::FidelityRecord,
}

impl<'a> JudgeDoc<'a> {
    pub fn of(backend: &'a crate::providers::Backend, fidelity: &fidelity::Fidelity) -> Self {
        JudgeDoc {
            provider: backend.provider_id(),
            model: &backend.model,
            base_url: crate::providers::without_credentials(&backend.base_url),
            engine: backend.engine,
            fidelity: fidelity.record(),
        }
    }
}

impl SentSettings {
    pub fn of(backend: &crate::providers::Backend, params: crate::providers::ChatParams) -> Self {
        let sent = backend.sends(params);
        SentSettings {
            temperature: sent.temperature,
            top_logprobs: sent.top_logprobs,
            max_tokens: sent.max_tokens,
        }
    }
}

impl Metric {
    /// The id written in exports, storage and the selector (`MetricInfo::id`).
    pub const fn id(self) -> &'static str {
        self.info().id
    }

    /// The metric with this id, if any (reading a stored setting or a results file).
    pub fn from_id(id: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.id() == id)
    }

    /// Whether a run of it sends the image, in G-VEval's `mode`. MAEV judges text only.
    pub fn sends_image(self, gv_mode: g_veval::Mode) -> bool {
        match self {
            Metric::GVeval => gv_mode.needs_image(),
            _ => self.needs_image_file(),
        }
    }

    /// The metric a comparison of candidates names when it names none: the first comparisons
    /// (issue 21) were HarmonicEval's and did not say.
    pub const COMPARED_BY_DEFAULT: Metric = Metric::HarmonicEval;

    /// Whether its score weighs criteria by γ (HarmonicEval): the γ slider, the weights chart
    /// and the criterion cards apply.
    pub fn weighs_criteria(self) -> bool {
        self.weighting().is_some()
    }

    /// How its criteria are weighed into one score at γ; `None` for a metric with one score.
    pub fn weighting(self) -> Option<&'static dyn crate::scoring::weighting::Weighting> {
        match self {
            Metric::HarmonicEval => Some(&harmonic_eval::weighting::Harmonic),
            Metric::Fleur | Metric::RefFleur | Metric::GVeval | Metric::Maev => None,
        }
    }

    /// Whether it can judge a video (G-VEval's video medium); the others refuse one.
    pub fn judges_video(self) -> bool {
        matches!(self, Metric::GVeval)
    }

    /// What a metric that judges images says to a video: the registry names the metric that
    /// judges video ([`Metric::judges_video`]), so no other shared code has to.
    pub const VIDEO_REFUSAL: &'static str =
        "This metric judges images; for a video, choose G-VEval (or drop an image).";

    /// Whether a dataset item needs an image file at all (MAEV's items never do).
    pub fn needs_image_file(self) -> bool {
        with_room!(self, M => M::NEEDS_IMAGE_FILE)
    }
}

/// One addition of ours to a published metric: the list of them, as `Metric` lists the metrics.
/// What each is (id, label, reason, metrics) is its room's `EXTENSION` ([`Extension::info`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extension {
    /// `metrics/maev/`: the expected score from the score token's logprobs.
    MaevExpectedScore,
    /// `metrics/g_veval/`: 20 alternatives per token.
    GvevalTop20,
    /// `metrics/harmonic_eval/`: low image detail for photos on `auto`.
    HeLowDetail,
    /// `metrics/fleur/`: multi-digit tokens read as decimals (never switched by hand).
    FleurMultiDigit,
}

impl Extension {
    /// Every extension: those a user switches, then those always applied where needed.
    pub const ALL: [Extension; 4] = [
        Extension::MaevExpectedScore,
        Extension::GvevalTop20,
        Extension::HeLowDetail,
        Extension::FleurMultiDigit,
    ];

    /// The extensions a user switches (one checkbox each, test id `ext-<id>`; their `fixed` is
    /// `None`, `fidelity::tests`).
    pub const SWITCHABLE: [Extension; 3] = [
        Extension::MaevExpectedScore,
        Extension::GvevalTop20,
        Extension::HeLowDetail,
    ];

    /// The extensions always applied where they belong, with nothing to switch.
    pub const FIXED: [Extension; 1] = [Extension::FleurMultiDigit];

    /// What it is, written in its metric's room (`metrics/<m>/mod.rs`, `EXTENSION`).
    pub fn info(self) -> &'static fidelity::ExtensionInfo {
        match self {
            Extension::MaevExpectedScore => &maev::EXTENSION,
            Extension::GvevalTop20 => &g_veval::EXTENSION,
            Extension::HeLowDetail => &harmonic_eval::EXTENSION,
            Extension::FleurMultiDigit => &fleur::EXTENSION,
        }
    }
}

/// The metric with this `id`.
pub fn info(id: &str) -> Option<&'static MetricInfo> {
    Metric::from_id(id).map(Metric::info)
}

/// Every metric's [`MetricInfo`], in [`Metric::ALL`]'s order.
pub const METRICS: [MetricInfo; Metric::ALL.len()] = {
    let mut out = [*Metric::ALL[0].info(); Metric::ALL.len()];
    let mut i = 1;
    while i < out.len() {
        out[i] = *Metric::ALL[i].info();
        i += 1;
    }
    out
};

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

    #[test]
    fn every_metric_round_trips_through_its_id_and_ids_are_unique() {
        let mut ids: Vec<&str> = Metric::ALL.iter().map(|m| m.id()).collect();
        for m in Metric::ALL {
            assert_eq!(Metric::from_id(m.id()), Some(m));
        }
        // The ids files and links already hold never change; the selector opens on HarmonicEval.
        let published = [
            ("harmonic_eval", Metric::HarmonicEval),
            ("fleur", Metric::Fleur),
            ("ref_fleur", Metric::RefFleur),
            ("g_veval", Metric::GVeval),
            ("maev", Metric::Maev),
        ];
        for (id, m) in published {
            assert_eq!(Metric::from_id(id), Some(m), "{id}");
        }
        assert_eq!(Metric::ALL[0], Metric::HarmonicEval);
        // Each id is its variant's name in snake case (what scripts/metric_list.py reads).
        for m in Metric::ALL {
            let name = format!("{m:?}");
            let mut snake = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
            }
            assert_eq!(m.id(), snake);
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Metric::ALL.len());
        assert_eq!(Metric::from_id("FLEUR"), None);
        assert!(!Metric::Maev.sends_image(crate::metrics::g_veval::Mode::RefFree));
        assert!(!Metric::GVeval.sends_image(crate::metrics::g_veval::Mode::RefOnly));
        assert!(Metric::GVeval.sends_image(crate::metrics::g_veval::Mode::RefFree));
    }
}
