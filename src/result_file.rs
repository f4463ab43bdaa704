//! Reading a result file back: the evaluator's "Export JSON" document of any metric, optionally
//! with the keys a gallery example or a history entry adds (`image`, a data URL of a small
//! thumbnail; `explanations`, Explain's stored answers by criterion; `source`, where the numbers
//! come from). The examples gallery, "open a result" and (later) share links and history all go
//! through [`read`], so an exported file and an example are one format.
//!
//! Nothing here trusts a number the file could not support: a HarmonicEval criterion's score, σ
//! and weight are recomputed from its stored distribution (FLEUR's, G-VEval's and MAEV's
//! readers, `metrics::<m>::reopen`, check theirs the same way), and a file whose stored score
//! disagrees with its distribution is refused with a sentence, as is anything malformed.

use serde_json::{Map, Value};

use crate::aggregate::{sigma, smoothed_score};
use crate::criteria::Criterion;
use crate::doubt::Doubt;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::harmonic_eval::{CriterionResult, CriterionSet};
use crate::task::Task;

/// A result file read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Opened {
    /// The metric's id (`harmonic-eval`, `fleur`, ...).
    pub metric: String,
    /// Where the numbers come from (a gallery example says so), if the file says.
    pub source: Option<String>,
    /// A `data:image/...` URL of the image, if the file carries one.
    pub image: Option<String>,
    pub model: String,
    pub provider: String,
    /// The request settings the file records (`settings.max_tokens`, `settings.image_detail`),
    /// so that exporting the opened result records them again.
    pub sent: Sent,
    pub body: Body,
}

/// What an export's `settings` say of the backend's own settings (the rest is the metric's).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sent {
    pub max_tokens: Option<u32>,
    pub image_detail: Option<crate::providers::ImageDetail>,
}

impl Sent {
    fn of(obj: &Map<String, Value>) -> Sent {
        let settings = obj.get("settings");
        let get = |k: &str| settings.and_then(|s| s.get(k));
        Sent {
            max_tokens: get("max_tokens").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0),
            image_detail: get("image_detail").and_then(Value::as_str).map(crate::providers::ImageDetail::from_id),
        }
    }

    /// The backend's output budget and image detail as the file records them.
    pub fn apply(&self, backend: &mut crate::providers::Backend) {
        backend.tuning.max_tokens = self.max_tokens;
        backend.image_detail = self.image_detail.unwrap_or_default();
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Everything the HarmonicEval panel needs to show it as if it had just run.
    Harmonic(Box<Harmonic>),
    /// FLEUR or RefFLEUR, as if it had just run (score recomputed from its digit probabilities).
    Fleur(Box<crate::metrics::fleur::reopen::Reopened>),
    /// G-VEval, as if it had just run (each reading checked against its method).
    Gveval(Box<crate::metrics::g_veval::reopen::Reopened>),
    /// MAEV, as if it had just run (its trials, their examples, the mean checked).
    Maev(Box<crate::metrics::maev::reopen::Reopened>),
    /// A HarmonicEval comparison of several candidates (issue 21): each candidate read as its
    /// own result, every number recomputed from its distributions.
    Candidates(Box<Comparison>),
}

/// Several candidates for one image, as the comparison's export or share link holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub labels: Vec<String>,
    /// One per label, in order (its `text` is the candidate's).
    pub candidates: Vec<Harmonic>,
    /// The human's pick, an index into `labels`.
    pub chosen: Option<usize>,
    pub gamma: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Harmonic {
    pub task: Task,
    pub text: String,
    pub question: String,
    pub gamma: f64,
    pub criteria_set: CriterionSet,
    /// The extensions the run used (`extensions`), so a re-export records them again.
    pub fidelity: Fidelity,
    /// One per criterion in [`Criterion::ALL`] order: a result, the recorded error, or not run.
    pub results: [Option<Result<CriterionResult, String>>; 5],
    /// Explain's stored answers, one per criterion.
    pub explanations: [Option<String>; 5],
}

