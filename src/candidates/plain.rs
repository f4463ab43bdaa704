//! Candidates for the metrics without γ (FLEUR / RefFLEUR, G-VEval, MAEV; issue 21): what
//! each candidate sends, how its answers become one score with the judge's own uncertainty
//! where the metric gives one, and its export. The ranking and the differences are
//! [`super::order`] and [`super::differences`]; this module only says, per metric, where the
//! numbers come from.
//!
//! The uncertainty of a score (in the score's units) is our reading, named as ours in the
//! README:
//! * FLEUR: the standard deviation of the number the smoothed score is the expectation of
//!   (each decimal place's digit distribution, weighted 0.1 and 0.01, places independent;
//!   the multi-digit rule's alternatives read as decimals). A printed integer (`1.0`, `0`) has
//!   none.
//! * G-VEval: the standard deviation of the renormalised integer-token distribution of the
//!   final score; none for a parsed (unsmoothed) score or for ACCR's mean of four.
//! * MAEV: the standard error of the mean over the trials read (sample standard deviation /
//!   √n), with at least two trials; none with one.

use crate::completion::Completion;
use crate::errors::JudgeError;
use crate::metrics::fleur::{self, FleurResult, Place, Scheme};
use crate::metrics::g_veval::{self, GvevalResult};
use crate::metrics::maev::{self, TrialReading};
use crate::metrics::Metric;
use crate::providers::{Backend, HttpRequest};

/// What every candidate shares (image, references, question, trials…), per metric; the text
/// is each candidate's own ([`Base::with_text`]).
#[derive(Clone, Debug)]
pub enum Base {
    Fleur(fleur::Input),
    Gveval(g_veval::Input),
    Maev(maev::Input),
}

/// One answer, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Fleur(FleurResult),
    /// Boxed: the reading is the largest of the three (360 bytes against 144).
    Gveval(Box<GvevalResult>),
    Maev(TrialReading),
}

/// One request of a candidate, with the cache tag that keeps repeated prompts apart (MAEV's
/// trials are independent samples).
pub struct Request {
    pub request: HttpRequest,
    pub cache_tag: Option<String>,
}

impl Base {
    /// The same input with candidate `text` as the judged text.
    pub fn with_text(&self, text: &str) -> Base {
        let mut b = self.clone();
        match &mut b {
            Base::Fleur(i) => i.caption = text.to_string(),
            Base::Gveval(i) => i.caption = text.to_string(),
            Base::Maev(i) => i.answer = text.to_string(),
        }
        b
    }

    pub fn metric(&self) -> Metric {
        match self {
            Base::Fleur(i) if i.references.is_some() => Metric::RefFleur,
            Base::Fleur(_) => Metric::Fleur,
            Base::Gveval(_) => Metric::GVeval,
            Base::Maev(_) => Metric::Maev,
        }
    }

    /// The input's own problems (the image, references, the text…).
    pub fn problems(&self) -> Vec<String> {
        match self {
            Base::Fleur(i) => i.problems(),
            Base::Gveval(i) => i.problems(),
            Base::Maev(i) => i.problems(),
        }
    }

    /// Decimals a score is shown with: FLEUR 0–1 to three, G-VEval 0–100 to one, MAEV 0–2 to
    /// two.
    pub fn decimals(&self) -> usize {
        match self {
            Base::Fleur(_) => 3,
            Base::Gveval(_) => 1,
            Base::Maev(_) => 2,
        }
    }

