//! Reading a result file back: the evaluator's "Export JSON" document of any metric, optionally
//! with the keys a gallery example or a history entry adds (`image`, a data URL of a small
//! thumbnail; `explanations`, Explain's stored answers by criterion; `source`, where the numbers
//! come from). The examples gallery, "open a result" and (later) share links and history all go
//! through [`read`], so an exported file and an example are one format.
//!
//! Nothing here trusts a number the file could not support: each metric's own reader
//! (`Metric::reopen`, in `metrics::<m>::reopen`) recomputes its numbers from what they were
//! computed from (a HarmonicEval criterion's score, σ and weight from its stored distribution),
//! and a file whose stored score disagrees is refused with a sentence, as is anything malformed.

use serde_json::{Map, Value};

use crate::metrics::{ComparedResult, Metric, Reopened};
use crate::scoring::criteria::Criterion;

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
    /// The in-page judge's backend and threads, if the file records them (`engine`).
    pub engine: Option<crate::providers::in_browser::gpu::Engine>,
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
            max_tokens: get("max_tokens")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n > 0),
            image_detail: get("image_detail")
                .and_then(Value::as_str)
                .map(crate::providers::ImageDetail::from_id),
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
    /// One metric's result, as if it had just run (every number checked by the metric's own
    /// reader, `metrics::<m>::reopen`).
    Single(Reopened),
    /// A HarmonicEval comparison of several candidates (issue 21): each candidate read as its
    /// own result, every number recomputed from its distributions.
    Candidates(Box<Comparison>),
}

/// Several candidates for one image, as the comparison's export or share link holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub labels: Vec<String>,
    /// One per label, in order (its `text` is the candidate's).
    pub candidates: Vec<ComparedResult>,
    /// The human's pick, an index into `labels`.
    pub chosen: Option<usize>,
    pub gamma: f64,
}

/// Reads a result file, or says in one sentence why it cannot.
pub fn read(json: &str) -> Result<Opened, String> {
    // The gate first: nothing larger than a result is parsed, nothing longer than a new
    // evaluation's text or any list a result has is read further.
    crate::files::gate::size(crate::files::gate::Origin::Any, json.len() as f64)?;
    let doc: Value = serde_json::from_str(json).map_err(|_| {
        "This file is not a result exported by harmonic-judge (it is not JSON).".to_string()
    })?;
    let obj = doc
        .as_object()
        .ok_or_else(|| "This file is not a result exported by harmonic-judge.".to_string())?;
    crate::files::gate::check(&doc)?;
    let metric = str_of(obj, "metric");
    let Some(known) = Metric::from_id(&metric) else {
        return Err(
            "This file is not a result exported by harmonic-judge (no known metric).".into(),
        );
    };
    let image = obj
        .get("image")
        .and_then(Value::as_str)
        .filter(|s| s.starts_with("data:image/"))
        .map(str::to_string);
    // A comparison names its model and provider in each candidate's own result.
    let mut named = obj;
    let body = if obj.get("kind").and_then(Value::as_str) == Some("candidates") {
        if !known.weighs_criteria() {
            return Err(format!(
                "This file compares candidates with {}; only HarmonicEval comparisons open on this page so far (its numbers are in the file).",
                known.info().name
            ));
        }
        let (comparison, first) = read_comparison(obj)?;
        named = first;
        Body::Candidates(Box::new(comparison))
    } else {
        Body::Single(known.reopen(obj)?)
    };
    Ok(Opened {
        source: obj
            .get("source")
            .and_then(Value::as_str)
            .map(str::to_string),
        image,
        model: str_of(named, "model"),
        provider: str_of(named, "provider"),
        sent: Sent::of(named),
        engine: engine_of(named),
        metric,
        body,
    })
}

