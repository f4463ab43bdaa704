//! The metrics the app offers. Each lives in its own room, `metrics/<m>/` (its core) and
//! `ui/metrics/<m>/` (its page part); this registry is the one core file besides them that
//! names a metric (`scripts/structure.py --check` holds every other file to that): the
//! [`Metric`] variants and their [`MetricInfo`], the [`Reopened`] results, the settings a batch
//! run fixes per metric ([`RunSettings`]), and [`with_room!`], the one `match` that turns a
//! [`Metric`] into its room's [`room::MetricCore`] type for code that runs every metric alike.

pub mod fidelity;
pub mod fleur;
pub mod g_veval;
pub mod harmonic_eval;
pub mod maev;
pub mod room;

pub use fleur::references_from_lines;
pub use harmonic_eval::CriterionSet;
pub use maev::RunSettings as MaevSettings;

/// Runs `$body` with `$M` the room type ([`room::MetricCore`]) of `$metric`: the one `match`
/// that dispatches per metric, each arm a call of the same generic code with one metric's type
/// (static dispatch; a new metric is one more arm here).
macro_rules! with_room {
    ($metric:expr, $M:ident => $body:expr) => {{
        #[allow(unused_imports)]
        use $crate::metrics::room::MetricCore as _;
        match $metric {
            $crate::metrics::Metric::HarmonicEval => {
                type $M = $crate::metrics::harmonic_eval::room::Room;
                $body
            }
            $crate::metrics::Metric::Fleur | $crate::metrics::Metric::RefFleur => {
                type $M = $crate::metrics::fleur::room::Room;
                $body
            }
            $crate::metrics::Metric::GVeval => {
                type $M = $crate::metrics::g_veval::room::Room;
                $body
            }
            $crate::metrics::Metric::Maev => {
                type $M = $crate::metrics::maev::room::Room;
                $body
            }
        }
    }};
}
pub(crate) use with_room;

/// One candidate of a comparison with γ, read back from a file or link (HarmonicEval's: the
/// comparisons that open on the page, `files::result_file::Comparison`).
pub type ComparedResult = harmonic_eval::reopen::Reopened;

/// Reads one candidate's result of a comparison with γ (its own export), or says why not.
pub fn reopen_compared(obj: &serde_json::Map<String, serde_json::Value>) -> Result<ComparedResult, String> {
    harmonic_eval::reopen::of(obj)
}

/// What every candidate shares (image, references, question, trials…) for a metric without γ
/// (`candidates::plain::Base`); the text is each candidate's own. Each input implements
/// [`room::Candidate`] in its room.
#[derive(Clone, Debug)]
pub enum CandidateBase {
    Fleur(fleur::Input),
    Gveval(g_veval::Input),
    Maev(maev::Input),
}

/// One answer of a candidate, read (`candidates::plain::Part`).
#[derive(Clone, Debug, PartialEq)]
pub enum CandidatePart {
    Fleur(fleur::FleurResult),
    /// Boxed: the reading is the largest of the three (360 bytes against 144).
    Gveval(Box<g_veval::GvevalResult>),
    Maev(maev::TrialReading),
}

/// Runs `$body` with `$i` the metric's input inside a [`CandidateBase`] (`$I` its type, a
/// [`room::Candidate`]): the one `match` on the candidates' inputs.
macro_rules! with_candidate {
    ($base:expr, $I:ident, $i:ident => $body:expr) => {{
        #[allow(unused_imports)]
        use $crate::metrics::room::Candidate as _;
        match $base {
            $crate::metrics::CandidateBase::Fleur($i) => {
                #[allow(dead_code)]
                type $I = $crate::metrics::fleur::Input;
                $body
            }
            $crate::metrics::CandidateBase::Gveval($i) => {
                #[allow(dead_code)]
                type $I = $crate::metrics::g_veval::Input;
                $body
            }
            $crate::metrics::CandidateBase::Maev($i) => {
                #[allow(dead_code)]
                type $I = $crate::metrics::maev::Input;
                $body
            }
        }
    }};
}
pub(crate) use with_candidate;

impl CandidatePart {
    /// A candidate's score and uncertainty from its answers read so far, read by the metric
    /// of the first (`None` where none was read; MAEV's mean is over the trials read).
    pub fn summary(parts: &[&CandidatePart]) -> (Option<f64>, Option<f64>) {
        fn of<I: room::Candidate>(parts: &[&CandidatePart]) -> (Option<f64>, Option<f64>) {
            let mine: Vec<&I::Part> = parts.iter().filter_map(|p| I::part(p)).collect();
            I::summary(&mine)
        }
        match parts.first() {
            None => (None, None),
            Some(CandidatePart::Fleur(_)) => of::<fleur::Input>(parts),
            Some(CandidatePart::Gveval(_)) => of::<g_veval::Input>(parts),
            Some(CandidatePart::Maev(_)) => of::<maev::Input>(parts),
        }
    }
}