/// Reads a result file, or says in one sentence why it cannot.
pub fn read(json: &str) -> Result<Opened, String> {
    let doc: Value = serde_json::from_str(json)
        .map_err(|_| "This file is not a result exported by harmonic-judge (it is not JSON).".to_string())?;
    let obj = doc
        .as_object()
        .ok_or_else(|| "This file is not a result exported by harmonic-judge.".to_string())?;
    let metric = str_of(obj, "metric");
    if crate::metrics::info(&metric).is_none() {
        return Err("This file is not a result exported by harmonic-judge (no known metric).".into());
    }
    let image = obj
        .get("image")
        .and_then(Value::as_str)
        .filter(|s| s.starts_with("data:image/"))
        .map(str::to_string);
    // A comparison names its model and provider in each candidate's own result.
    let mut named = obj;
    let body = if obj.get("kind").and_then(Value::as_str) == Some("candidates") {
        if crate::metrics::Metric::from_id(&metric) != Some(crate::metrics::Metric::HarmonicEval) {
            return Err(format!(
                "This file compares candidates with {}; only HarmonicEval comparisons open on this page so far (its numbers are in the file).",
                crate::metrics::info(&metric).map_or(metric.as_str(), |i| i.name)
            ));
        }
        let (comparison, first) = read_comparison(obj)?;
        named = first;
        Body::Candidates(Box::new(comparison))
    } else {
        match crate::metrics::Metric::from_id(&metric) {
            Some(crate::metrics::Metric::HarmonicEval) => Body::Harmonic(Box::new(read_harmonic(obj)?)),
            Some(crate::metrics::Metric::Fleur | crate::metrics::Metric::RefFleur) => {
                Body::Fleur(Box::new(crate::metrics::fleur::reopen::reopen(obj)?))
            }
            Some(crate::metrics::Metric::GVeval) => Body::Gveval(Box::new(crate::metrics::g_veval::reopen::reopen(obj)?)),
            Some(crate::metrics::Metric::Maev) => Body::Maev(Box::new(crate::metrics::maev::reopen::reopen(obj)?)),
            None => return Err("This file is not a result exported by harmonic-judge (no known metric).".into()),
        }
    };
    Ok(Opened {
        source: obj.get("source").and_then(Value::as_str).map(str::to_string),
        image,
        model: str_of(named, "model"),
        provider: str_of(named, "provider"),
        sent: Sent::of(named),
        metric,
        body,
    })
}

/// Adds an example's or a history entry's extras to an exported document.
pub fn with_extras(
    export: &str,
    image: Option<&str>,
    explanations: &[Option<String>; 5],
    source: Option<&str>,
) -> String {
    let Ok(Value::Object(mut obj)) = serde_json::from_str::<Value>(export) else {
        return export.to_string();
    };
    if let Some(img) = image {
        obj.insert("image".into(), Value::from(img));
    }
    let stored: Map<String, Value> = Criterion::ALL
        .iter()
        .zip(explanations)
        .filter_map(|(c, e)| e.as_ref().map(|e| (c.id().to_string(), Value::from(e.as_str()))))
        .collect();
    if !stored.is_empty() {
        obj.insert("explanations".into(), Value::Object(stored));
    }
    if let Some(s) = source {
        obj.insert("source".into(), Value::from(s));
    }
    serde_json::to_string_pretty(&Value::Object(obj)).unwrap_or_else(|_| export.to_string())
}

fn str_of(obj: &Map<String, Value>, key: &str) -> String {
    obj.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// A comparison's candidates (2 to [`crate::candidates::MAX_CANDIDATES`], labels given and
/// distinct), each read by [`harmonic_of`]; and the first one's result (its model, provider).
fn read_comparison(obj: &Map<String, Value>) -> Result<(Comparison, &Map<String, Value>), String> {
    let bad = |why: &str| format!("This comparison cannot be opened: {why}.");
    let list = obj
        .get("candidates")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("it lists no candidates"))?;
    if !(2..=crate::candidates::MAX_CANDIDATES).contains(&list.len()) {
        return Err(bad(&format!(
            "it holds {} candidates, not 2 to {}",
            list.len(),
            crate::candidates::MAX_CANDIDATES
        )));
    }
    let (mut labels, mut candidates, mut first) = (Vec::new(), Vec::new(), None);
    for c in list {
        let label = c.get("label").and_then(Value::as_str).unwrap_or_default().trim().to_string();
        if label.is_empty() || labels.contains(&label) {
            return Err(bad("its candidates need distinct labels"));
        }
        let result = c
            .get("result")
            .and_then(Value::as_object)
            .ok_or_else(|| bad(&format!("candidate {label} has no result")))?;
        let mut h = harmonic_of(result)?;
        h.text = c.get("text").and_then(Value::as_str).map_or(h.text, str::to_string);
        first.get_or_insert(result);
        labels.push(label);
        candidates.push(h);
    }
    if candidates.iter().all(|h| !h.results.iter().any(|r| matches!(r, Some(Ok(_))))) {
        return Err(bad("no candidate has a score"));
    }
    let chosen = obj
        .get("chosen")
        .and_then(Value::as_str)
        .and_then(|c| labels.iter().position(|l| l == c));
    let gamma = obj
        .get("gamma")
        .and_then(Value::as_f64)
        .filter(|g| (crate::aggregate::GAMMA_MIN..=1.0).contains(g))
        .unwrap_or(crate::aggregate::GAMMA_DEFAULT);
    let comparison = Comparison {
        labels,
        candidates,
        chosen,
        gamma,
    };
    Ok((comparison, first.unwrap_or(obj)))
}

fn read_harmonic(obj: &Map<String, Value>) -> Result<Harmonic, String> {
    let h = harmonic_of(obj)?;
    if h.results.iter().all(|r| !matches!(r, Some(Ok(_)))) {
        return Err("This HarmonicEval file holds no criterion with a score to show.".into());
    }
    Ok(h)
}