/// The `engine` a file records (`{"backend": "webgpu" | "cpu", "threads": n}`); anything
/// else recorded there is not shown.
fn engine_of(obj: &Map<String, Value>) -> Option<crate::providers::in_browser::gpu::Engine> {
    use crate::providers::in_browser::gpu::{Compute, Engine};
    let e = obj.get("engine")?;
    let backend = Compute::from_id(e.get("backend")?.as_str()?)?;
    let threads = u32::try_from(e.get("threads")?.as_u64()?)
        .ok()
        .filter(|n| (1..=1024).contains(n))?;
    Some(Engine { backend, threads })
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
        .filter_map(|(c, e)| {
            e.as_ref()
                .map(|e| (c.id().to_string(), Value::from(e.as_str())))
        })
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
    obj.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// A comparison's candidates (2 to [`crate::candidates::MAX_CANDIDATES`], labels given and
/// distinct), each read by the reader of the metric with γ (`metrics::reopen_compared`); and the first one's result (its model, provider).
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
        let label = c
            .get("label")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_string();
        if label.is_empty() || labels.contains(&label) {
            return Err(bad("its candidates need distinct labels"));
        }
        let result = c
            .get("result")
            .and_then(Value::as_object)
            .ok_or_else(|| bad(&format!("candidate {label} has no result")))?;
        let mut h = crate::metrics::reopen_compared(result)?;
        h.text = c
            .get("text")
            .and_then(Value::as_str)
            .map_or(h.text, str::to_string);
        first.get_or_insert(result);
        labels.push(label);
        candidates.push(h);
    }
    if candidates
        .iter()
        .all(|h| !h.results.iter().any(|r| matches!(r, Some(Ok(_)))))
    {
        return Err(bad("no candidate has a score"));
    }
    let chosen = obj
        .get("chosen")
        .and_then(Value::as_str)
        .and_then(|c| labels.iter().position(|l| l == c));
    let gamma = obj
        .get("gamma")
        .and_then(Value::as_f64)
        .filter(|g| (crate::scoring::gamma_axis::GAMMA_MIN..=1.0).contains(g))
        .unwrap_or(crate::scoring::gamma_axis::GAMMA_DEFAULT);
    let comparison = Comparison {
        labels,
        candidates,
        chosen,
        gamma,
    };
    Ok((comparison, first.unwrap_or(obj)))
}

/// One gallery entry of `examples/manifest.json` (written by `scripts/examples_manifest.py`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Example {
    /// The `demo-<name>` test id's tail and the file's stem.
    pub name: String,
    pub title: String,
    pub file: String,
    /// Where the file says its numbers come from: "constructed", "recorded" or "file".
    pub origin: String,
    /// The model the file names (a claim of the file's, said as one).
    pub model: String,
    /// The example a first visit is pointed to.
    pub start: bool,
}

impl Example {
    /// The gallery's line under the title: where the numbers come from, in the file's words,
    /// never more than it says.
    pub fn provenance(&self) -> String {
        let model = self.model.trim();
        match (self.origin.as_str(), model) {
            ("constructed", _) => "Constructed by hand, not a model's answer".into(),
            ("recorded", "") => "Recorded from a model (the file says)".into(),
            ("recorded", m) => format!("Recorded from {m} (the file says)"),
            (_, "") => "A result file; it does not say where its numbers come from".into(),
            (_, m) => format!("A result file; it says it is from {m}"),
        }
    }
}

/// The most gallery entries listed (the site's own file, but a list all the same).
pub const MAX_EXAMPLES: usize = 50;

/// The longest example title shown.
const MAX_TITLE_CHARS: usize = 120;

/// Reads the gallery's manifest. Names and files that could leave `examples/` are skipped.
pub fn read_manifest(json: &str) -> Result<Vec<Example>, String> {
    let list: Vec<Value> = serde_json::from_str(json)
        .map_err(|_| "The examples could not be read (their list is damaged).".to_string())?;
    let safe = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
            && !s.starts_with('.')
    };
    Ok(list
        .iter()
        .filter_map(|e| {
            let get = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_string);
            let (name, file) = (get("name")?, get("file")?);
            (safe(&name) && safe(&file) && file.ends_with(".json")).then(|| Example {
                title: get("title")
                    .unwrap_or_else(|| name.clone())
                    .chars()
                    .take(MAX_TITLE_CHARS)
                    .collect(),
                name,
                file,
                origin: get("origin").unwrap_or_default(),
                model: get("model").unwrap_or_default().chars().take(80).collect(),
                start: e.get("start").and_then(Value::as_bool).unwrap_or(false),
            })
        })
        .take(MAX_EXAMPLES)
        .collect())
}

#[cfg(test)]
#[path = "result_file_tests.rs"]
mod tests;