/// What a batch run fixes for every metric (`batch::Plan`): the extensions switched on (each
/// metric uses only its own) and each metric's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// Every extension switched on; a run uses only its metric's own.
    pub fidelity: fidelity::Fidelity,
    pub he_criteria: CriterionSet,
    pub gv_mode: g_veval::Mode,
    pub maev: MaevSettings,
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

/// One of the metrics the app offers. Code that does something per metric `match`es on it,
/// so a new variant is a compile error at every place that must handle it. Its id (a string)
/// is used only at the edges: the `metric-select` values, exports, storage.
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
        match self {
            Metric::HarmonicEval => &harmonic_eval::INFO,
            Metric::Fleur => &fleur::FLEUR_INFO,
            Metric::RefFleur => &fleur::REF_FLEUR_INFO,
            Metric::GVeval => &g_veval::INFO,
            Metric::Maev => &maev::INFO,
        }
    }

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
            Metric::HarmonicEval | Metric::Fleur | Metric::RefFleur => true,
            Metric::GVeval => gv_mode.needs_image(),
            Metric::Maev => false,
        }
    }

    /// The metric a comparison of candidates names when it names none: the first comparisons
    /// (issue 21) were HarmonicEval's and did not say.
    pub const COMPARED_BY_DEFAULT: Metric = Metric::HarmonicEval;

    /// Whether its score weighs criteria by γ (HarmonicEval): the γ slider, the weights chart
    /// and the criterion cards apply.
    pub fn weighs_criteria(self) -> bool {
        matches!(self, Metric::HarmonicEval)
    }

    /// Whether it can judge a video (G-VEval's video medium); the others refuse one.
    pub fn judges_video(self) -> bool {
        matches!(self, Metric::GVeval)
    }

    /// Whether a dataset item needs an image file at all (MAEV's items never do).
    pub fn needs_image_file(self) -> bool {
        match self {
            Metric::HarmonicEval | Metric::Fleur | Metric::RefFleur | Metric::GVeval => true,
            Metric::Maev => false,
        }
    }
}

impl fidelity::Extension {
    /// Whether this extension belongs to the metric (each extension is one metric's own).
    pub fn applies_to(self, metric: Metric) -> bool {
        match self {
            fidelity::Extension::MaevExpectedScore => metric == Metric::Maev,
            fidelity::Extension::GvevalTop20 => metric == Metric::GVeval,
            fidelity::Extension::HeLowDetail => metric == Metric::HarmonicEval,
            fidelity::Extension::FleurMultiDigit => matches!(metric, Metric::Fleur | Metric::RefFleur),
        }
    }
}

/// A metric's result file read back by its own reader (`metrics::<m>::reopen`): what its panel
/// needs to show the file as if it had just run, every number checked against what it was
/// computed from.
#[derive(Clone, Debug, PartialEq)]
pub enum Reopened {
    HarmonicEval(Box<harmonic_eval::reopen::Reopened>),
    /// FLEUR or RefFLEUR (the file's `references` say which).
    Fleur(Box<fleur::reopen::Reopened>),
    GVeval(Box<g_veval::reopen::Reopened>),
    Maev(Box<maev::reopen::Reopened>),
}

impl Metric {
    /// Reads this metric's export `obj`, or says in one sentence why it cannot be shown.
    pub fn reopen(self, obj: &serde_json::Map<String, serde_json::Value>) -> Result<Reopened, String> {
        Ok(match self {
            Metric::HarmonicEval => Reopened::HarmonicEval(Box::new(harmonic_eval::reopen::reopen(obj)?)),
            Metric::Fleur | Metric::RefFleur => Reopened::Fleur(Box::new(fleur::reopen::reopen(obj)?)),
            Metric::GVeval => Reopened::GVeval(Box::new(g_veval::reopen::reopen(obj)?)),
            Metric::Maev => Reopened::Maev(Box::new(maev::reopen::reopen(obj)?)),
        })
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
        assert_eq!(ids, ["harmonic_eval", "fleur", "ref_fleur", "g_veval", "maev"]);
        ids.dedup();
        assert_eq!(ids.len(), Metric::ALL.len());
        assert_eq!(Metric::from_id("FLEUR"), None);
        assert!(!Metric::Maev.sends_image(crate::metrics::g_veval::Mode::RefFree));
        assert!(!Metric::GVeval.sends_image(crate::metrics::g_veval::Mode::RefOnly));
        assert!(Metric::GVeval.sends_image(crate::metrics::g_veval::Mode::RefFree));
    }
}