    /// What the uncertainty beside each score is, and that the reading is ours.
    pub fn uncertainty_note(&self) -> &'static str {
        match self {
            Base::Fleur(_) => "± is the spread of the judge's digit probabilities behind the smoothed score (our reading; the paper defines none); a printed 1.0 or 0 has none.",
            Base::Gveval(_) => "± is the spread of the judge's probabilities over the integer scores (our reading; the paper defines none); a parsed score or ACCR's mean has none.",
            Base::Maev(_) => "± is the standard error of the mean over the trials read (our reading); one trial has none.",
        }
    }

    /// The requests of one candidate (this input's text).
    pub fn requests(&self, backend: &Backend) -> Result<Vec<Request>, JudgeError> {
        let one = |request| {
            vec![Request {
                request,
                cache_tag: None,
            }]
        };
        Ok(match self {
            Base::Fleur(i) => one(fleur::score_request(backend, i)?),
            Base::Gveval(i) => one(g_veval::request(backend, i)?),
            Base::Maev(i) => maev::trial_requests(backend, i)?
                .into_iter()
                .enumerate()
                .map(|(k, t)| Request {
                    request: t.request,
                    cache_tag: Some(format!("maev-trial-{k}")),
                })
                .collect(),
        })
    }

    /// Reads one answer of this metric.
    pub fn read(&self, completion: &Completion) -> Result<Part, JudgeError> {
        match self {
            Base::Fleur(_) => fleur::interpret(completion).map(Part::Fleur),
            Base::Gveval(i) => g_veval::interpret(completion, i.accr).map(|r| Part::Gveval(Box::new(r))),
            Base::Maev(i) => maev::read_completion(completion, &i.fidelity)
                .map(Part::Maev)
                .map_err(|detail| JudgeError::BadResponse { detail }),
        }
    }

    /// This candidate's own export (the metric's single-result document; never the key):
    /// `parts[k]` is request k's reading, its error, or `None` when it has not finished.
    pub fn export(&self, backend: &Backend, parts: &[Option<Result<&Part, String>>]) -> String {
        let unfinished = "not finished".to_string();
        let outcome = |k: usize| -> Result<&Part, &str> {
            match parts.get(k) {
                Some(Some(Ok(p))) => Ok(*p),
                Some(Some(Err(e))) => Err(e.as_str()),
                _ => Err(unfinished.as_str()),
            }
        };
        match self {
            Base::Fleur(i) => fleur::export_json(&fleur::ExportInput {
                caption: &i.caption,
                references: i.references.as_deref(),
                backend,
                result: outcome(0).and_then(|p| match p {
                    Part::Fleur(r) => Ok(r),
                    _ => Err("another metric's answer"),
                }),
                explanation: None,
            }),
            Base::Gveval(i) => g_veval::export_json(&g_veval::ExportInput {
                input: i,
                backend,
                result: outcome(0).and_then(|p| match p {
                    Part::Gveval(r) => Ok(&**r),
                    _ => Err("another metric's answer"),
                }),
            }),
            Base::Maev(i) => {
                let pairs = maev::sampling::sample_pairs(&i.pool, i.trials as usize, i.seed)
                    .unwrap_or_default();
                let trials = pairs
                    .into_iter()
                    .enumerate()
                    .map(|(k, examples)| {
                        let reading = outcome(k).and_then(|p| match p {
                            Part::Maev(r) => Ok(r),
                            _ => Err("another metric's answer"),
                        });
                        (examples, reading)
                    })
                    .collect();
                maev::export_json(&maev::ExportInput {
                    input: i,
                    backend,
                    trials,
                })
            }
        }
    }
}

/// Standard deviation of a distribution given as (value, probability) pairs, the mass not
/// listed counting as the value 0 (FLEUR does not renormalise).
fn spread(values: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut m1, mut m2) = (0.0, 0.0);
    for (v, p) in values {
        m1 += v * p;
        m2 += v * v * p;
    }
    (m2 - m1 * m1).max(0.0).sqrt()
}

/// FLEUR's uncertainty (see the module documentation).
pub fn fleur_uncertainty(r: &FleurResult) -> Option<f64> {
    let s = &r.smoothed;
    match s.scheme {
        Scheme::Units => None,
        Scheme::MultiDigit => {
            let place = s.places.first()?;
            Some(spread(place.readings.iter().map(|(_, v, p)| (*v, *p))))
        }
        Scheme::PerDigit => {
            let var: f64 = s
                .places
                .iter()
                .map(|d| {
                    let w = match d.place {
                        Place::Units => 1.0,
                        Place::Tenths => 0.1,
                        Place::Hundredths => 0.01,
                    };
                    let sd = spread(d.digits.iter().enumerate().map(|(i, p)| (i as f64, *p)));
                    (w * sd).powi(2)
                })
                .sum();
            Some(var.sqrt())
        }
    }
}

/// G-VEval's uncertainty (see the module documentation).
pub fn gveval_uncertainty(r: &GvevalResult) -> Option<f64> {
    let reading = r.final_reading.as_ref()?;
    if reading.method != g_veval::Method::IntegerTokens || reading.distribution.is_empty() {
        return None;
    }
    let mass: f64 = reading.distribution.iter().map(|(_, p)| p).sum();
    if mass <= 0.0 {
        return None;
    }
    Some(spread(
        reading
            .distribution
            .iter()
            .map(|&(v, p)| (f64::from(v), p / mass)),
    ))
}

/// A candidate's score and uncertainty from its answers read so far (`None` where none was
/// read; MAEV's mean is over the trials read).
pub fn summary(parts: &[&Part]) -> (Option<f64>, Option<f64>) {
    match parts {
        [] => (None, None),
        [Part::Fleur(r)] => (Some(r.smoothed.score), fleur_uncertainty(r)),
        [Part::Gveval(r)] => (Some(r.score), gveval_uncertainty(r)),
        _ => {
            let scores: Vec<f64> = parts
                .iter()
                .filter_map(|p| match p {
                    Part::Maev(t) => Some(t.score),
                    _ => None,
                })
                .collect();
            let n = scores.len() as f64;
            if scores.is_empty() {
                return (None, None);
            }
            let mean = scores.iter().sum::<f64>() / n;
            let se = (scores.len() >= 2).then(|| {
                let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0);
                (var / n).sqrt()
            });
            (Some(mean), se)
        }
    }
}