/// A HarmonicEval result, every criterion rebuilt from its distribution; possibly none scored.
fn harmonic_of(obj: &Map<String, Value>) -> Result<Harmonic, String> {
    let task = Task::from_id(&str_of(obj, "task")).unwrap_or(Task::Ic);
    let gamma = obj
        .get("gamma")
        .and_then(Value::as_f64)
        .filter(|g| (0.0..=1.0).contains(g))
        .unwrap_or(crate::aggregate::GAMMA_DEFAULT);
    let listed: Vec<&Value> = obj
        .get("criteria")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let explained = obj.get("explanations").and_then(Value::as_object);
    let mut results: [Option<Result<CriterionResult, String>>; 5] = Default::default();
    let mut explanations: [Option<String>; 5] = Default::default();
    for c in Criterion::ALL {
        let entry = listed
            .iter()
            .filter_map(|v| v.as_object())
            .find(|o| o.get("name").and_then(Value::as_str) == Some(c.id()));
        // An export lists every criterion; one that was not run has only its name.
        let entry = entry.filter(|o| o.contains_key("distribution") || o.contains_key("error"));
        if let Some(entry) = entry {
            results[c.index()] = Some(read_criterion(c, entry)?);
        }
        explanations[c.index()] = explained
            .and_then(|e| e.get(c.id()))
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    let chosen: Vec<Criterion> = obj
        .get("settings")
        .and_then(|s| s.get("criteria"))
        .and_then(Value::as_array)
        .map(|ids| {
            Criterion::ALL
                .into_iter()
                .filter(|c| ids.iter().any(|i| i.as_str() == Some(c.id())))
                .collect()
        })
        .unwrap_or_else(|| Criterion::ALL.to_vec());
    Ok(Harmonic {
        task,
        text: str_of(obj, "text"),
        question: str_of(obj, "question"),
        gamma,
        criteria_set: CriterionSet::of(&chosen),
        fidelity: Fidelity::from_export(obj.get("extensions")),
        results,
        explanations,
    })
}

/// One criterion: its recorded error, or a result rebuilt from its distribution.
fn read_criterion(c: Criterion, o: &Map<String, Value>) -> Result<Result<CriterionResult, String>, String> {
    if let Some(e) = o.get("error").and_then(Value::as_str) {
        return Ok(Err(e.to_string()));
    }
    let bad = |why: &str| format!("This file's {} result {why}, so it cannot be shown.", c.label());
    let p: Vec<f64> = o
        .get("distribution")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default();
    let Ok(p) = <[f64; 5]>::try_from(p) else {
        return Err(bad("has no five rating probabilities"));
    };
    let sum: f64 = p.iter().sum();
    if p.iter().any(|x| !x.is_finite() || *x < 0.0) || (sum - 1.0).abs() > 1e-6 {
        return Err(bad("has probabilities that do not add up to 1"));
    }
    let score = smoothed_score(&p);
    if let Some(stored) = o.get("score").and_then(Value::as_f64) {
        if (stored - score).abs() > 1e-6 {
            return Err(bad("records a score its probabilities do not give"));
        }
    }
    let smoothed = o.get("smoothed").and_then(Value::as_bool).unwrap_or(true);
    if !smoothed && !p.contains(&1.0) {
        return Err(bad("is marked unsmoothed but spreads its probability"));
    }
    let coverage = o
        .get("coverage")
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite() && *x > 0.0 && *x <= 1.0 + 1e-9);
    if smoothed && coverage.is_none() {
        return Err(bad("has no coverage between 0 and 1"));
    }
    let doubts = Doubt::from_export(o.get("doubts"));
    Ok(Ok(CriterionResult {
        distribution: p,
        score,
        sigma: smoothed.then(|| sigma(&p)),
        coverage: if smoothed { coverage } else { None },
        answer: str_of(o, "answer"),
        usage: o.get("usage").and_then(|u| serde_json::from_value(u.clone()).ok()),
        doubts,
    }))
}

/// One gallery entry of `examples/manifest.json` (written by `scripts/examples_manifest.py`).
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// The `demo-<name>` test id's tail and the file's stem.
    pub name: String,
    pub title: String,
    pub file: String,
}

/// Reads the gallery's manifest. Names and files that could leave `examples/` are skipped.
pub fn read_manifest(json: &str) -> Result<Vec<Example>, String> {
    let list: Vec<Value> = serde_json::from_str(json)
        .map_err(|_| "The examples could not be read (their list is damaged).".to_string())?;
    let safe = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
            && !s.starts_with('.')
    };
    Ok(list
        .iter()
        .filter_map(|e| {
            let get = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_string);
            let (name, file) = (get("name")?, get("file")?);
            (safe(&name) && safe(&file) && file.ends_with(".json")).then(|| Example {
                title: get("title").unwrap_or_else(|| name.clone()),
                name,
                file,
            })
        })
        .collect())
}

#[cfg(test)]
#[path = "result_file_tests.rs"]
mod tests;
